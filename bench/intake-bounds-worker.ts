/**
 * One hostile upload in a fresh process, so its peak RSS is its own:
 * - `baseline`: the file's bytes read once from disk, nothing else;
 * - `intake`: validateUpload on the file streamed from disk, as intake takes an S3 object (its size first, a CSV
 *   as it arrives, an .xlsx gathered within the size limit). Prints the refusal's code: a file read is a failure.
 */
import { createReadStream, readFileSync } from 'node:fs';
import { fileSource } from '#commons/spreadsheet/byte-source.ts';
import { validateUpload } from '#intake/validate-upload.ts';

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

/**
 * This process's own peak RSS. Linux carries `maxRSS` over from the process that forked this one (a bench parent
 * holding a 40 MB sheet starts its children at its own RSS); VmHWM is the peak of this program's memory alone.
 */
function peakRssMB(): number {
  try {
    const hwm = /VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1];
    if (hwm) return Number(hwm) / 1024;
  } catch {
    // not Linux: maxRSS, which elsewhere is this process's own
  }
  return process.resourceUsage().maxRSS / 1024;
}
