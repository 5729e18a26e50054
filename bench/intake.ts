import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import ExcelJS from 'exceljs';
import type { BenchResult } from './client-overhead.ts';

const run = promisify(execFile);
const WORKER = new URL('./intake-worker.ts', import.meta.url).pathname;
const TSX = new URL('../node_modules/tsx/dist/cli.mjs', import.meta.url).pathname;

/** A realistic export: title row, header, mixed number formats and countries, names, instructions, some duplicates. */
export async function makeSheet(path: string, rows: number): Promise<void> {
  const wb = new ExcelJS.stream.xlsx.WorkbookWriter({ filename: path, useSharedStrings: true });
  const ws = wb.addWorksheet('Contacts');
  ws.addRow(['CRM export']).commit();
  ws.addRow(['Phone Number', 'Name', 'Custom Instruction', 'Owner']).commit();
  for (let i = 0; i < rows; i++) {
    const n = 2_000_000 + (i % Math.floor(rows * 0.98)); // about 2 % duplicates
    const area = ['415', '212', '312', '617'][i % 4];
    const local = String(n).slice(-7);
    // One row in seven is a UK mobile, whose range spans three zones: the slow path of zone choice must show here.
    const phone =
      i % 7 === 0
        ? `+44 7911 ${local.slice(1)}`
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
  maxRssMB: number;
  rows: number;
}

async function measure(mode: 'baseline' | 'intake', file: string, warm: boolean): Promise<Measure> {
  const args = [TSX, WORKER, mode, file, ...(warm ? ['warm'] : [])];
  const { stdout } = await run(process.execPath, args, { maxBuffer: 1 << 20 });
  return JSON.parse(stdout.trim().split('\n').at(-1) as string) as Measure;
}

async function compare(rows: number, rounds: number, warm = false): Promise<BenchResult[]> {
  const dir = await mkdtemp(join(tmpdir(), 'callsheet-bench-'));
  try {
    const file = join(dir, `contacts-${rows}.xlsx`);
    await makeSheet(file, rows);
    const base: Measure[] = [];
    const intake: Measure[] = [];
    for (let i = 0; i < rounds; i++) {
      base.push(await measure('baseline', file, warm));
      intake.push(await measure('intake', file, warm));
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
    const b = median(base.map((m) => m.ms));
    const t = median(intake.map((m) => m.ms));
    // Peak RSS swings by about 70 MB between identical runs of either side (V8 sometimes postpones a major GC to
    // the end of the read), so the median run is compared, and the worst of each side is shown beside it.
    const rss = median(intake.map((m) => m.maxRssMB));
    const baseRss = median(base.map((m) => m.maxRssMB));
    const worst = (ms: Measure[]) => Math.max(...ms.map((m) => m.maxRssMB)).toFixed(0);
    return [
      {
        name: `intake ${rows.toLocaleString('en')} rows${warm ? ', warm process' : ''}: validate + split`,
        ratio: t / b,
        baseline: 'plain exceljs streaming read of the same file',
        detail: `${t.toFixed(0)} ms vs ${b.toFixed(0)} ms, median of ${rounds}`,
        target: '≤ 1.5×',
      },
      {
        name: `intake ${rows.toLocaleString('en')} rows${warm ? ', warm process' : ''}: peak RSS`,
        ratio: rss / baseRss,
        baseline: 'the plain read’s peak RSS',
        detail: `${rss.toFixed(0)} MB vs ${baseRss.toFixed(0)} MB, median of ${rounds}; worst ${worst(intake)} MB vs ${worst(base)} MB`,
        target: '≤ 256 MB absolute',
      },
    ];
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

export async function intakeBench(): Promise<BenchResult[]> {
  // The 1000-row case twice: in a fresh process (a cold Lambda, one-time loading included) and in a warm one.
  return [...(await compare(100_000, 5)), ...(await compare(1000, 5)), ...(await compare(1000, 5, true))];
}
