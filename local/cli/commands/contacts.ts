import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import type { CountryCode } from 'libphonenumber-js/max';
import { isCountryCode, normalizePhone } from '#commons/phone/phone.ts';
import { SuppressionList } from '#commons/suppression-list.ts';
import { TABLES } from '#commons/tables.ts';
import { counted } from '#commons/words.ts';
import { checkContactEvent } from '#contacts/contact-event.ts';
import { readContactLines } from '#contacts/contact-lines.ts';
import { ContactPusher, type PushOutcome } from '#contacts/contact-pusher.ts';
import { ContactSheetProblem, readContactSheet } from '#contacts/contact-sheet.ts';
import type { ContactState } from '#contacts/contact-state.ts';
import { ContactStore } from '#contacts/contact-store.ts';
import { ContactSync, type MessageResult } from '#contacts/contact-sync.ts';
import { planContactPush } from '#contacts/push-plan.ts';
import { isContactLines } from '#contacts/sheet-intake.ts';
import { localDataDir } from '#local/stack/data-dir.ts';
import { readRunningStack } from '#local/stack/running-stack.ts';
import { type Command, cannotRead, UsageError } from '../command.ts';
import { openPushTarget, type PushTarget } from '../contact-push-target.ts';
import { type OpenTable, openTable } from '../table-access.ts';

const ACTIONS = ['push', 'show', 'list'] as const;

/**
 * The tables beside the contacts table that a push writes: the API budget and the do-not-call list (where an opt-out
 * change lists its number). Deployed, each comes from its variable; locally, from the same database.
 */
function pushTables(opened: OpenTable): { budget: string; suppression: string } {
  const named = (name: 'apiBudget' | 'suppression') => {
    const table = opened.sibling(name);
    if (!table)
      throw new UsageError(
        `contacts push on the deployed tables needs ${TABLES[name].env} set too, beside CONTACTS_TABLE`,
      );
    return table;
  };
  return { budget: named('apiBudget'), suppression: named('suppression') };
}

/** Text whose first line that is not blank opens a JSON object: JSON lines, whatever the file is called. */
const opensJson = (bytes: Buffer) => /^\uFEFF?\s*\{/.test(bytes.subarray(0, 4096).toString('utf8'));

/** A sheet by name or content; a .txt too unless it holds JSON lines (`validate` reads a .txt as CSV). */
const isSheet = (bytes: Buffer, name: string) =>
  /\.(xlsx|xls|csv|tsv)$/i.test(name) ||
  bytes.subarray(0, 2).toString('latin1') === 'PK' ||
  bytes[0] === 0xd0 ||
  (/\.txt$/i.test(name) && !opensJson(bytes));

/** The events in a sheet, or in JSON lines (one event per line); what cannot be an event, with where and why. */
async function readEvents(
  input: string,
  country: CountryCode | undefined,
): Promise<{ events: unknown[]; rejected: string[] }> {
  let bytes: Buffer;
  try {
    bytes = input === '-' ? await readStdin() : await readFile(input);
  } catch (err) {
    throw cannotRead(input, err);
  }
  const name = input === '-' ? 'stdin' : basename(input);
  if (isContactLines(name) || !isSheet(bytes, name)) {
    const lines = readContactLines(bytes, country);
    return { events: lines.events, rejected: lines.rejected.map((r) => `line ${r.line}: ${r.reason}`) };
  }
  try {
    const sheet = await readContactSheet(bytes, name, country);
    return { events: sheet.events, rejected: sheet.rejected.map((r) => `row ${r.row}: ${r.reason}`) };
  } catch (err) {
    // The file's content, not the command line: exit status 1, as `validate` answers the same sheet.
    if (err instanceof ContactSheetProblem) throw new Error(`${name}: ${err.message}`);
    throw err;
  }
}

async function readStdin(): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

/** Events applied at once (the contact queue's batch). */
const CHUNK = 500;

/**
 * Applies the events to the store once each, then pushes their contacts: two steps, so what was stored is counted
 * whether or not the push then goes through (a contact not pushed stays waiting, and `show` says so).
 */
async function pushEvents(
  store: ContactStore,
  suppression: SuppressionList,
  target: PushTarget,
  events: unknown[],
  country: CountryCode | undefined,
): Promise<{ applied: MessageResult[]; pushed: Map<string, PushOutcome> }> {
  const now = () => new Date(target.clock.now());
  const apply = new ContactSync({
    store,
    // The push comes next, for every contact of the file; here each stored event is done.
    pusher: { push: async (phones) => new Map(phones.map((p) => [p, { status: 'unchanged', requests: 0 }])) },
    deadLetters: { put: async () => {} },
    now,
    defaultCountry: country,
    maxReceives: Number.POSITIVE_INFINITY,
    suppression,
  });
  const pusher = target.api ? new ContactPusher({ store, api: target.api, now }) : null;
  const applied: MessageResult[] = [];
  const pushed = new Map<string, PushOutcome>();
  for (let i = 0; i < events.length; i += CHUNK) {
    const chunk = events.slice(i, i + CHUNK);
    applied.push(
      ...(await apply.handle(
        chunk.map((e, j) => ({ messageId: String(i + j), body: JSON.stringify(e), receiveCount: 1 })),
      )),
    );
    // Every stored event's contact, replays too: a contact whose last push failed goes now.
    const phones = new Set<string>();
    for (const e of chunk) {
      const check = checkContactEvent(e, country);
      if (check.ok) phones.add(check.change.phone);
    }
    const reason = target.reason ?? 'not pushed';
    const outcomes = pusher
      ? await pusher.push([...phones])
      : new Map([...phones].map((p) => [p, { status: 'retry', reason, requests: 0 } as PushOutcome]));
    for (const [phone, outcome] of outcomes) pushed.set(phone, outcome);
  }
  return { applied, pushed };
}

function pendingOf(state: ContactState) {
  return planContactPush(state, [], new Date().toISOString());
}

function describeContact(state: ContactState, notes: { seq: number; text: string; at: string }[]): string[] {
  const lines = [`${state.phone}  (changed ${state.changedAt}, created ${state.createdAt})`];
  for (const [k, v] of Object.entries(state.fields)) lines.push(`  ${k}: ${v}`);
  lines.push(`  tags: ${state.tags.length ? state.tags.join(', ') : '(none)'}`);
  lines.push(`  notes: ${notes.length === 0 ? '(none)' : ''}`);
  for (const n of notes)
    lines.push(
      `    ${n.seq}. ${n.text}  (${n.at}${n.seq <= state.pushed.noteCount ? ', pushed' : ', not pushed yet'})`,
    );
  const p = state.pushed;
  lines.push(
    p.at === null
      ? '  pushed: never'
      : `  pushed: ${p.at}: ${Object.keys(p.fields).length} field(s), ${p.tagCount} tag(s), ${p.noteCount} note(s)`,
  );
  const pending = pendingOf(state);
  if (pending || state.noteCount > p.noteCount) lines.push('  waiting to be pushed: yes');
  if (state.lastPush && !state.lastPush.ok) lines.push(`  last push failed: ${state.lastPush.error ?? ''}`);
  return lines;
}

/** Where contacts pushed before may have gone: an emulator keeps them only while it runs. */
const FORGOTTEN: Record<NonNullable<PushTarget['forgets']>, string> = {
  embedded: ' (to an earlier embedded emulator)',
  running: ' (an emulator keeps contacts only while it runs: those pushed before this stack started are not on it)',
};

export const contactsCommand: Command = {
  name: 'contacts',
  summary: 'push contact changes (a sheet or JSON lines) to the API, show one contact, list contacts',
  usage:
    'contacts push <file|-> [--country CC] [--json] | contacts show <phone> [--country CC] [--json] | contacts list [--changed-since TIME] [--json]',
  allowPositionals: true,
  options: { country: { type: 'string' }, json: { type: 'boolean' }, 'changed-since': { type: 'string' } },
  help: [
    'actions:',
    '  push <file|->   apply contact events and push the changes: a sheet (.xlsx, .xls, .csv with a "Phone',
    '                  Number" column and Name, Email, City, Location, Source, Lead Status, Custom Instruction,',
    '                  Tags, Note) or JSON lines, one `Contact Upserted` event per line (schemas/contact-upserted.v2.json,',
    '                  whose changed_at orders changes; v1 is still read); a .txt is read as CSV unless its',
    '                  first line is a JSON object;',
    '                  - reads standard input',
    '  show <phone>    the stored fields, tags and notes, and what was last pushed',
    '  list            every contact (or those changed since --changed-since)',
    'options:',
    '  --country CC          country for numbers written without a country code',
    '  --changed-since TIME  list: only contacts changed at or after this ISO 8601 time',
    '  --json                print JSON',
    '',
    'Works on the deployed tables when CONTACTS_TABLE is set (push needs API_BUDGET_TABLE and SUPPRESSION_TABLE too,',
    'and the usual AWS credentials),',
    'otherwise on the local stack in $CALLSHEET_DATA_DIR (default .callsheet/): the running `callsheet local` (or',
    'run) there, or the directory itself. push stores each event once, then sends the changes within the account-wide',
    "API budget: to VOICE_API_URL with VOICE_API_KEY (or VOICE_API_SECRET_ARN), to the running stack's emulator, or",
    'with nothing set to an emulator of its own that lasts as long as the command (as `callsheet run` has).',
  ],
  async run(values, positionals) {
    const [action, ...args] = positionals;
    if (!ACTIONS.includes(action as (typeof ACTIONS)[number]))
      throw new UsageError(`say what to do: ${ACTIONS.join(', ')}`);
    const country = (values.country as string | undefined)?.toUpperCase();
    if (country !== undefined && !isCountryCode(country))
      throw new UsageError(`--country ${values.country} is not an ISO 3166 country code`);
    const since = values['changed-since'] as string | undefined;
    if (since !== undefined && (action !== 'list' || Number.isNaN(Date.parse(since))))
      throw new UsageError('--changed-since goes with list and takes an ISO 8601 time, e.g. 2026-03-01T00:00:00Z');
    if (action === 'list' && args.length > 0) throw new UsageError('list takes no arguments');
    if (action !== 'list' && args.length !== 1)
      throw new UsageError(`${action} takes one ${action === 'push' ? 'file (or -)' : 'phone number'}`);

    let phone = '';
    if (action === 'show') {
      const result = normalizePhone(args[0] as string, country as CountryCode | undefined);
      if (!result.ok)
        throw new UsageError(
          `${JSON.stringify(args[0])} is not a valid phone number${country ? ` for ${country}` : ' (write it as +<country code><number>, or give --country)'}`,
        );
      phone = result.e164;
    }
    const input = action === 'push' ? await readEvents(args[0] as string, country as CountryCode | undefined) : null;

    const tables = await openTable('contacts');
    const store = new ContactStore(tables.db, tables.table);
    try {
      if (action === 'show') {
        const state = await store.read(phone);
        if (!state) {
          console.error(`No contact ${phone} in ${tables.where}.`);
          return 1;
        }
        const notes = await store.notes(state);
        if (values.json)
          console.log(JSON.stringify({ contact: state, notes, waitingToBePushed: pendingOf(state) !== null }, null, 2));
        else console.log(describeContact(state, notes).join('\n'));
        return 0;
      }
      if (action === 'list') {
        const all = await store.list(since ? new Date(since).toISOString() : undefined);
        if (values.json) console.log(JSON.stringify(all, null, 2));
        else if (all.length === 0)
          console.log(`No contacts${since ? ` changed since ${since}` : ''} in ${tables.where}.`);
        else
          for (const c of all)
            console.log(
              `${c.phone}  ${c.fields.contact_name ?? ''}  changed ${c.changedAt}  ${pendingOf(c) ? 'waiting to be pushed' : 'pushed'}`,
            );
        return 0;
      }
      const { events, rejected } = input as { events: unknown[]; rejected: string[] };
      const deployed = Boolean(process.env[TABLES.contacts.env]);
      const beside = pushTables(tables);
      const target = await openPushTarget(tables.db, beside.budget, {
        deployed,
        running: !deployed && tables.live ? await readRunningStack(localDataDir()) : null,
      });
      let result: Awaited<ReturnType<typeof pushEvents>>;
      try {
        result = await pushEvents(
          store,
          new SuppressionList(tables.db, beside.suppression),
          target,
          events,
          country as CountryCode | undefined,
        );
      } finally {
        await target.close();
      }
      const count = (applied: string) =>
        result.applied.filter((r) => r.status === 'done' && r.applied === applied).length;
      const outcomes = [...result.pushed.values()];
      const notPushed = outcomes.filter((o) => o.status === 'retry' || o.status === 'failed');
      const summary = {
        where: tables.where,
        api: target.url,
        pushedTo: target.name,
        events: events.length + rejected.length,
        rejected,
        created: count('created'),
        updated: count('updated'),
        unchanged: count('unchanged'),
        duplicates: count('duplicate'),
        contacts: {
          pushed: outcomes.filter((o) => o.status === 'pushed').length,
          upToDate: outcomes.filter((o) => o.status === 'unchanged').length,
          notPushed: notPushed.length,
        },
        notPushed: [...new Set(notPushed.map((o) => ('reason' in o ? o.reason : '')))],
      };
      if (values.json) console.log(JSON.stringify(summary, null, 2));
      else {
        console.log(
          `${summary.events} event(s) in ${tables.where}: ${summary.created} created, ${summary.updated} updated, ${summary.unchanged} unchanged, ${summary.duplicates} seen before, ${rejected.length} rejected`,
        );
        for (const r of rejected) console.log(`  rejected ${r}`);
        const c = summary.contacts;
        if (c.pushed + c.upToDate > 0)
          console.log(
            `${counted(c.pushed, 'contact')} pushed to ${target.name}${c.upToDate > 0 ? `; ${c.upToDate} not pushed again: unchanged since callsheet last pushed them${target.forgets ? FORGOTTEN[target.forgets] : ''}` : ''}.`,
          );
        if (c.notPushed > 0)
          console.log(`${counted(c.notPushed, 'contact')} not pushed (stored; they wait for the next push):`);
        for (const reason of summary.notPushed) console.log(`  ${reason}`);
      }
      return rejected.length > 0 || summary.notPushed.length > 0 ? 1 : 0;
    } finally {
      await tables.close();
    }
  },
};
