/**
 * One hostile upload in a fresh process, so its peak RSS is its own:
 * - `baseline`: the file's bytes read once from disk, nothing else;
 * - `intake`: validateUpload on the file streamed from disk, as intake takes an S3 object (its size first, a CSV
 *   as it arrives, an .xlsx gathered within the size limit). Prints the refusal's code: a file read is a failure.
 */
import { createReadStream } from 'node:fs';
import { fileSource } from '#commons/spreadsheet/byte-source.ts';
import { validateUpload } from '#intake/validate-upload.ts';
import { peakRssMB } from './peak-rss.ts';

const [mode, file] = process.argv.slice(2);
if (!file || (mode !== 'baseline' && mode !== 'intake'))
  throw new Error('usage: intake-bounds-worker baseline|intake FILE');

const start = performance.now();
const cpuStart = process.cpuUsage();
let outcome = '';
if (mode === 'baseline') {
  let bytes = 0;
  for await (const chunk of createReadStream(file)) bytes += (chunk as Buffer).length;
  outcome = `${bytes} bytes`;
} else {
  const out = await validateUpload(await fileSource(file), file.split('/').pop() as string, { defaultCountry: 'US' });
  outcome = out.report.error?.code ?? 'read';
}
const ms = performance.now() - start;
const cpu = process.cpuUsage(cpuStart);
console.log(JSON.stringify({ mode, outcome, ms, cpuMs: (cpu.user + cpu.system) / 1000, maxRssMB: peakRssMB() }));
