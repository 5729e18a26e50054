/**
 * One read of a JSON-lines contact file in a fresh process, so its peak RSS is its own:
 * - `baseline`: the file read and its lines counted (the reader's modules loaded too, so only the work differs);
 * - `lines`: readContactLines, as `callsheet contacts push` reads the file.
 */
import { readFile } from 'node:fs/promises';
import { readContactLines } from '#contacts/contact-lines.ts';

const [mode, file] = process.argv.slice(2);
if (!file || (mode !== 'baseline' && mode !== 'lines'))
  throw new Error('usage: contact-lines-worker baseline|lines FILE');
readContactLines(Buffer.from('\n')); // loaded and compiled on both sides alike
const bytes = await readFile(file);
const start = performance.now();
let lines = 0;
let rejected = 0;
if (mode === 'baseline') {
  for (let i = bytes.indexOf(10); i !== -1; i = bytes.indexOf(10, i + 1)) lines++;
} else {
  const out = readContactLines(bytes);
  lines = out.events.length + out.rejected.length;
  rejected = out.rejected.length;
}
const ms = performance.now() - start;
console.log(JSON.stringify({ mode, lines, rejected, ms, maxRssMB: process.resourceUsage().maxRSS / 1024 }));
