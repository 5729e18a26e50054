import { cellText } from '../commons/spreadsheet/cell.ts';
import type { RawRow } from '../commons/spreadsheet/sources.ts';
import { REASON_TEXT } from './contacts.ts';
import type { Part } from './parts.ts';
import type { ValidationOutcome } from './validate-upload.ts';
import { columnName, escapedCell, MAX_COLUMNS, textCell, textRow, XlsxWriter, xmlText } from './xlsx-writer.ts';

/** The columns the Voice API reads from a campaign file, in its spelling. */
export const API_COLUMNS = ['Phone Number', 'Name', 'Custom Instruction'] as const;

/**
 * Every value goes in as an inline string cell (never a formula), so text starting with =, +, - or @ stays text in
 * any program that opens the file; characters XML cannot carry are written as Excel's `_xHHHH_` escapes.
 */
const asText = (v: string | null): string => v ?? '';

/** One campaign part as an .xlsx with exactly the API's columns. */
export async function partWorkbook(part: Part): Promise<Buffer> {
  const xlsx = new XlsxWriter();
  const sheet = xlsx.sheet('Contacts');
  sheet.write(textRow(1, API_COLUMNS));
  let row = 1;
  for (const c of part.contacts) sheet.write(textRow(++row, [c.phone, asText(c.name), asText(c.customInstruction)]));
  await xlsx.add(sheet);
  return xlsx.finish();
}

export const FATE_COLUMNS = ['callsheet result', 'normalized phone', 'part', 'time zone', 'reason'] as const;

/** Original columns the annotated sheet has room for beside the fate columns. */
const ORIGINAL_COLUMNS = MAX_COLUMNS - FATE_COLUMNS.length;

/** Rows are held in blocks of about this many characters, not as one object per row. */
const BLOCK_CHARS = 1 << 20;
/** Between a row's cells and between rows in a block: both are always escaped by `xmlText`, so never in the text. */
const CELL_SEP = '\x01';
const ROW_SEP = '\0';

/**
 * The contact sheet's data rows as they stream past the rules, kept for the annotated copy so the upload is read
 * once (a second read cost as much as the first). Each row is its cells' escaped text joined by a separator that
 * escaping removes from the text, and rows are joined into large strings: a few large strings weigh far less than
 * 100,000 small arrays of small strings.
 */
export class OriginalRows {
  private readonly blocks: string[] = [];
  private current: string[] = [];
  private currentChars = 0;
  /** The sheet row number of each held row, in order. */
  private readonly sheetRows: number[] = [];

  add(r: RawRow): void {
    const n = Math.min(r.cells.length, ORIGINAL_COLUMNS);
    let row = '';
    for (let i = 0; i < n; i++) row += (i > 0 ? CELL_SEP : '') + xmlText(cellText(r.cells[i]));
    this.current.push(row);
    this.sheetRows.push(r.row);
    this.currentChars += row.length + 1;
    if (this.currentChars >= BLOCK_CHARS) this.seal();
  }

  private seal(): void {
    if (this.current.length === 0) return;
    this.blocks.push(this.current.join(ROW_SEP));
    this.current = [];
    this.currentChars = 0;
  }

  /** Each held row as its sheet row number and its cells' escaped text, in order. */
  *rows(): Generator<[sheetRow: number, cells: string[]]> {
    this.seal();
    let i = 0;
    for (const block of this.blocks)
      for (const row of block.split(ROW_SEP)) yield [this.sheetRows[i++] as number, row.split(CELL_SEP)];
  }
}

/**
 * Every original row with its fate, for a person to open in Excel: the sheet's own columns, then whether the row
 * was accepted (its E.164 number, part and zone) or rejected (and why). A sheet too wide to leave room for the fate
 * columns (Excel's limit is 16,384) keeps its first 16,379 columns, and a second tab says so.
 */
export async function annotatedWorkbook(outcome: ValidationOutcome): Promise<Buffer> {
  const { scanned, originals, parts, rejections } = outcome;
  if (!scanned || !originals) throw new Error('annotatedWorkbook needs an upload whose contact sheet was read');
  const accepted = new Map<number, { phone: string; part: Part }>();
  for (const p of parts) for (const c of p.contacts) accepted.set(c.row, { phone: c.phone, part: p });
  const rejected = new Map<number, string>();
  for (const r of rejections)
    rejected.set(r.row, `${r.reason}: ${REASON_TEXT[r.reason]}${r.firstRow ? ` (row ${r.firstRow})` : ''}`);
  const width = Math.min(scanned.width, ORIGINAL_COLUMNS);

  const xlsx = new XlsxWriter();
  const sheet = xlsx.sheet('Annotated');
  let head = '<row r="1">';
  for (let i = 0; i < width; i++) head += textCell(i, 1, scanned.header[i] ?? '');
  for (let i = 0; i < FATE_COLUMNS.length; i++) head += textCell(width + i, 1, FATE_COLUMNS[i] as string);
  sheet.write(`${head}</row>`);
  let outRow = 1;
  for (const [sheetRow, cells] of originals.rows()) {
    outRow++;
    let xml = '';
    for (let i = 0; i < cells.length; i++) xml += escapedCell(i, outRow, cells[i] as string);
    const ok = accepted.get(sheetRow);
    let fate: string;
    if (ok)
      fate =
        textCell(width, outRow, 'accepted') +
        textCell(width + 1, outRow, ok.phone) +
        textCell(width + 2, outRow, String(ok.part.index)) +
        textCell(width + 3, outRow, ok.part.timeZone ?? '');
    else fate = textCell(width, outRow, 'rejected') + textCell(width + 4, outRow, rejected.get(sheetRow) ?? '');
    sheet.write(`<row r="${outRow}">${xml}${fate}</row>`);
    if (sheet.full) await sheet.flush();
  }
  await xlsx.add(sheet);

  if (scanned.width > ORIGINAL_COLUMNS) {
    const note = xlsx.sheet('Note');
    note.write(
      textRow(1, [
        `The original sheet has ${scanned.width} columns. A worksheet holds at most ${MAX_COLUMNS}, so the annotated copy shows columns A to ${columnName(ORIGINAL_COLUMNS - 1)} of the original, then the ${FATE_COLUMNS.length} callsheet columns. The original file keeps every column.`,
      ]),
    );
    await xlsx.add(note);
  }
  return xlsx.finish();
}
