import {
  type Cell,
  cellText,
  HEADER_SEARCH_ROWS,
  headerKey,
  PHONE_HEADER,
  type RawRow,
} from '#commons/spreadsheet/cell.ts';
import { SEPARATOR_NAME } from '#commons/spreadsheet/csv.ts';
import { FileProblem } from '#commons/spreadsheet/file-problem.ts';
import type { ReadLimits } from '#commons/spreadsheet/limits.ts';
import type { OpenedWorkbook, SheetFormat, SheetSource } from '#commons/spreadsheet/workbook.ts';

export { HEADER_SEARCH_ROWS };
export const SETTINGS_SHEET = 'settings';

export interface ContactColumns {
  phone: number;
  name: number | null;
  customInstruction: number | null;
  /** Optional input-only columns: an IANA zone, and a state, province or region, per row (the first of each). */
  timeZone: number | null;
  region: number | null;
}

/** Header names (as `headerKey`) of the optional columns; the first column with any of the names is read. */
const TIME_ZONE_HEADERS = new Set(['time zone', 'timezone']);
const REGION_HEADERS = new Set(['state', 'region', 'province']);

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
  const phone = keys.indexOf(PHONE_HEADER);
  if (phone < 0) return null;
  const idx = (k: string) => {
    const i = keys.indexOf(k);
    return i < 0 ? null : i;
  };
  const first = (names: ReadonlySet<string>) => {
    const i = keys.findIndex((k) => names.has(k));
    return i < 0 ? null : i;
  };
  return {
    phone,
    name: idx('name'),
    customInstruction: idx('custom instruction'),
    timeZone: first(TIME_ZONE_HEADERS),
    region: first(REGION_HEADERS),
  };
}

/** Called with each non-blank data row of the contact sheet, in order, as it is read. */
export type RowVisitor = (row: RawRow, columns: ContactColumns) => void;

const blankCell = (c: Cell | undefined): boolean =>
  c === null || c === undefined || (typeof c === 'string' && c.trim() === '');
const blank = (cells: Cell[]) => cells.every(blankCell);

async function settingsRows(sheet: SheetSource, limits: ReadLimits): Promise<Cell[][]> {
  const rows: Cell[][] = [];
  for await (const batch of sheet.batches)
    for (const r of batch) {
      if (blank(r.cells)) continue;
      if (rows.length >= limits.maxSettingsRows)
        throw new FileProblem(
          'invalid_settings',
          `The Settings sheet has more than ${limits.maxSettingsRows} filled rows (row ${r.row} is one too many); callsheet reads at most ${limits.maxSettingsRows}. Keep one setting per row and delete the rest.`,
        );
      rows.push(r.cells);
    }
  return rows;
}

function noPhoneColumn(workbook: OpenedWorkbook, hiddenWithHeader: string | null): FileProblem {
  const expected = `Add a header cell reading exactly "Phone Number" above the numbers, in one of the first ${HEADER_SEARCH_ROWS} rows.`;
  if (hiddenWithHeader !== null)
    return new FileProblem(
      'no_phone_column',
      `The only sheet with a "Phone Number" column, "${hiddenWithHeader}", is hidden; callsheet reads contacts only from sheets you can see. Unhide it (or move the contacts to a visible sheet) and upload again.`,
    );
  if (workbook.format === 'csv')
    return new FileProblem(
      'no_phone_column',
      `This file looks ${SEPARATOR_NAME[workbook.separator ?? ',']}-separated and was read that way, but none of its first ${HEADER_SEARCH_ROWS} rows has a "Phone Number" column. ${expected}`,
    );
  return new FileProblem(
    'no_phone_column',
    `No visible worksheet has a "Phone Number" column header in its first ${HEADER_SEARCH_ROWS} rows. ${expected}`,
  );
}

/**
 * Reads the contacts from the first visible worksheet, in tab order, whose header row (the first of its first 20
 * rows with a `Phone Number` column; title rows above it are ignored) names the phone column, and the Settings
 * worksheet (which may be hidden). Hidden and very hidden sheets never supply contacts. Contact rows go to `visit`
 * as they stream past and are not kept, so memory does not grow with the sheet. Other sheets are not read at all.
 */
export async function scanUpload(
  workbook: OpenedWorkbook,
  limits: ReadLimits,
  visit: RowVisitor,
): Promise<ScannedUpload> {
  let found: Omit<ScannedUpload, 'format' | 'settings'> | null = null;
  let settings: Cell[][] | null = null;
  let hiddenWithHeader: string | null = null;
  for await (const sheet of workbook.sheets()) {
    if (sheet.name.trim().toLowerCase() === SETTINGS_SHEET) {
      settings = await settingsRows(sheet, limits);
      continue;
    }
    if (found) continue;
    const visible = sheet.state === 'visible';
    let columns: ContactColumns | null = null;
    let headerRow = 0;
    let header: string[] = [];
    let rowCount = 0;
    let width = 0;
    for await (const batch of sheet.batches) {
      for (const r of batch) {
        if (!columns) {
          if (r.row > HEADER_SEARCH_ROWS) break;
          columns = columnsOf(r.cells);
          if (columns) {
            headerRow = r.row;
            header = r.cells.map((c) => cellText(c));
            width = header.length;
            // A hidden sheet is only looked at for its header, to say why nothing was read.
            if (!visible) break;
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
      if ((columns && !visible) || (!columns && batch.some((r) => r.row > HEADER_SEARCH_ROWS))) break;
    }
    if (columns && !visible) hiddenWithHeader ??= sheet.name;
    else if (columns) found = { sheetName: sheet.name, headerRow, header, columns, rowCount, width };
  }
  if (!found) throw noPhoneColumn(workbook, hiddenWithHeader);
  return { format: workbook.format, settings, ...found };
}
