/**
 * One measurement in a fresh process, so its peak RSS is its own: `baseline` (a plain exceljs streaming read of
 * every row) or `intake` (validateUpload: read, normalize, dedupe, zone, split).
 */
import { readFile } from 'node:fs/promises';
import ExcelJS from 'exceljs';
import { validateUpload } from '../functions/intake/validate-upload.ts';

const [mode, fileArg, warmth] = process.argv.slice(2);
if (!fileArg || (mode !== 'baseline' && mode !== 'intake'))
  throw new Error('usage: intake-worker baseline|intake FILE [warm]');
const file: string = fileArg;

async function once(): Promise<number> {
  let rows = 0;
  if (mode === 'baseline') {
    const reader = new ExcelJS.stream.xlsx.WorkbookReader(file, {
      sharedStrings: 'cache',
      hyperlinks: 'ignore',
      styles: 'ignore',
      worksheets: 'emit',
      entries: 'emit',
    });
    for await (const sheet of reader) for await (const _row of sheet as unknown as AsyncIterable<unknown>) rows++;
  } else {
    const outcome = await validateUpload(await readFile(file), 'bench.xlsx', { defaultCountry: 'US' });
    rows = outcome.report.rows.total;
    if (!outcome.report.ok) throw new Error(JSON.stringify(outcome.report.error));
  }
  return rows;
}

// "warm": one untimed pass first, as a Lambda that has already handled an upload (data loaded, code compiled).
if (warmth === 'warm') await once();
const start = performance.now();
const rows = await once();
const ms = performance.now() - start;
console.log(JSON.stringify({ mode, rows, ms, maxRssMB: process.resourceUsage().maxRSS / 1024 }));
