import { statSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { contactOutcomes } from '#commons/outcomes/call-outcome.ts';
import { OutcomeStore } from '#commons/outcomes/outcome-store.ts';
import { CampaignStore } from '#lifecycle/campaign-store.ts';
import { OUTCOME_COLUMNS, outcomesCsv, outcomesXlsx } from '#lifecycle/part-end/export.ts';
import type { Command } from '../command.ts';
import { UsageError } from '../command.ts';
import { openTable } from '../table-access.ts';

/** The options `callsheet campaign outcomes` adds to the campaign command. */
export const OUTCOMES_OPTIONS: Command['options'] = {
  csv: { type: 'boolean' },
  xlsx: { type: 'boolean' },
  out: { type: 'string' },
};

export const OUTCOMES_HELP = [
  'outcomes <campaign id> [--csv | --xlsx] [--out FILE]',
  '  what happened per contact: attempts, last status, talk time, cost, opt-outs, transcript and recording.',
  '  Prints a table; --csv writes CSV (to stdout, or FILE); --xlsx writes a workbook to FILE',
  '  (default outcomes-<campaign id>.xlsx); --out FILE alone writes what its name ends in (.csv or .xlsx).',
];

/** `callsheet campaign outcomes <id> [--csv | --xlsx] [--out FILE]`: the per-contact table of one campaign. */
export async function runOutcomes(
  values: Record<string, string | boolean | undefined>,
  args: string[],
): Promise<number> {
  const [asked, ...extra] = args;
  if (!asked || extra.length > 0) throw new UsageError('say outcomes, then one campaign id');
  let id = asked;
  if (values.csv && values.xlsx) throw new UsageError('choose --csv or --xlsx, not both');
  const out = values.out as string | undefined;
  // --out alone: the file's name says which (it used to print the table and write nothing).
  const format = values.xlsx ? 'xlsx' : values.csv ? 'csv' : out ? formatOfName(out) : 'table';
  if (out && statSync(out, { throwIfNoEntry: false })?.isDirectory())
    throw new UsageError(
      `--out ${out} is a folder: give a file name, e.g. ${join(out, `outcomes-${asked}.${format}`)}`,
    );
  const t = await openTable('outcomes');
  const where = t.where;
  let rows: ReturnType<typeof contactOutcomes>;
  try {
    // A part key names its campaign, as `show` and `report` take it; an id callsheet never launched is said to be so.
    // Two reads by key: the campaign's index item, else the part's record (no scan of the table).
    const campaigns = t.sibling('campaigns');
    const store = campaigns ? new CampaignStore(t.db, campaigns) : null;
    const launched = store ? (await store.partOfCampaign(asked)) !== null : false;
    const part = store && !launched ? await store.get(asked) : null;
    id = part?.campaignId ?? asked;
    rows = contactOutcomes(id, await new OutcomeStore(t.db, t.table).ofCampaign(id));
    if (rows.length === 0 && store && !launched && !part) {
      console.error(`callsheet campaign: no campaign ${asked} in ${where} (callsheet campaign list names them)`);
      return 1;
    }
  } finally {
    await t.close();
  }
  if (format === 'xlsx') {
    const file = out ?? `outcomes-${id}.xlsx`;
    await writeFile(file, await outcomesXlsx(rows));
    console.error(`${rows.length} contact(s) of campaign ${id} written to ${file} (from ${where}).`);
  } else if (format === 'csv') {
    const csv = outcomesCsv(rows);
    if (out) {
      await writeFile(out, csv);
      console.error(`${rows.length} contact(s) of campaign ${id} written to ${out} (from ${where}).`);
    } else process.stdout.write(csv);
  } else if (rows.length === 0) {
    console.log(`No outcomes recorded for campaign ${id} in ${where}.`);
  } else {
    const shown = OUTCOME_COLUMNS.slice(0, 10);
    const cells = [shown.map((c) => c.header), ...rows.map((r) => shown.map((c) => String(c.value(r) ?? '')))];
    const widths = shown.map((_, i) => Math.max(...cells.map((line) => (line[i] as string).length)));
    for (const line of cells)
      console.log(
        line
          .map((cell, i) => cell.padEnd(widths[i] as number))
          .join('  ')
          .trimEnd(),
      );
  }
  return 0;
}

/** The export a file name asks for: `.xlsx` or `.csv`; any other name is a usage mistake. */
function formatOfName(file: string): 'csv' | 'xlsx' {
  const ext = extname(file).toLowerCase();
  if (ext === '.xlsx') return 'xlsx';
  if (ext === '.csv') return 'csv';
  throw new UsageError(`--out ${file}: say --csv or --xlsx, or name the file .csv or .xlsx`);
}
