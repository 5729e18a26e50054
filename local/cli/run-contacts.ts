import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import type { ObjectStore } from '#commons/aws/object-store.ts';
import { planContactPush } from '#contacts/push-plan.ts';
import { CONTACT_SHEETS, type ContactSheetReport, contactReportKey, isContactLines } from '#contacts/sheet-intake.ts';
import type { LocalContacts } from '#local/stack/contacts-stack.ts';
import { cannotRead, UsageError } from './command.ts';
import { readJson, uploadSheet } from './run-summary.ts';

/** A contact file for `run --contacts`, read before anything starts. */
export interface ContactsFile {
  file: string;
  key: string;
  body: Buffer;
}

export async function readContactsFile(file: string): Promise<ContactsFile> {
  const name = basename(file);
  if (!isContactLines(name) && !/\.(xlsx|xls|csv)$/i.test(name))
    throw new UsageError(
      `--contacts ${file}: give a contact sheet (.xlsx, .xls, .csv) or JSON lines (.jsonl), one event a line`,
    );
  try {
    return { file, key: `${CONTACT_SHEETS}${name}`, body: await readFile(file) };
  } catch (err) {
    throw cannotRead(file, err, '--contacts');
  }
}

/** Drops the file under contacts/, as `aws s3 cp FILE s3://$CALLSHEET_BUCKET/contacts/` does; answers its upload id. */
export const dropContacts = (objects: ObjectStore, bucket: string, c: ContactsFile) =>
  uploadSheet(objects, bucket, c.key, c.body, {});

/** What the sync did with the file, once the contact queue is empty: from its report and the contact function. */
export async function contactsSummary(
  objects: ObjectStore,
  bucket: string,
  c: ContactsFile,
  id: string,
  contacts: LocalContacts,
) {
  const report = await readJson<ContactSheetReport>(objects, bucket, contactReportKey(id));
  const at = new Date().toISOString();
  // This file's contacts only: one left waiting in the data directory by an earlier run or push is not this sync's.
  const waiting = (await contacts.store.list()).filter(
    (s) =>
      contacts.tally.phones.has(s.phone) && (planContactPush(s, [], at) !== null || s.noteCount > s.pushed.noteCount),
  ).length;
  return {
    file: c.file,
    upload: `s3://${bucket}/${c.key}`,
    report: `s3://${bucket}/${contactReportKey(id)}`,
    error: report?.error ?? null,
    rows: report?.rows ?? null,
    rejected: report?.rejected ?? [],
    applied: { ...contacts.tally.applied },
    deadLettered: contacts.queue.deadLetters.map((d) => d.reason),
    waitingToBePushed: waiting,
  };
}

export function contactsLine(s: Awaited<ReturnType<typeof contactsSummary>>): string[] {
  if (s.error) return [`contacts ${s.file}: not read: ${s.error.message}`];
  const a = s.applied;
  const lines = [
    `contacts ${s.file}: ${s.rows?.total ?? 0} event(s), ${s.rows?.rejected ?? 0} rejected; ` +
      `${a.created} created, ${a.updated} updated, ${a.unchanged} unchanged, ${a.duplicate} seen before; ` +
      `${s.deadLettered.length} dead-lettered; ${s.waitingToBePushed} contact(s) waiting to be pushed`,
  ];
  for (const r of s.rejected.slice(0, 5))
    lines.push(`  rejected ${isContactLines(s.file) ? 'line' : 'row'} ${r.row}: ${r.reason}`);
  if (s.rejected.length > 5) lines.push(`  … ${s.rejected.length - 5} more in ${s.report}`);
  for (const reason of s.deadLettered.slice(0, 5)) lines.push(`  dead-lettered: ${reason}`);
  return lines;
}

/**
 * Whether the sync did all it was given, as `contacts push` judges it (exit status 1 otherwise): the file read,
 * every event accepted and applied, every contact pushed. The line says what was left undone.
 */
export function contactsOutcome(s: Awaited<ReturnType<typeof contactsSummary>>): { ok: boolean; line: string | null } {
  const left = [
    ...(s.error ? ['the file was not read'] : []),
    ...(s.rejected.length > 0 ? [`${s.rejected.length} ${isContactLines(s.file) ? 'line' : 'row'}(s) rejected`] : []),
    ...(s.deadLettered.length > 0 ? [`${s.deadLettered.length} event(s) dead-lettered`] : []),
    ...(s.waitingToBePushed > 0 ? [`${s.waitingToBePushed} contact(s) not pushed`] : []),
  ];
  if (left.length === 0) return { ok: true, line: null };
  return {
    ok: false,
    line: `contacts ${s.file} not synced whole (${left.join(', ')}): the campaigns ran regardless; exit status 1, as \`callsheet contacts push\` gives.`,
  };
}
