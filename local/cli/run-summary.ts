import { basename } from 'node:path';
import type { ObjectStore } from '#commons/aws/object-store.ts';
import { uploadId } from '#commons/upload-ref.ts';
import { counted } from '#commons/words.ts';
import type { IntakeReport } from '#intake/report.ts';
import type { Secured } from '#lifecycle/campaign-store.ts';
import type { PartReport } from '#lifecycle/part-report.ts';

export type { PartReport };

/** Where `run` uploads a sheet: a folder per run, as s3rver keeps no versions (the same key would be no new upload). */
export const runUploadKey = (agent: string, file: string, at = new Date()): string =>
  `incoming/${agent}/run-${at.toISOString().replace(/[-:.]/g, '')}/${basename(file)}`;

/**
 * Uploads the sheet as a user would and answers the id intake gives that object version (upload-ref.ts), so the
 * intake report is read where it will be, never searched for.
 */
export async function uploadSheet(
  objects: ObjectStore,
  bucket: string,
  key: string,
  body: Buffer,
  metadata: Record<string, string>,
): Promise<string> {
  const put = await objects.put(bucket, key, body, 'application/octet-stream', metadata);
  return uploadId({ bucket, key, ...put, size: body.length });
}

/** A JSON object of the bucket, or null while it is not there. */
export async function readJson<T>(objects: ObjectStore, bucket: string, key: string): Promise<T | null> {
  const obj = await objects.get(bucket, key);
  return obj ? (JSON.parse(obj.bytes.toString('utf8')) as T) : null;
}

/** An upload intake launched nothing for: why, as one JSON object, or on stderr with where to look and what to do. */
export function printNothingLaunched(
  o: {
    file: string;
    upload: string;
    json: boolean;
    dataDir: string;
    reportFile: string;
    /** Uploaded to a running `callsheet local`, whose clock a run cannot move (no --now). */
    toLocal?: boolean;
  },
  intake: IntakeReport | null,
  fallback: string,
): void {
  const error = intake?.error ?? null;
  if (o.json) {
    console.log(JSON.stringify({ upload: o.upload, error, parts: [] }, null, 2));
    return;
  }
  console.error(`${o.file}: ${error?.message ?? fallback}`);
  if (!intake) return;
  const byReason = countBy(intake.rejected, (r) => r.reason);
  if (byReason.size > 0) console.error(`  rejected rows: ${counts(byReason)}`);
  for (const note of intake.notes ?? []) console.error(`  note: ${note}`);
  if (error?.code === 'no_valid_rows' && (byReason.has('daily-cap') || byReason.has('weekly-cap')))
    console.error(
      `  the caps count the calls of every run on ${o.dataDir}: run again with CALLSHEET_DATA_DIR set to an ` +
        `empty folder${o.toLocal ? '' : ', or with --now a week later'}`,
    );
  console.error(`  intake report: ${o.reportFile}`);
}

/**
 * One part's entry in `run`'s result, from the report it wrote (null: it wrote none, so it counts as failed): where
 * the report lives in the bucket and, when there is one, its local copy and page (`local` names a file under the
 * data directory's copy of the upload's reports).
 */
export function partEntry(
  index: number,
  r: PartReport | null,
  bucket: string,
  files: { json: string; html: string },
  local: (name: string) => string,
  interrupted = false,
  /** The part's record as the summary is written: the safety net may have acted again since its report was. */
  record: { secured?: Secured; failure?: PartReport['failure'] } | null = null,
) {
  const secured = record?.secured ?? null;
  // The record's failure is written with each securing; the report's only with the first.
  const failure = (secured && record?.failure) || r?.failure;
  // A part the user's Ctrl-C (or a signal) stopped did not fail: say so, whatever its report says.
  const ended = r?.status ?? 'failed';
  const followUp = followUpOf(r);
  const status: PartReport['status'] | 'interrupted' =
    interrupted && ended !== 'completed' && ended !== 'cancelled' ? 'interrupted' : ended;
  return {
    index,
    campaignId: r?.campaignId ?? null,
    status,
    stats: r?.stats ?? null,
    pauses: r?.pauses ?? [],
    resumes: r?.resumes ?? [],
    brakes: r?.brakes ?? [],
    report: `s3://${bucket}/${files.json}`,
    ...(r ? { file: local(basename(files.json)), page: local(basename(files.html)) } : {}),
    ...(failure ? { failure } : {}),
    ...(followUp ? { followUp } : {}),
    ...(secured ? { secured: { by: secured.by, outcome: secured.outcome, reason: secured.reason } } : {}),
  };
}

/**
 * What is left to do about a part the safety net (the guard, or the sweeper) could not leave paused, under the
 * part's line (which says how it was left). Nothing watches a campaign once `run` has ended: on a real API a pause
 * it could not confirm is the user's to check, and a brake the user's to release; the local emulator stops with
 * the run and dials no one after it. A part that completed after a sweep secured it is as its workflow left it.
 */
export function securedLines(
  p: { campaignId: string | null; partKey: string; status: string; secured?: Pick<Secured, 'outcome'> },
  realApi: boolean,
): string[] {
  if (p.status === 'completed') return [];
  const named = p.campaignId
    ? `campaign ${p.campaignId}`
    : `the campaign of part ${p.partKey} (its create's answer was lost: find it by its name in the vendor's dashboard)`;
  switch (p.secured?.outcome) {
    case 'braked':
      return realApi
        ? [
            `  its agent stays switched off until you run \`callsheet campaign release ${p.campaignId ?? p.partKey}\`, once ${named} shows paused in the vendor's dashboard`,
          ]
        : [];
    case 'unconfirmed':
      return realApi
        ? [`  callsheet no longer watches ${named}: check it in the vendor's dashboard and pause it there now`]
        : ['  the local emulator stopped with the run: it dials no one after it'];
    default:
      return [];
  }
}

const countBy = <T>(items: readonly T[], key: (item: T) => string) => {
  const out = new Map<string, number>();
  for (const item of items) out.set(key(item), (out.get(key(item)) ?? 0) + 1);
  return out;
};
const counts = (by: Map<string, number>) => [...by].map(([what, n]) => `${n} ${what}`).join(', ');

/** What a part's follow-up did, when it has one: the rounds it started, or why none; who was left out. */
function followUpOf(r: PartReport | null) {
  const f = r?.outcomes && 'followUp' in r.outcomes ? r.outcomes.followUp : null;
  if (!f) return null;
  return {
    round: f.round,
    started: f.started.map((s) => ({
      round: s.round,
      contacts: s.contacts,
      outcomes: s.outcomes,
      notBefore: s.notBefore,
    })),
    none: f.none,
    skipped: Object.fromEntries(countBy(f.skipped, (x) => x.reason)),
  };
}

/** The follow-up lines under a part's line in `run`'s summary. */
export function followUpLines(p: { followUp?: ReturnType<typeof followUpOf> }): string[] {
  const f = p.followUp;
  if (!f) return [];
  const skipped = Object.keys(f.skipped).length > 0 ? `; left out: ${counts(new Map(Object.entries(f.skipped)))}` : '';
  if (f.started.length === 0) return [`  follow-up: none started (${f.none ?? 'none needed'})${skipped}`];
  return f.started.map(
    (s, i) =>
      `  follow-up: round ${s.round} started for ${s.contacts} contact(s) (${s.outcomes.join(', ')}), from ${s.notBefore}${i === 0 ? skipped : ''}`,
  );
}

/** One part's line in the summary: how it ended, its counts, its pauses, how long it took. */
export function partLine(
  p: Pick<PartReport, 'stats' | 'pauses' | 'resumes'> & {
    brakes?: PartReport['brakes'];
    status: PartReport['status'] | 'interrupted';
    index: number;
    failure?: { message: string };
  },
  took: string,
): string {
  const counts = p.stats
    ? `${p.stats.completed ?? 0} completed, ${p.stats.failed ?? 0} failed, ${p.stats.pending ?? 0} not called`
    : 'no stats';
  const braked = (p.brakes ?? []).filter((b) => b.event === 'brake').length;
  const brakes = braked > 0 ? `, agent switched off ${braked} time(s) (the brake)` : '';
  return `part ${p.index}: ${p.status}, ${counts}; ${p.pauses.length} pause(s), ${p.resumes.length} resume(s)${brakes}; took ${took}${p.failure ? ` — ${p.failure.message}` : ''}`;
}

/** Seconds as an ISO 8601 duration: PT1H2M3S, or P2DT4H. */
export function isoDuration(seconds: number): string {
  const d = Math.floor(seconds / 86_400);
  const h = Math.floor((seconds % 86_400) / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = Math.round(seconds % 60);
  const time = `${h ? `${h}H` : ''}${m ? `${m}M` : ''}${s || (!d && !h && !m) ? `${s}S` : ''}`;
  return `P${d ? `${d}D` : ''}${time ? `T${time}` : ''}`;
}

/** The emulator's account as `GET /_emulator/state` shows it: what the summary counts calls from. */
export interface EmulatorCalls {
  credits: number;
  calls: { status: string; started_at: string | null; failure_reason: string | null; campaign_id?: string | null }[];
}

/** What happened to the sheet's rows, in one place: the numbers a user asks about first. */
export function runSummary(intake: IntakeReport | null, emu: EmulatorCalls | null) {
  const rejected = intake?.rejected ?? [];
  const suppressed = rejected.filter((r) => r.reason === 'suppressed').length;
  const placed = emu?.calls.filter((c) => c.started_at !== null) ?? [];
  const failedByReason: Record<string, number> = {};
  for (const c of emu?.calls ?? []) {
    if (c.status === 'completed' || c.status === 'queued' || c.status === 'in_progress' || c.status === 'ringing')
      continue;
    const reason = c.failure_reason ?? c.status;
    failedByReason[reason] = (failedByReason[reason] ?? 0) + 1;
  }
  return {
    rows: intake?.rows.total ?? 0,
    accepted: intake?.rows.valid ?? 0,
    rejected: rejected.length - suppressed,
    suppressed,
    attempted: emu ? emu.calls.length : null,
    called: emu ? placed.length : null,
    answered: emu ? emu.calls.filter((c) => c.status === 'completed').length : null,
    failedByReason: emu ? failedByReason : null,
    creditsLeft: emu ? emu.credits : null,
  };
}

export function summaryLines(s: ReturnType<typeof runSummary>): string[] {
  const failed = Object.entries(s.failedByReason ?? {})
    .map(([reason, n]) => `${n} ${reason.replace(/_/g, ' ')}`)
    .join(', ');
  return [
    `rows: ${s.rows}; accepted ${s.accepted}, rejected ${s.rejected}, suppressed (do-not-call list) ${s.suppressed}`,
    ...(s.called === null
      ? []
      : [
          `calls: ${s.attempted} attempted, ${s.called} dialled, ${s.answered} answered${failed ? `, not answered or failed: ${failed}` : ''}; credits left ${s.creditsLeft} INR${(s.creditsLeft ?? 0) < 0 ? ' (overdrawn: calls under way when the credits ran out are charged when they end)' : ''}`,
        ]),
  ];
}

/**
 * What a fault plan did, from the emulator's log of the requests its faults hit: how each was answered, or that none
 * was hit at all, in which case the rehearsal proved nothing about the plan (its paths or times never came up).
 */
export function faultedLines(
  hits: readonly { status: number; dropped?: boolean; cut?: boolean; replaced?: boolean }[],
): string[] {
  if (hits.length === 0)
    return [
      'faulted requests: 0: no request matched the fault plan (its methods, paths or times never came up in this run), so this rehearsal tested nothing of it',
    ];
  const kinds = new Map<string, number>();
  for (const h of hits) {
    const kind = h.dropped
      ? 'answer dropped'
      : h.cut
        ? 'answer cut short'
        : h.replaced
          ? `body replaced (${h.status})`
          : `answered ${h.status}`;
    kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
  }
  return [`faulted requests: ${hits.length} (${[...kinds].map(([k, n]) => `${k}: ${n}`).join(', ')})`];
}

/**
 * Call events the outcomes processor failed on every delivery (in AWS: the outcomes dead-letter queue and its
 * alarm). Nothing is lost from the reports: each part's report reads its calls from the calls list at its end.
 */
export function deadEventsLine(n: number, deliveries: number): string {
  return `call events: ${n} not recorded after ${deliveries} deliveries (dead-lettered); the part reports take those calls from the calls list`;
}

/**
 * How a run ends: 0 only when every part completed and no call failed for want of credits (a campaign ends
 * `completed` when the account runs dry, its contacts uncalled); the line saying so, with where to top up.
 */
export function runOutcome(
  parts: readonly { status: string }[],
  summary: ReturnType<typeof runSummary>,
  topUp: string,
): { code: 0 | 1; lines: string[] } {
  const unpaid = summary.failedByReason?.insufficient_credits ?? 0;
  const completed = parts.length > 0 && parts.every((p) => p.status === 'completed');
  return {
    code: unpaid === 0 && completed ? 0 : 1,
    lines:
      unpaid > 0
        ? [
            `${counted(unpaid, 'call')} failed for want of credits: top up the account (${topUp}); the part reports show whose calls they were.`,
          ]
        : [],
  };
}

/** PT2H3M → 2 h 3 min (the JSON keeps ISO 8601). */
export const readableDuration = (iso: string) =>
  iso
    .replace(/^P/, '')
    .replace('T', ' ')
    .replace(/(\d+)D/, '$1 d ')
    .replace(/(\d+)H/, '$1 h ')
    .replace(/(\d+)M/, '$1 min ')
    .replace(/(\d+)S/, '$1 s')
    .replace(/\s+/g, ' ')
    .trim();
