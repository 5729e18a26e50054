import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import ExcelJS from 'exceljs';
import { dataFilesIn, esbuildOptions } from '#infra/bundling.ts';
import { buildCli } from '#scripts/build-cli.mjs';
import { atMost, type BenchResult, median } from './client-overhead.ts';

const run = promisify(execFile);
const ROOT = new URL('..', import.meta.url).pathname;
const WORKER = new URL('./intake-worker.ts', import.meta.url).pathname;
const BIN = new URL('../bin/callsheet.mjs', import.meta.url).pathname;
const RSS_LIMIT_MB = 256;

/**
 * Row `i`'s number in a sheet of `rows`, as E.164: about 2 % are repeats, one in seven an Alaska number, whose range
 * spans two clocks (Anchorage, Adak), so the slow path of zone choice shows. (A UK 7911 mobile no longer serves: the
 * data places it in Guernsey, which has no legal-hours entry, so it would be refused before any zone work.)
 */
export function sheetNumber(i: number, rows: number): { area: string; local: string; e164: string } {
  const n = 2_000_000 + (i % Math.floor(rows * 0.98));
  const area = i % 7 === 0 ? '907' : (['415', '212', '312', '617'][i % 4] as string);
  const local = String(n).slice(-7);
  return { area, local, e164: `+1${area}${local}` };
}

/** A realistic export: title row, header, mixed number formats and countries, names, instructions, some duplicates. */
export async function makeSheet(path: string, rows: number): Promise<void> {
  const wb = new ExcelJS.stream.xlsx.WorkbookWriter({ filename: path, useSharedStrings: true });
  const ws = wb.addWorksheet('Contacts');
  ws.addRow(['CRM export']).commit();
  ws.addRow(['Phone Number', 'Name', 'Custom Instruction', 'Owner']).commit();
  for (let i = 0; i < rows; i++) {
    const { area, local } = sheetNumber(i, rows);
    const phone =
      i % 7 === 0
        ? `+1 907 ${local}`
        : i % 3 === 0
          ? Number(`1${area}${local}`)
          : i % 3 === 1
            ? `(${area}) ${local.slice(0, 3)}-${local.slice(3)}`
            : `+1 ${area} ${local}`;
    ws.addRow([phone, `Contact ${i}`, i % 10 === 0 ? 'Mention the renewal offer' : null, `owner${i % 50}`]).commit();
  }
  ws.commit();
  await wb.commit();
}

interface Measure {
  ms: number;
  /** CPU time of every thread (GC, zlib's pool): steadier than wall time on a busy machine, so shown beside it. */
  cpuMs: number;
  maxRssMB: number;
}

type Mode = 'baseline' | 'intake' | 'full';

/**
 * The worker as a function's code runs in Lambda: one bundle built as the stack builds it (infra/bundling.ts), on
 * plain node. Run through tsx instead, its loader added 30 to 110 MB to the peak RSS of either side and slowed the
 * exceljs read by 10 to 30 %, which flattered every ratio.
 */
export async function buildWorker(entry = WORKER): Promise<string> {
  // Inside the project, where the installed exceljs resolves.
  const outfile = join(ROOT, '.build', 'bench', `${basename(entry, '.ts')}.mjs`);
  const options = esbuildOptions(entry, outfile, false);
  // The baseline's exceljs stays the package as installed: a plain read, as anyone would run it.
  await build({ ...options, external: [...(options.external ?? []), 'exceljs'] });
  return outfile;
}

async function measure(worker: string, mode: Mode, file: string, warm: boolean): Promise<Measure> {
  const args = [worker, mode, file, ...(warm ? ['warm'] : [])];
  // As the stack deploys it: the bundle has no package to find its data files in, so they are named (dataFilesIn).
  const env = { ...process.env, ...dataFilesIn(ROOT) };
  const { stdout } = await run(process.execPath, args, { maxBuffer: 1 << 20, env });
  return JSON.parse(stdout.trim().split('\n').at(-1) as string) as Measure;
}

/** Records the process's peak RSS when it exits, without touching the program measured. */
const RSS_HOOK = `data:text/javascript,${encodeURIComponent(
  "import { writeFileSync } from 'node:fs'; process.on('exit', () => { const u = process.resourceUsage(); writeFileSync(process.env.BENCH_RSS_FILE, JSON.stringify({ maxRssMB: u.maxRSS / 1024, cpuMs: (u.userCPUTime + u.systemCPUTime) / 1000 })); });",
)}`;

/** What a user waits for: a fresh `node` process from start to exit, output discarded. */
async function spawned(args: string[], dir: string, dataDir = join(dir, 'no-data-dir')): Promise<Measure> {
  const rssFile = join(dir, `rss-${process.hrtime.bigint()}`);
  const start = performance.now();
  const child = spawn(process.execPath, ['--import', RSS_HOOK, ...args], {
    cwd: ROOT,
    stdio: ['ignore', 'ignore', 'pipe'],
    // The data directory is the bench's, never the checkout's `.callsheet/`, whose state would change the figure.
    env: { ...process.env, BENCH_RSS_FILE: rssFile, CALLSHEET_DATA_DIR: dataDir },
  });
  let stderr = '';
  child.stderr.on('data', (d) => {
    stderr += d;
  });
  const [code] = await once(child, 'close');
  const ms = performance.now() - start;
  // Every program measured succeeds on these files: a failure is never timed as if it were the work.
  if (code !== 0) throw new Error(`node ${args.join(' ')} exited ${code}: ${stderr}`);
  return { ms, ...(JSON.parse(await readFile(rssFile, 'utf8')) as Omit<Measure, 'ms'>) };
}

/** The plain read as a program of its own, for comparing with whole CLI runs (startup and loading included). */
const plainReadProgram = (file: string) => [
  '--input-type=module',
  '-e',
  `import ExcelJS from 'exceljs';
const reader = new ExcelJS.stream.xlsx.WorkbookReader(${JSON.stringify(file)}, { sharedStrings: 'cache', hyperlinks: 'ignore', styles: 'ignore', worksheets: 'emit', entries: 'emit' });
for await (const sheet of reader) for await (const _row of sheet) {}`,
];

const worst = (ms: Measure[]) => Math.max(...ms.map((m) => m.maxRssMB)).toFixed(0);

function timeResult(name: string, base: Measure[], subject: Measure[], baseline: string, limit = 1.5): BenchResult {
  const b = median(base.map((m) => m.ms));
  const t = median(subject.map((m) => m.ms));
  const cpu = median(subject.map((m) => m.cpuMs)) / median(base.map((m) => m.cpuMs));
  return {
    name,
    ratio: t / b,
    baseline,
    detail: `${t.toFixed(0)} ms vs ${b.toFixed(0)} ms, median of ${subject.length}; CPU time ${cpu.toFixed(2)}×`,
    ...atMost(t / b, limit),
  };
}

/**
 * Peak RSS swings by about 70 MB between identical runs of either side (V8 sometimes postpones a major GC to the end
 * of the read), so the median run is compared, and the worst of each side is shown beside it.
 */
function rssResult(name: string, base: Measure[], subject: Measure[]): BenchResult {
  const rss = median(subject.map((m) => m.maxRssMB));
  const baseRss = median(base.map((m) => m.maxRssMB));
  return {
    name,
    ratio: rss / baseRss,
    baseline: 'the plain read’s peak RSS',
    detail: `${rss.toFixed(0)} MB vs ${baseRss.toFixed(0)} MB, median of ${subject.length}; worst ${worst(subject)} MB vs ${worst(base)} MB`,
    ...atMost(rss, RSS_LIMIT_MB, `${RSS_LIMIT_MB} MB absolute`),
  };
}

async function compare(
  worker: string,
  file: string,
  rows: number,
  rounds: number,
  warm = false,
): Promise<BenchResult[]> {
  const base: Measure[] = [];
  const intake: Measure[] = [];
  for (let i = 0; i < rounds; i++) {
    base.push(await measure(worker, 'baseline', file, warm));
    intake.push(await measure(worker, 'intake', file, warm));
  }
  const label = `intake ${rows.toLocaleString('en')} rows${warm ? ', warm process' : ''}`;
  return [
    timeResult(`${label}: validate + split`, base, intake, 'plain exceljs streaming read of the same file'),
    rssResult(`${label}: peak RSS`, base, intake),
  ];
}

/**
 * What the user waits for at 100,000 rows, against the plain read in the same run: the whole path in-process as the
 * Lambda takes it, and `callsheet validate --json --out DIR` as a spawned program against the plain read as one.
 */
async function userPaths(worker: string, dir: string, file: string, rounds: number): Promise<BenchResult[]> {
  const base: Measure[] = [];
  const full: Measure[] = [];
  const baseProcess: Measure[] = [];
  const cli: Measure[] = [];
  const out = join(dir, 'out');
  for (let i = 0; i < rounds; i++) {
    base.push(await measure(worker, 'baseline', file, false));
    full.push(await measure(worker, 'full', file, false));
    baseProcess.push(await spawned(plainReadProgram(file), dir));
    cli.push(await spawned([BIN, 'validate', file, '--country', 'US', '--json', '--out', out], dir, listed(dir)));
  }
  return [
    timeResult(
      'intake 100,000 rows, whole path as the Lambda takes it (read, validate, report, 100 parts, annotated.xlsx)',
      base,
      full,
      'plain exceljs streaming read of the same file',
    ),
    rssResult('intake 100,000 rows, whole path: peak RSS', base, full),
    timeResult(
      'callsheet validate --json --out DIR, 100,000 rows (spawned, start to exit)',
      baseProcess,
      cli,
      'a node process doing the plain exceljs read, start to exit',
    ),
    rssResult('callsheet validate --json --out DIR, 100,000 rows: peak RSS', baseProcess, cli),
  ];
}

/** A data directory whose do-not-call list holds a number, as a user's is once they have suppressed one. */
function listed(dir: string): string {
  return join(dir, 'data-dir-with-list');
}

/** Fills `listed(dir)` once: `callsheet suppress add` as a user would. */
async function fillListed(dir: string): Promise<void> {
  await run(process.execPath, [BIN, 'suppress', 'add', '+14155550100'], {
    cwd: ROOT,
    env: { ...process.env, CALLSHEET_DATA_DIR: listed(dir) },
  });
}

/** Short CLI runs against a bare `node -e 0`, each with an absolute target in seconds. */
async function cliStartup(dir: string, rounds: number): Promise<BenchResult[]> {
  const ten = join(dir, 'contacts-10.xlsx');
  await makeSheet(ten, 10);
  const validate = [BIN, 'validate', ten, '--country', 'US', '--json'];
  const cases: [name: string, args: string[], limitMs: number, dataDir?: string][] = [
    ['callsheet --help', [BIN, '--help'], 250],
    ['callsheet validate, 10 rows (--json), no data directory', validate, 500],
    [
      'callsheet validate, 10 rows (--json), a data directory with a do-not-call list (as after npm start)',
      validate,
      500,
      listed(dir),
    ],
  ];
  const bare: Measure[] = [];
  const runs = cases.map(() => [] as Measure[]);
  for (let i = 0; i < rounds; i++) {
    bare.push(await spawned(['-e', '0'], dir));
    for (const [k, [, args, , dataDir]] of cases.entries()) runs[k]?.push(await spawned(args, dir, dataDir));
  }
  const b = median(bare.map((m) => m.ms));
  return cases.map(([name, , limitMs], k) => {
    const t = median((runs[k] ?? []).map((m) => m.ms));
    return {
      name,
      ratio: t / b,
      baseline: 'a bare `node -e 0`',
      detail: `${t.toFixed(0)} ms vs ${b.toFixed(0)} ms, median of ${rounds}`,
      ...atMost(t, limitMs, `${limitMs / 1000} s absolute`),
    };
  });
}

export async function intakeBench(): Promise<BenchResult[]> {
  const dir = await mkdtemp(join(tmpdir(), 'callsheet-bench-'));
  try {
    // The CLI is measured as installed and the worker as deployed: each compiled once, before any timing.
    await buildCli({ quiet: true });
    const worker = await buildWorker();
    const big = join(dir, 'contacts-100000.xlsx');
    await makeSheet(big, 100_000);
    const small = join(dir, 'contacts-1000.xlsx');
    await makeSheet(small, 1000);
    await fillListed(dir);
    return [
      ...(await compare(worker, big, 100_000, 5)),
      ...(await userPaths(worker, dir, big, 5)),
      ...(await cliStartup(dir, 7)),
      // The 1000-row case twice: in a fresh process (a cold Lambda, one-time loading included) and in a warm one.
      ...(await compare(worker, small, 1000, 5)),
      ...(await compare(worker, small, 1000, 5, true)),
    ];
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
