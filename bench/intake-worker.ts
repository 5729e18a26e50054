/**
 * One measurement in a fresh process, so its peak RSS is its own:
 * - `baseline`: a plain exceljs streaming read of every row;
 * - `intake`: validateUpload (read, normalize, dedupe, zone, split);
 * - `full`: the whole path as the intake Lambda takes it, minus the network: validateUpload with a suppression
 *   check, the report as JSON, every part file and annotated.xlsx, each as the bytes it would put to S3.
 */
import { readFile } from 'node:fs/promises';
import { validateUpload } from '#intake/validate-upload.ts';
import { writeUploadFiles } from '#intake/writers.ts';
import { plainRead } from './plain-read.ts';

const [mode, fileArg, warmth] = process.argv.slice(2);
if (!fileArg || (mode !== 'baseline' && mode !== 'intake' && mode !== 'full'))
  throw new Error('usage: intake-worker baseline|intake|full FILE [warm]');
const file: string = fileArg;

async function once(): Promise<number> {
  if (mode === 'baseline') return plainRead(file);
  const outcome = await validateUpload(await readFile(file), 'bench.xlsx', {
    defaultCountry: 'US',
    ...(mode === 'full' ? { suppressed: async () => new Set<string>() } : {}),
  });
  if (!outcome.report.ok) throw new Error(JSON.stringify(outcome.report.error));
  if (mode === 'full') {
    // report.json holds what IntakeReport holds: counts, rejected rows and parts, not the accepted contacts.
    const { rows: counts, rejected, parts } = outcome.report;
    let bytes = Buffer.byteLength(JSON.stringify({ rows: counts, rejected, parts }, null, 2));
    // As intake-service puts them.
    const count = async (xlsx: Buffer) => {
      bytes += xlsx.length;
    };
    await writeUploadFiles(outcome, outcome.parts, (_, xlsx) => count(xlsx), count);
    if (bytes === 0) throw new Error('nothing written');
  }
  return outcome.report.rows.total;
}

// "warm": one untimed pass first, as a Lambda that has already handled an upload (data loaded, code compiled).
if (warmth === 'warm') await once();
const start = performance.now();
const cpuStart = process.cpuUsage();
const rows = await once();
const ms = performance.now() - start;
const cpu = process.cpuUsage(cpuStart);
const cpuMs = (cpu.user + cpu.system) / 1000;
console.log(JSON.stringify({ mode, rows, ms, cpuMs, maxRssMB: process.resourceUsage().maxRSS / 1024 }));
