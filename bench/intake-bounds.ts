import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import { dataFilesIn, esbuildOptions } from '#infra/bundling.ts';
import { inlineRow, workbookParts } from '#test/helpers/ooxml.ts';
import { zip } from '#test/helpers/zip.ts';
import { atMost, type BenchResult, median } from './client-overhead.ts';

const run = promisify(execFile);
const ROOT = new URL('..', import.meta.url).pathname;
const WORKER = new URL('./intake-bounds-worker.ts', import.meta.url).pathname;
/**
 * What a refused hostile upload may cost (issue 25). A CSV is refused where its cell passes the limit, whatever the
 * size of the file. An .xlsx is inflated and checked entry by entry before any parsing (the zip guards), and its
 * shared strings read before the cell that uses one, so its time grows with what it inflates to: about 0.8 s for
 * these 40 million characters on a quiet machine, with 2 s as its bound.
 */
const LIMIT_MS = { csv: 1000, xlsx: 2000 };
const LIMIT_RSS_MB = 256;
const ROUNDS = 3;

interface Measure {
  outcome: string;
  ms: number;
  /** CPU time of every thread (zlib inflates in its pool): steadier than wall time on a busy machine. */
  cpuMs: number;
  maxRssMB: number;
}

/** A 49 MB CSV, just under the 50 MB limit, whose second row's one cell is all the rest. */
async function hugeCellCsv(path: string): Promise<void> {
  const out = createWriteStream(path);
  out.write('Phone Number,Name\n+14155550101,');
  const block = 'x'.repeat(1 << 20);
  for (let i = 0; i < 49; i++) if (!out.write(block)) await once(out, 'drain');
  out.end('\n');
  await once(out, 'finish');
}

/**
 * An .xlsx whose one shared string is 40 million random letters: little as they compress (about 24 MB), every zip
 * guard passes it, so only the cell limit stands between it and the reader's memory.
 */
async function hugeCellXlsx(path: string): Promise<number> {
  const letters = randomBytes(40_000_000);
  for (let i = 0; i < letters.length; i++) letters[i] = 97 + ((letters[i] as number) % 26);
  const sheet = `${inlineRow(1, ['Phone Number', 'Name'])}<row r="2"><c r="A2" t="s"><v>0</v></c><c r="B2" t="s"><v>1</v></c></row>`;
  const bytes = zip(
    workbookParts({ sheets: [{ name: 'Contacts', data: sheet }], sst: ['<t>+14155550101</t>', `<t>${letters}</t>`] }),
  );
  await writeFile(path, bytes);
  return bytes.length;
}

/** As the stack bundles a function (infra/bundling.ts), so the loader of `tsx` is not measured with it. */
async function buildWorker(): Promise<string> {
  const outfile = join(ROOT, '.build', 'bench', 'intake-bounds-worker.mjs');
  await build(esbuildOptions(WORKER, outfile, false));
  return outfile;
}

async function measure(worker: string, mode: 'baseline' | 'intake', file: string): Promise<Measure> {
  const env = { ...process.env, ...dataFilesIn(ROOT) };
  const { stdout } = await run(process.execPath, [worker, mode, file], { env, maxBuffer: 1 << 20 });
  return JSON.parse(stdout.trim().split('\n').at(-1) as string) as Measure;
}

async function refused(worker: string, label: string, file: string, limitMs: number): Promise<BenchResult[]> {
  const base: Measure[] = [];
  const intake: Measure[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    base.push(await measure(worker, 'baseline', file));
    intake.push(await measure(worker, 'intake', file));
  }
  const codes = [...new Set(intake.map((m) => m.outcome))].join(', ');
  const ms = median(intake.map((m) => m.ms));
  const baseMs = median(base.map((m) => m.ms));
  const rss = median(intake.map((m) => m.maxRssMB));
  const baseRss = median(base.map((m) => m.maxRssMB));
  const worst = Math.max(...intake.map((m) => m.maxRssMB));
  // A file that was read, or refused for another reason, is not the bound being measured: shown as a miss.
  const right = codes === 'cell_too_long';
  return [
    {
      name: `${label}: refused (${codes})`,
      ratio: ms / baseMs,
      baseline: 'reading the same file once from disk',
      detail: `${ms.toFixed(0)} ms vs ${baseMs.toFixed(0)} ms, median of ${ROUNDS}; CPU time ${median(intake.map((m) => m.cpuMs)).toFixed(0)} ms`,
      target: `≤ ${limitMs / 1000} s absolute, refused as cell_too_long`,
      met: right && atMost(ms, limitMs).met,
    },
    {
      name: `${label}: peak RSS`,
      ratio: rss / baseRss,
      baseline: 'the same read’s peak RSS',
      detail: `${rss.toFixed(0)} MB vs ${baseRss.toFixed(0)} MB, median of ${ROUNDS}; worst ${worst.toFixed(0)} MB`,
      ...atMost(rss, LIMIT_RSS_MB, `${LIMIT_RSS_MB} MB absolute`),
    },
  ];
}

/**
 * Hostile uploads that once cost gigabytes: each must be refused, in a fresh process as a cold Lambda meets it, within
 * its time bound and 256 MB. Time and memory are checked here, never in tests.
 */
export async function intakeBoundsBench(): Promise<BenchResult[]> {
  const dir = await mkdtemp(join(tmpdir(), 'callsheet-bench-bounds-'));
  try {
    const worker = await buildWorker();
    const csv = join(dir, 'huge-cell.csv');
    await hugeCellCsv(csv);
    const xlsx = join(dir, 'huge-cell.xlsx');
    const xlsxBytes = await hugeCellXlsx(xlsx);
    return [
      ...(await refused(worker, 'hostile CSV, 49 MB, one cell of 49 million characters', csv, LIMIT_MS.csv)),
      ...(await refused(
        worker,
        `hostile .xlsx, ${Math.round(xlsxBytes / 2 ** 20)} MB, one shared cell of 40 million characters`,
        xlsx,
        LIMIT_MS.xlsx,
      )),
    ];
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
