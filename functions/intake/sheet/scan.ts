import { type Cell, cellText, headerKey } from '../../commons/spreadsheet/cell.ts';
import { FileProblem } from '../../commons/spreadsheet/file-problem.ts';
import type { ReadLimits } from '../../commons/spreadsheet/limits.ts';
import type { OpenedWorkbook, RawRow, SheetFormat } from '../../commons/spreadsheet/sources.ts';

export const HEADER_SEARCH_ROWS = 20;
export const SETTINGS_SHEET = 'settings';

export interface ContactColumns {
  phone: number;
  name: number | null;
  customInstruction: number | null;
}

export interface ScannedUpload {
  format: SheetFormat;
  sheetName: string;
  headerRow: number;
  header: string[];
  columns: ContactColumns;
  /** Non-blank data rows below the header. */
  rowCount: number;
  /** The most cells in the header or any data row. */
  width: number;
  /** Rows of a worksheet named Settings, if there is one. */
  settings: Cell[][] | null;
}

function columnsOf(cells: Cell[]): ContactColumns | null {
  const keys = cells.map(headerKey);
  const phone = keys.indexOf('phone number');
  if (phone < 0) return null;
  const idx = (k: string) => {
    const i = keys.indexOf(k);
    return i < 0 ? null : i;
  };
  return { phone, name: idx('name'), customInstruction: idx('custom instruction') };
}

/** Called with each non-blank data row of the contact sheet, in order, as it is read. */
export type RowVisitor = (row: RawRow, columns: ContactColumns) => void;

const blankCell = (c: Cell | undefined): boolean =>
  c === null || c === undefined || (typeof c === 'string' && c.trim() === '');
const blank = (cells: Cell[]) => cells.every(blankCell);

/**
 * Reads the contacts from the first worksheet whose header row (the first of its first 20 rows with a
 * `Phone Number` column; title rows above it are ignored) names the phone column, and the Settings worksheet.
 * Contact rows go to `visit` as they stream past and are not kept, so memory does not grow with the sheet.
 * Every sheet is read to its end, because streamed sheets must be consumed in order.
 */
export async function scanUpload(
  workbook: OpenedWorkbook,
  limits: ReadLimits,
  visit: RowVisitor,
): Promise<ScannedUpload> {
  let found: Omit<ScannedUpload, 'format' | 'settings'> | null = null;
  let settings: Cell[][] | null = null;
  for await (const sheet of workbook.sheets()) {
    if (sheet.name.trim().toLowerCase() === SETTINGS_SHEET) {
      settings = [];
      for await (const batch of sheet.batches)
        for (const r of batch) if (settings.length < 200 && !blank(r.cells)) settings.push(r.cells);
      continue;
    }
    if (found) {
      for await (const _ of sheet.batches) {
        // drain: a later sheet is not read for contacts
      }
      continue;
    }
    let columns: ContactColumns | null = null;
    let headerRow = 0;
    let header: string[] = [];
    let rowCount = 0;
    let width = 0;
    for await (const batch of sheet.batches) {
      for (const r of batch) {
        if (!columns) {
          if (r.row > HEADER_SEARCH_ROWS) continue;
          columns = columnsOf(r.cells);
          if (columns) {
            headerRow = r.row;
            header = r.cells.map((c) => cellText(c));
            width = header.length;
          }
          continue;
        }
        if (blank(r.cells)) continue;
        if (rowCount >= limits.maxRows) {
          throw new FileProblem(
            'too_many_rows',
            `The sheet has more than ${limits.maxRows} contact rows. Split it into smaller files.`,
          );
        }
        rowCount++;
        if (r.cells.length > width) width = r.cells.length;
        visit(r, columns);
      }
    }
    if (columns) found = { sheetName: sheet.name, headerRow, header, columns, rowCount, width };
  }
  if (!found) {
    throw new FileProblem(
      'no_phone_column',
      `No worksheet has a "Phone Number" column header in its first ${HEADER_SEARCH_ROWS} rows. Add a header cell reading exactly "Phone Number" above the numbers.`,
    );
  }
  return { format: workbook.format, settings, ...found };
}
