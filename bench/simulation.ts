import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseWindowRules, windowStateAt } from '#commons/calling-window.ts';
import { type AuditedCall, type AuditedSpan, wallTime } from '#test/helpers/call-audit.ts';
import { atLeast, atMost, type BenchResult } from './client-overhead.ts';
import { auditClose, budgetFigures, pausesBefore, RequestLog } from './close-records.ts';

const BIN = new URL('../bin/callsheet.mjs', import.meta.url).pathname;
const ZONE = 'America/New_York';
/** Two hours a weekday, as a user would give it; Monday 2026-12-07 starts the week. */
const WINDOW = 'Mon-Fri 10:00-12:00';
const WEEK_MS = 7 * 86_400_000;
/** How often the emulator's clock is read while a run goes on (the run's own stack.json names the emulator). */
const SAMPLE_MS = 250;
/**
 * A 100-part rehearsal that has not got 10 minutes past its first close by then is stopped and reported as missed (its
 * contact sync holds the simulated clock while it stores its events: a minute or more of real time).
 */
const REHEARSAL_LIMIT_MS = 30 * 60_000;

/**
 * Counts the DynamoDB requests the spawned `callsheet run` sends (by X-Amz-Target, from the HTTP client's diagnostics
 * channel, so nothing in the program measured changes; dynalite serves them on a thread of its own) and writes them
 * out at exit.
 */
const DYNAMO_HOOK = `data:text/javascript,${encodeURIComponent(
  "import dc from 'node:diagnostics_channel'; import { writeFileSync } from 'node:fs'; const n = {}; dc.subscribe('http.client.request.start', ({ request }) => { const t = request.getHeader('x-amz-target'); if (typeof t === 'string' && t.startsWith('DynamoDB_')) { const op = t.split('.')[1]; n[op] = (n[op] ?? 0) + 1; } }); process.on('exit', () => writeFileSync(process.env.BENCH_DYNAMO_FILE, JSON.stringify(n)));",
)}`;

/**
 * `rows` valid numbers in one zone (New York City's area codes, the `exchange` given), each distinct: a CSV the user
 * could have exported, generated here so the bench needs no fixture. Sheets with different exchanges share no number.
 */
export function nySheet(rows: number, exchange = '555'): string {
  const areas = ['212', '646', '917', '718', '347', '929', '332', '516', '631', '914'];
  const lines = ['Phone Number,Name'];
  for (let i = 0; i < rows; i++) {
    const area = areas[Math.floor(i / 10_000) % areas.length] as string;
    lines.push(`+1${area}${exchange}${String(i % 10_000).padStart(4, '0')},Contact ${i + 1}`);
  }
  return `${lines.join('\n')}\n`;
}

interface Sample {
  real: number;
  sim: number;
}

interface RunMeasure {
  realMs: number;
  samples: Sample[];
  dynamo: Record<string, number>;
  stdout: string;
  code: number | null;
  /** Real ms from the start until `reached` (or else `until`) first held on the simulated time, when it did. */
  reachedMs: number | null;
  /** Whether `until` stopped the run (not the limit, not its own end). */
  stopped: boolean;
}

interface RunOptions {
  /** The instant to time the run to (the first close); `until` when absent. */
  reached?: (sim: number) => boolean;
  /** Stops the run with SIGINT, as Ctrl-C would. */
  until?: (sim: number) => boolean;
  limitMs?: number;
  /** The emulator's request log, read as the run goes on and once more just before `until` stops it. */
  log?: RequestLog;
}

/** Real time a run stopped with SIGINT has to print its result and exit before it is killed. */
const STOP_GRACE_MS = 3 * 60_000;

/** How often the request log is read while a run goes on: often enough that the emulator's 20,000 are never passed. */
const LOG_EVERY = 8;

/**
 * `callsheet run` as a user runs it, spawned in its own data directory, with the emulator's clock read from beside
 * it; `until` (on the simulated time) stops it with SIGINT, as Ctrl-C would.
 */
async function measureRun(dir: string, args: string[], options: RunOptions = {}): Promise<RunMeasure> {
  const dataDir = join(dir, 'data');
  const dynamoFile = join(dir, 'dynamo.json');
  const started = Date.now();
  const child = spawn(process.execPath, ['--import', DYNAMO_HOOK, BIN, 'run', ...args], {
    env: {
      ...process.env,
      CALLSHEET_DATA_DIR: dataDir,
      BENCH_DYNAMO_FILE: dynamoFile,
      VOICE_API_URL: '',
      VOICE_API_KEY: '',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => {
    stdout += c.toString();
  });
  child.stderr.on('data', (c: Buffer) => {
    stderr += c.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const samples: Sample[] = [];
  const reached = options.reached ?? options.until;
  let reachedMs: number | null = null;
  let stopped = false;
  let limited = false;
  let interrupted: number | null = null;
  let done = false;
  void exited.then(() => {
    done = true;
  });
  let emulator: string | null = null;
  while (!done) {
    await new Promise((r) => setTimeout(r, SAMPLE_MS));
    try {
      emulator ??= (JSON.parse(await readFile(join(dataDir, 'stack.json'), 'utf8')) as { voiceApi: { url: string } })
        .voiceApi.url;
      const clock = (await (await fetch(`${emulator}/_emulator/clock`)).json()) as { now: string };
      const sample = { real: Date.now(), sim: Date.parse(clock.now) };
      samples.push(sample);
      if (reachedMs === null && reached?.(sample.sim)) reachedMs = sample.real - started;
      const stop = !stopped && options.until?.(sample.sim) === true;
      if (options.log && (stop || samples.length % LOG_EVERY === 0)) await options.log.pull(emulator);
      if (stop) {
        stopped = true;
        interrupted ??= Date.now();
        child.kill('SIGINT');
      }
    } catch {
      // Not up yet, or already closing.
    }
    if (!stopped && !limited && options.limitMs && Date.now() - started > options.limitMs) {
      limited = true;
      interrupted ??= Date.now();
      child.kill('SIGINT');
    }
    // Stopped in the middle of a contact sync, the run drains its queue before it exits: do not wait that out.
    if (interrupted !== null && Date.now() - interrupted > STOP_GRACE_MS) child.kill('SIGKILL');
  }
  const code = await exited;
  const realMs = Date.now() - started;
  if (code !== 0 && reachedMs === null && !(options.limitMs && realMs > options.limitMs))
    throw new Error(`callsheet run failed (${code}): ${stderr.slice(-2000)}`);
  const dynamo = JSON.parse(await readFile(dynamoFile, 'utf8').catch(() => '{}')) as Record<string, number>;
  return { realMs, samples, dynamo, stdout, code, reachedMs, stopped };
}

/** Simulated and real time spent with the clock inside an open window (each sample interval by where it starts). */
function openWindowSpeed(samples: Sample[]): { simMs: number; realMs: number } {
  const window = { rules: parseWindowRules(WINDOW), holidays: [] };
  let simMs = 0;
  let realMs = 0;
  for (let i = 1; i < samples.length; i++) {
    const a = samples[i - 1] as Sample;
    const b = samples[i] as Sample;
    const state = windowStateAt(window, ZONE, a.sim);
    if (!state.open) continue;
    realMs += b.real - a.real;
    simMs += Math.min(b.sim, state.changesAt ?? b.sim) - a.sim;
  }
  return { simMs, realMs };
}

const totalOf = (counts: Record<string, number>) => Object.values(counts).reduce((s, n) => s + n, 0);
const topOf = (counts: Record<string, number>) =>
  Object.entries(counts)
    .sort((a, b) => b[1] - a[1])
    .slice(0, 3)
    .map(([op, n]) => `${op} ${n}`)
    .join(', ');

/** (a) 5,000 rows to the end, two hours a weekday. */
async function weekRun(dir: string): Promise<BenchResult[]> {
  await mkdir(dir, { recursive: true });
  const sheet = join(dir, 'week-5000.csv');
  await writeFile(sheet, nySheet(5_000));
  const start = Date.parse('2026-12-07T08:00:00-05:00');
  const run = await measureRun(dir, [
    sheet,
    '--window',
    WINDOW,
    '--now',
    '2026-12-07T08:00:00-05:00',
    '--credits',
    '1000000',
    '--json',
  ]);
  const result = JSON.parse(run.stdout) as { calls: unknown[]; parts: { status: string }[] };
  const lastSim = run.samples.at(-1)?.sim ?? start;
  const weeks = (lastSim - start) / WEEK_MS;
  const open = openWindowSpeed(run.samples);
  const speed = open.simMs / Math.max(1, open.realMs);
  const perWeek = run.realMs / 1000 / Math.max(weeks, 1 / 7);
  const calls = result.calls.length;
  const dynamo = totalOf(run.dynamo);
  const completed = result.parts.filter((p) => p.status === 'completed').length;
  return [
    {
      name: `simulation: callsheet run, 5,000 rows (5 parts), ${WINDOW} ${ZONE}, to the end`,
      ratio: speed,
      baseline: 'real time, in open windows',
      detail: `${(run.realMs / 1000).toFixed(0)} s real for ${(weeks * 7).toFixed(1)} simulated days (${perWeek.toFixed(0)} s a simulated week), ${(open.simMs / 3_600_000).toFixed(1)} open hours in ${(open.realMs / 1000).toFixed(0)} s; ${completed}/${result.parts.length} parts completed`,
      ...atLeast(speed, 600),
    },
    {
      name: 'simulation: real seconds per simulated week of the 5,000-row run',
      ratio: perWeek / 60,
      baseline: '60 s',
      detail: `${perWeek.toFixed(0)} s a week; ${calls} calls placed, ${dynamo} DynamoDB requests (${(dynamo / Math.max(1, calls)).toFixed(1)} a call placed: ${topOf(run.dynamo)})`,
      ...atMost(perWeek, 60, '60 s a simulated week'),
    },
  ];
}

/** The contact sync that runs beside the rehearsal: distinct numbers none of the campaign's sheet has. */
const SYNC_ROWS = 20_000;
/** Dropped ten minutes before the close, so its pushes meet the parts' pauses. */
const SYNC_AT = '2026-12-07T11:50:00-05:00';
/** The lifecycle's closing margin as deployed (CLOSING_MARGIN_MINUTES): no call may start that close to a close. */
const MARGIN_MINUTES = 5;
/** The plan the emulator keeps to in `callsheet run` (the contract's first tier). */
const PLAN = { perMinute: 100, perHour: 1_000 };
/** How long the rehearsal goes on past the close before Ctrl-C, so a call after the close would be in the records. */
const PAST_CLOSE_MS = 10 * 60_000;

/** An instant as New York's wall time, as the auditor reads it (the same Intl reading the calls are checked on). */
const nyClock = (t: number) => wallTime(t, ZONE).text;

interface RehearsalOutput {
  parts: { campaignId: string | null; status: string }[];
  calls: AuditedCall[];
  dialable: AuditedSpan[];
  contacts?: { applied: Record<string, number>; rows: { total: number } | null };
}

/**
 * (b) 100,000 rows (100 parts, one zone) whose windows all close in the same minute, with a 20,000-row contact sync
 * dropped at SYNC_AT and drawing on the same API budget; the clock runs 10 minutes past the close, then
 * Ctrl-C stops the run. Timed to the close; the emulator's raw records then say whether any call started in the
 * closing margin or after the close, when each part's pause was carried out, and what the plan saw.
 */
async function rehearsal(dir: string): Promise<BenchResult[]> {
  await mkdir(dir, { recursive: true });
  const sheet = join(dir, 'parts-100000.csv');
  await writeFile(sheet, nySheet(100_000));
  const contacts = join(dir, 'contacts-20000.csv');
  await writeFile(contacts, nySheet(SYNC_ROWS, '556'));
  const firstClose = Date.parse('2026-12-07T12:00:00-05:00');
  const log = new RequestLog();
  const run = await measureRun(
    dir,
    [
      sheet,
      '--window',
      WINDOW,
      '--now',
      '2026-12-07T09:50:00-05:00',
      '--credits',
      '10000000',
      '--contacts',
      contacts,
      '--contacts-at',
      SYNC_AT,
      '--json',
    ],
    {
      reached: (sim) => sim >= firstClose,
      until: (sim) => sim >= firstClose + PAST_CLOSE_MS,
      limitMs: REHEARSAL_LIMIT_MS,
      log,
    },
  );
  const moved = run.samples.find((s) => s.sim > Date.parse('2026-12-07T09:50:00-05:00'));
  const setupMs = moved ? moved.real - (run.samples[0]?.real ?? moved.real) : run.realMs;
  const reached = run.reachedMs ?? run.realMs;
  const open = openWindowSpeed(run.samples.filter((s) => s.sim <= firstClose));
  const timing: BenchResult = {
    name: 'simulation: callsheet run, 100,000 rows (100 parts), through the first close',
    ratio: reached / 120_000,
    baseline: '120 s',
    detail: run.reachedMs
      ? `${(reached / 1000).toFixed(0)} s real to the close (about ${(setupMs / 1000).toFixed(0)} s before the clock first moved: intake and launches; the sync, dropped at ${nyClock(Date.parse(SYNC_AT))}, holds it again while it stores its events), open window at ${(open.simMs / Math.max(1, open.realMs)).toFixed(0)}× real time, with the ${SYNC_ROWS.toLocaleString('en')}-row contact sync; ${totalOf(run.dynamo)} DynamoDB requests to ${(PAST_CLOSE_MS / 60_000).toFixed(0)} min past the close (${topOf(run.dynamo)})`
      : `stopped after ${(run.realMs / 1000).toFixed(0)} s real before reaching the close (simulated ${new Date(run.samples.at(-1)?.sim ?? 0).toISOString()})`,
    ...atMost(run.reachedMs ? reached / 1000 : Number.POSITIVE_INFINITY, 120, '120 s'),
  };
  return [timing, ...(await closeChecks(run, log, firstClose))];
}

/** The three lines the emulator's records give about the close (issue 22): calls, pauses, the plan and the sync. */
async function closeChecks(run: RunMeasure, log: RequestLog, close: number): Promise<BenchResult[]> {
  const name = `simulation: 100 parts closing in one minute, ${SYNC_ROWS.toLocaleString('en')}-event contact sync running`;
  const stoppedAt = run.samples.at(-1)?.sim ?? 0;
  let out: RehearsalOutput | null = null;
  try {
    out = JSON.parse(run.stdout) as RehearsalOutput;
  } catch {
    // Reported below: without the run's result there is nothing to judge.
  }
  if (!run.stopped || !out) {
    const why = `the run did not get ${(PAST_CLOSE_MS / 60_000).toFixed(0)} min past the close (simulated ${new Date(stoppedAt).toISOString()}, exit ${run.code}${out ? '' : ', no result printed'})`;
    return ['calls in the closing margin or after the close', 'latest pause before the close', 'API plan'].map(
      (what) => ({
        name: `${name}: ${what}`,
        ratio: Number.NaN,
        baseline: '-',
        detail: why,
        target: 'a run past the close',
        met: false,
      }),
    );
  }
  const calls = await auditClose(
    out.calls,
    { hours: WINDOW, closingMarginMinutes: MARGIN_MINUTES },
    close,
    out.dialable,
  );
  const ids = out.parts.flatMap((p) => (p.campaignId ? [p.campaignId] : []));
  const pauses = pausesBefore(log, ids, close);
  const plan = budgetFigures(log, close);
  const incomplete = log.lost > 0 ? `; ${log.lost} requests lost from the emulator's log before they were read` : '';
  const applied = Object.values(out.contacts?.applied ?? {}).reduce((s, n) => s + n, 0);
  const lead = pauses.latestLeadMs;
  return [
    {
      name: `${name}: calls in the closing margin or after the close`,
      ratio: calls.unlawful,
      baseline: '0 calls',
      detail: `${calls.placed} calls placed by ${nyClock(stoppedAt)} New York (the emulator's call records, audited against ${WINDOW} with a ${MARGIN_MINUTES}-minute margin); ${calls.inMargin} in the margin, ${calls.afterClose} after the close; ${calls.couldDial} of ${out.dialable.length} stretches in which a campaign could dial reach into the margin or past the close${calls.examples.length > 0 ? `: ${calls.examples.join('; ')}` : ''}`,
      ...atMost(calls.unlawful + calls.couldDial, 0, '0 calls'),
    },
    {
      name: `${name}: latest pause before the close`,
      ratio: lead === null ? 0 : lead / 60_000,
      baseline: '60 s before it',
      detail: `${pauses.paused}/${pauses.campaigns} parts' campaigns paused (PATCH …/pause answered 200 in the emulator's log) by the close${lead === null ? '' : `, from ${((pauses.earliestLeadMs ?? 0) / 1000).toFixed(0)} s to ${(lead / 1000).toFixed(0)} s before it (latest at ${nyClock(close - lead)} New York)`}${incomplete}`,
      target: '≥ 60 s before the close, every part paused',
      met: pauses.campaigns === 100 && pauses.paused === pauses.campaigns && lead !== null && lead >= 60_000,
    },
    {
      name: `${name}: API plan`,
      ratio: Math.max(plan.peakMinute / PLAN.perMinute, plan.peakHour / PLAN.perHour),
      baseline: 'the plan',
      detail: `peak ${plan.peakMinute} requests in a minute (plan ${PLAN.perMinute}), ${plan.peakHour} in an hour (plan ${PLAN.perHour.toLocaleString('en')}), ${plan.refused} refused with 429${plan.refusedExamples.map((r) => ` (${r.method} ${r.path.replace(/\/(cmp|call|agent)_[0-9a-f]+/g, '/…')} at ${nyClock(r.t)})`).join('')}; the sync: ${plan.syncRequests} POST /contacts/bulk served, ${plan.syncLastHour} of them in the hour before the close${plan.lastSync === null ? '' : `, the last at ${nyClock(plan.lastSync)}`}; ${applied} of ${out.contacts?.rows?.total ?? 0} events applied${incomplete}`,
      // The emulator lets no more through than the plan, so the peaks alone cannot miss: a 429 is the budget's miss.
      target: '≤ the plan, no request refused',
      met: plan.peakMinute <= PLAN.perMinute && plan.peakHour <= PLAN.perHour && plan.refused === 0,
    },
  ];
}

/**
 * The embedded simulation at the sizes users run: `callsheet run` spawned as typed, timed from start to exit, with
 * simulated time read from the emulator while it runs.
 */
export async function simulationBench(): Promise<BenchResult[]> {
  const dir = await mkdtemp(join(tmpdir(), 'callsheet-bench-sim-'));
  try {
    const week = await weekRun(join(dir, 'week'));
    const close = await rehearsal(join(dir, 'close'));
    return [...week, ...close];
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
