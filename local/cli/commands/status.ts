import { quietFrom, readPauseTimings } from '#commons/plan-load.ts';
import { windowStateAt } from '#commons/window-plan.ts';
import type { SecureOutcome } from '#lifecycle/campaign-safety.ts';
import { type CampaignRecord, CampaignStore, progressOf } from '#lifecycle/campaign-store.ts';
import { leftAs } from '#lifecycle/safety-net/campaign-guard.ts';
import { type Command, numberOption, readShellSettings, UsageError } from '../command.ts';
import {
  bar,
  OPERATOR_API_WAIT,
  openApi,
  partRecords,
  statusWords,
  type UnlaunchedUpload,
  unlaunchedUploads,
} from '../operator.ts';
import { openTable } from '../table-access.ts';

interface PartStatus {
  uploadId: string;
  part: number;
  partKey: string;
  campaignId: string | null;
  status: string;
  /** As the workflow saw it at its last look (`at`), not asked of the API now. */
  progress: { done: number; total: number; at: string | null } | null;
  live: boolean;
  /**
   * The window as the law and the upload give it (`open`, and when that changes), and whether it is in its last
   * minutes, in which no call starts (`closing`: the closing margin and the pause lead before `changesAt`).
   */
  window: { hours: string; open: boolean; closing?: boolean; changesAt: string | null } | null;
  lastEvent: string | null;
  /** The parts holding the brake on this part's agent, when any does: its campaign dials nobody meanwhile. */
  brakedBy?: string[];
  /** An ended part still holding its agent's brake: no campaign on that agent dials until it is let go. */
  holdsBrake?: boolean;
  /**
   * A running part the guard or the sweeper secured after its workflow's last look (a campaign resumed outside
   * callsheet, a look overdue), or an ended part it secured after its end (its campaign resumed in the vendor's
   * dashboard, a pause tried again): how it left the campaign, and why.
   */
  secured?: { by: string; at: string; left: string; reason: string };
  /** Why an ended part failed or was held (its workflow timed out, its window never opened…), when it says. */
  failure: string | null;
}

const iso = (ms: number) => `${new Date(ms).toISOString().slice(0, 16)}Z`;

async function snapshot(): Promise<{
  now: string;
  where: string;
  api: boolean;
  /** The API did not tell its time in time: windows are judged on this computer's clock. */
  apiSlow: boolean;
  parts: PartStatus[];
  /** Uploads without parts (refused, repeated, unfinished); null when the uploads table is not known here. */
  unlaunched: UnlaunchedUpload[] | null;
  /** Why the uploads table could not be read, when it could not. */
  unlaunchedNote?: string;
  /**
   * Read from a data directory no callsheet stack runs on: a part shown running is one whose stack stopped without
   * ending it (killed, or its terminal closed), watched by no workflow until a stack starts there again.
   */
  noStack?: boolean;
}> {
  const t = await openTable('campaigns');
  try {
    const records = await partRecords(t);
    const uploads = t.sibling('uploads');
    let unlaunched: UnlaunchedUpload[] | null = null;
    let unlaunchedNote: string | undefined;
    // An operator allowed to read the campaigns but not the uploads still sees the campaigns.
    if (uploads)
      unlaunched = await unlaunchedUploads(t.db, uploads).catch((err: Error) => {
        unlaunchedNote = `uploads that launched nothing: not read from ${uploads} (${err.name}: ${err.message})`;
        return null;
      });
    // Only the clock comes from the API (the emulator's may be simulated); progress is what each workflow saw at
    // its last look, so the screen answers at once however slow the API is, and spends none of the account's plan.
    const api = await openApi();
    const told = api ? await api.now() : null;
    const now = told ?? Date.now();
    const quiet = quietMs();
    const parts = records.map((r) => partStatus(r, now, quiet));
    // One brake stops every campaign on its agent: a running part of another shows it, or it would look healthy;
    // an ended part still holding one says so, as no workflow will let it go.
    const agents = records.flatMap((r) => (r.watch?.agentId ? [r.watch.agentId] : []));
    const holders = await new CampaignStore(t.db, t.table).holdersOfMany(agents);
    records.forEach((r, i) => {
      const by = r.watch?.agentId ? holders.get(r.watch.agentId) : undefined;
      const part = parts[i];
      if (part?.live && by && by.length > 0) part.brakedBy = by;
      if (part && !part.live && by?.includes(r.partKey)) part.holdsBrake = true;
    });
    return {
      now: new Date(now).toISOString(),
      where: t.where,
      api: api !== null,
      apiSlow: api !== null && told === null,
      parts,
      unlaunched,
      ...(unlaunchedNote ? { unlaunchedNote } : {}),
      ...(t.live ? {} : { noStack: true }),
    };
  } finally {
    await t.close();
  }
}

/** The minutes before a close in which no call starts (`quietFrom`), from this environment's pause settings. */
const quietMs = (): number => quietFrom(readShellSettings(readPauseTimings));

export function partStatus(r: CampaignRecord, now: number, quiet: number): PartStatus {
  const live = r.status === 'running' || r.status === 'creating';
  const w = live && r.watch ? windowStateAt(r.watch.window, now, 0) : null;
  const closing = w?.open === true && r.watch ? !windowStateAt(r.watch.window, now, quiet).open : false;
  const last = r.timeline?.at(-1);
  const progress = live ? progressOf(r.watch) : null;
  const securedAt = Date.parse(r.secured?.at ?? '');
  // An ended part: only the sweeper's securing after the end is news (a campaign resumed outside callsheet, a pause
  // tried again); the guard's as the workflow failed comes after its end too, and its failure already says it.
  const since = live ? r.watch?.observedAt : r.finishedAt;
  const securedLately = r.secured && (live || r.secured.by === 'sweeper') && securedAt > (Date.parse(since ?? '') || 0);
  return {
    uploadId: r.uploadId,
    part: r.part,
    partKey: r.partKey,
    campaignId: r.campaignId ?? null,
    status: statusWords(r),
    progress: progress ? { ...progress, at: r.watch?.observedAt ?? null } : null,
    live,
    window:
      w && r.watch
        ? {
            hours: r.watch.window.description,
            open: w.open,
            ...(closing ? { closing } : {}),
            changesAt: w.changesAt ? iso(w.changesAt) : null,
          }
        : null,
    lastEvent: last ? `${last.event} (${last.reason}) ${last.at}` : null,
    ...(securedLately && r.secured
      ? {
          secured: {
            by: r.secured.by,
            at: iso(securedAt),
            left: leftAs({ outcome: r.secured.outcome as SecureOutcome, pauseHeld: r.secured.pauseHeld ?? false }),
            reason: r.secured.reason,
          },
        }
      : {}),
    // A brake the failure speaks of that an operator let go of since (`campaign release`) is said with it.
    failure: r.failure
      ? `${r.failure.code}: ${r.failure.message}${last?.event === 'brake released' ? `; its brake was let go at ${last.at}` : ''}`
      : null,
  };
}

/** The newest uploads that launched nothing the screen shows; `--json` has them all. */
const SHOWN_UNLAUNCHED = 20;

const UNLAUNCHED: Record<UnlaunchedUpload['status'], string> = {
  rejected: 'rejected',
  repeated: 'not launched again',
  launched: 'launched',
  unfinished: 'not finished',
};

/** The status screen, from a snapshot (exported for its table test). */
export function render(s: Awaited<ReturnType<typeof snapshot>>): string {
  const unlaunched = s.unlaunched ?? [];
  const note = s.unlaunchedNote ? [`(${s.unlaunchedNote})`] : [];
  if (s.parts.length === 0 && unlaunched.length === 0)
    return [`No uploads ${s.unlaunched ? '' : 'with campaigns '}in ${s.where}.`, ...note].join('\n');
  const lines = [`${s.where}, at ${s.now}`, ...note];
  if (s.noStack && s.parts.some((p) => p.live))
    lines.push(
      "(no callsheet stack runs on this data directory: a part shown running lost its workflow when the stack that ran it stopped, and its window is judged on this computer's clock; `callsheet local` or `callsheet run` here starts the sweeper, which ends such a part and secures its campaign)",
    );
  if (s.apiSlow)
    lines.push(
      `(the Voice API did not answer within ${OPERATOR_API_WAIT}: it is slow or down; times are this computer's clock, progress is each workflow's last look)`,
    );
  let upload = '';
  for (const p of s.parts) {
    if (p.uploadId !== upload) {
      upload = p.uploadId;
      lines.push(`upload ${upload}`);
    }
    const window = !p.window
      ? ''
      : p.window.closing
        ? `window closing${p.window.changesAt ? ` at ${p.window.changesAt}` : ''}: no call starts in its last minutes`
        : `window ${p.window.open ? 'open' : 'closed'}${p.window.changesAt ? `, ${p.window.open ? 'closes' : 'opens'} ${p.window.changesAt}` : ''}`;
    lines.push(
      `  part ${p.part} ${(p.campaignId ?? '-').padEnd(22)} ${p.status.padEnd(10)} ${p.progress ? `${bar(p.progress.done, p.progress.total)}${p.progress.at ? ` at ${p.progress.at.slice(11, 16)}Z` : ''}` : p.live ? '(no progress yet: its workflow has not looked at the campaign)' : p.failure ? `(${p.failure})` : '(ended; see callsheet report)'}  ${window}`,
    );
    if (p.brakedBy)
      lines.push(
        `    its agent is braked, so it dials nobody: the brake is held by ${p.brakedBy.join(', ')} (\`callsheet campaign show <part key>\` says why)`,
      );
    if (p.secured)
      lines.push(`    the ${p.secured.by} secured it at ${p.secured.at}, left ${p.secured.left}: ${p.secured.reason}`);
    if (p.holdsBrake)
      lines.push(
        `    it ended holding its agent's brake: no campaign on that agent dials until \`callsheet campaign release ${p.campaignId ?? p.partKey}\` lets go`,
      );
  }
  if (unlaunched.length > 0) lines.push('uploads that launched nothing:');
  for (const u of unlaunched.slice(0, SHOWN_UNLAUNCHED))
    lines.push(
      `  ${u.finishedAt ? `${iso(Date.parse(u.finishedAt))}  ` : ''}${u.key}: ${UNLAUNCHED[u.status]}${u.reason ? ` (${u.reason})` : ''}${u.reportKey ? `; report ${u.reportKey}` : ''}`,
    );
  if (unlaunched.length > SHOWN_UNLAUNCHED)
    lines.push(`  and ${unlaunched.length - SHOWN_UNLAUNCHED} earlier (status --json lists every one)`);
  return lines.join('\n');
}

export const statusCommand: Command = {
  name: 'status',
  summary: 'uploads and their campaigns: progress, calling window and when it next changes',
  usage: 'status [--watch] [--every SECONDS] [--json]',
  options: { watch: { type: 'boolean' }, every: { type: 'string' }, json: { type: 'boolean' } },
  help: [
    'options:',
    '  --watch          redraw until Ctrl-C',
    '  --every SECONDS  how often --watch redraws (default 2)',
    '  --json           one JSON object: now, where, api (a Voice API to ask the time of), apiSlow (it did not',
    "                   answer in time: windows judged on this computer's clock), parts, unlaunched (uploads that",
    '                   launched nothing), noStack (a data directory no stack runs on: nothing watches its parts)',
    '',
    'Reads the campaigns table as `callsheet campaign` does (deployed with CAMPAIGNS_TABLE, else the running',
    "`callsheet local`/`run` of $CALLSHEET_DATA_DIR, else that directory). Progress is what each part's workflow",
    "saw at its last look (the time is shown), so status never spends the account's API plan. Uploads that",
    'launched nothing (refused, repeated, or not finished by intake) are listed from the uploads table beside it',
    '(deployed: set UPLOADS_TABLE too). A window shows as closing from CLOSING_MARGIN_MINUTES plus',
    'PAUSE_LEAD_SECONDS before its close, as this shell sets them (unset: 5 min and 120 s); for a deployed table,',
    'set them as the deployment does.',
  ],
  async run(values) {
    const every = numberOption(values.every, 'every', 2);
    if (!(every > 0)) throw new UsageError('--every must be more than 0');
    if (values.watch && values.json) throw new UsageError('choose --watch or --json, not both');
    if (!values.watch) {
      const s = await snapshot();
      console.log(values.json ? JSON.stringify(s, null, 2) : render(s));
      return 0;
    }
    let stop = false;
    const onSignal = () => {
      stop = true;
    };
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
    while (!stop) {
      const text = render(await snapshot());
      process.stdout.write(process.stdout.isTTY ? `\x1b[H\x1b[2J${text}\n` : `${text}\n\n`);
      await new Promise((resolve) => setTimeout(resolve, every * 1000));
    }
    return 0;
  },
};
