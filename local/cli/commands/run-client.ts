import { existsSync } from 'node:fs';
import { basename, join } from 'node:path';
import { s3Client } from '#commons/aws/clients.ts';
import { ObjectStore } from '#commons/aws/object-store.ts';
import { partReportFiles, reportKeys, reportPrefix } from '#commons/report-keys.ts';
import type { IntakeReport } from '#intake/report.ts';
import type { RunningStack } from '#local/stack/running-stack.ts';
import { type ContactsFile, dropContacts } from '../run-contacts.ts';
import {
  type EmulatorCalls,
  followUpLines,
  isoDuration,
  type PartReport,
  partEntry,
  partLine,
  printNothingLaunched,
  readableDuration,
  readJson,
  runOutcome,
  runSummary,
  runUploadKey,
  summaryLines,
  uploadSheet,
} from '../run-summary.ts';
import { onStopSignal } from '../stop-signals.ts';

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** How long the running stack may take to copy a part's report and draw its page once the report is in the bucket. */
const COPY_WAIT_MS = 30_000;

/**
 * `callsheet run` while `callsheet local` runs on the same data directory: a client of that stack. It uploads the
 * sheet to its bucket as the AWS CLI would, waits for intake and for each part's report in the stack's own time,
 * and prints the same summary. Ctrl-C stops only the waiting: the campaigns go on in `callsheet local`.
 */
export async function runOnStack(
  running: RunningStack,
  o: {
    file: string;
    body: Buffer;
    /** A contact file to drop under contacts/ once the sheet is in (the running stack syncs it). */
    contacts: ContactsFile | null;
    metadata: Record<string, string>;
    agent: string;
    json: boolean;
    dataDir: string;
  },
): Promise<number> {
  const say = (line: string) => {
    if (!o.json) console.log(line);
  };
  const s3 = s3Client({
    region: running.region,
    endpoints: { s3: running.endpoints.s3 },
    credentials: running.credentials,
  });
  let interrupted = false;
  const interrupt = () => {
    interrupted = true;
  };
  const stopListening = onStopSignal(interrupt);
  try {
    const objects = new ObjectStore(s3);
    const key = runUploadKey(o.agent, o.file);
    const id = await uploadSheet(objects, running.bucket, key, o.body, o.metadata);
    say(`${o.file}: uploaded to the running callsheet local (process ${running.pid}) as s3://${running.bucket}/${key}`);
    const contacts = o.contacts ? { file: o.contacts.file, upload: `s3://${running.bucket}/${o.contacts.key}` } : null;
    if (o.contacts && contacts) {
      await dropContacts(objects, running.bucket, o.contacts);
      say(`${o.contacts.file}: uploaded as ${contacts.upload}; the stack syncs it (callsheet contacts list)`);
    }
    let intake: IntakeReport | null = null;
    while (!intake && !interrupted) {
      intake = await readJson<IntakeReport>(objects, running.bucket, reportKeys(id).json);
      if (!intake) await pause(250);
    }
    if (!intake) return stopped(say);
    if (intake.status !== 'launched' || intake.parts.length === 0) {
      printNothingLaunched(
        {
          file: o.file,
          upload: key,
          json: o.json,
          dataDir: o.dataDir,
          reportFile: join(o.dataDir, reportKeys(id).json),
          toLocal: true,
        },
        intake,
        `intake ${intake.status} the upload`,
      );
      return 1;
    }
    const prefix = reportPrefix(intake.uploadId);
    const local = (name: string) => join(o.dataDir, 'reports', intake.uploadId, name);
    say(
      `intake report ${local('report.json')}; waiting for ${intake.parts.length} part(s) (callsheet status shows them)`,
    );
    const reports = new Map<number, PartReport>();
    while (reports.size < intake.parts.length && !interrupted) {
      for (const p of intake.parts) {
        if (reports.has(p.index)) continue;
        const r = await readJson<PartReport>(objects, running.bucket, partReportFiles(prefix, p.index).json);
        if (r) reports.set(p.index, r);
      }
      if (reports.size < intake.parts.length) await pause(500);
    }
    // The running stack copies each report into the data directory and draws its page after the report is in the
    // bucket: wait for both, so the paths printed below are there to open.
    const copies = intake.parts.flatMap((p) => {
      const files = partReportFiles(prefix, p.index);
      return [local(basename(files.json)), local(basename(files.html))];
    });
    const copyDeadline = Date.now() + COPY_WAIT_MS;
    while (!interrupted && Date.now() < copyDeadline && copies.some((c) => !existsSync(c))) await pause(250);
    if (interrupted) return stopped(say);
    const missing = copies.filter((c) => !existsSync(c));
    if (missing.length > 0) {
      const ids = [...reports.values()].map((r) => r.campaignId).filter(Boolean);
      console.error(
        `callsheet local has not yet copied ${missing.join(', ')}; the reports are in the bucket (${ids.map((id) => `callsheet report ${id}`).join('; ')})`,
      );
    }
    const parts = intake.parts.map((p) => {
      const r = reports.get(p.index) as PartReport;
      const files = partReportFiles(prefix, p.index);
      return { ...partEntry(p.index, r, running.bucket, files, local), duration: isoDuration(r.durationSeconds) };
    });
    // The emulator's calls of these campaigns only: the stack may be running others.
    const ids = new Set(parts.map((p) => p.campaignId).filter(Boolean));
    const state = running.voiceApi
      ? ((await (await fetch(`${running.voiceApi.url}/_emulator/state`)).json()) as EmulatorCalls)
      : null;
    const summary = runSummary(
      intake,
      state ? { credits: state.credits, calls: state.calls.filter((c) => ids.has(c.campaign_id ?? '')) } : null,
    );
    if (o.json)
      console.log(
        JSON.stringify(
          { upload: `s3://${running.bucket}/${key}`, summary, parts, ...(contacts ? { contacts } : {}) },
          null,
          2,
        ),
      );
    else {
      for (const p of parts) {
        say(partLine(p, readableDuration(p.duration)));
        for (const line of followUpLines(p)) say(line);
        say(`  report: ${p.page}`);
      }
      for (const line of summaryLines(summary)) say(line);
      say(`all reports: ${local('')} (s3:// addresses live only while callsheet local runs)`);
    }
    const outcome = runOutcome(parts, summary, 'here: callsheet local --credits');
    if (!o.json) for (const line of outcome.lines) say(line);
    return outcome.code;
  } finally {
    stopListening();
    s3.destroy();
  }
}

function stopped(say: (line: string) => void): number {
  say('stopped waiting; callsheet local goes on with the campaigns (callsheet status, callsheet campaign)');
  return 130;
}
