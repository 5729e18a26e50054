import { type Cell, cellText } from './cell.ts';
import { DEFAULT_LIMITS } from './limits.ts';
import { readPackage } from './xlsx-package.ts';
import { readSharedStrings } from './xlsx-shared-strings.ts';
import { worksheetRows } from './xlsx-worksheet.ts';
import { textRow, XlsxWriter } from './xlsx-writer.ts';
import { inspectXlsx } from './zip-guard.ts';

/**
 * A campaign part file: the .xlsx callsheet hands the Voice API for one campaign (intake writes one per part, a
 * follow-up round one per round), and reads back when a lost create is reconciled or a round is planned. Writing
 * and reading live here, away from intake's phone rules, so the lifecycle and outcome bundles need neither those
 * nor a spreadsheet library.
 */

/** The columns the Voice API reads from a campaign file, in its spelling. */
export const API_COLUMNS = ['Phone Number', 'Name', 'Custom Instruction'] as const;

/**
 * Part files written (to S3, or to a folder) at once: one after another, 100 parts cost 100 round trips before the
 * first campaign starts.
 */
export const PART_WRITES_AT_ONCE = 8;

/** One contact of a part file. */
export interface PartRow {
  phone: string;
  name: string | null;
  customInstruction: string | null;
}

/**
 * A part as an .xlsx with exactly the API's columns. Every value goes in as an inline string cell (never a
 * formula), so text starting with =, +, - or @ stays text in any program that opens the file; characters XML
 * cannot carry are written as Excel's `_xHHHH_` escapes.
 */
export async function partWorkbook(part: { contacts: readonly PartRow[] }): Promise<Buffer> {
  const xlsx = new XlsxWriter();
  const sheet = xlsx.sheet('Contacts');
  sheet.write(textRow(1, API_COLUMNS));
  let row = 1;
  for (const c of part.contacts) sheet.write(textRow(++row, [c.phone, c.name ?? '', c.customInstruction ?? '']));
  await xlsx.add(sheet);
  return xlsx.finish();
}

/** The contacts of a part file, in order, read with intake's own guarded streaming reader. */
export async function readPartFile(bytes: Buffer): Promise<PartRow[]> {
  const pkg = readPackage((await inspectXlsx(bytes, DEFAULT_LIMITS)).entries);
  const part = pkg.sheets[0]?.part;
  const rows: PartRow[] = [];
  if (!part) return rows;
  const strings = await readSharedStrings(pkg.sharedStrings, DEFAULT_LIMITS);
  const text = (i: number, cells: readonly Cell[]) => cellText(cells[i]) || null;
  for await (const batch of worksheetRows(part, strings, pkg.sheets[0]?.name ?? 'Contacts'))
    for (const { row, cells } of batch) {
      const phone = text(0, cells);
      if (row > 1 && phone) rows.push({ phone, name: text(1, cells), customInstruction: text(2, cells) });
    }
  return rows;
}
