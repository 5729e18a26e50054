/** Excel's grid: XFD1048576 (what a spreadsheet program opens, and what a sheet may address). */
export const MAX_COLUMNS = 16_384;
export const MAX_ROWS = 1_048_576;

/** A spreadsheet cell reduced to what it shows: text, number, boolean, date, or nothing. */
export type Cell = string | number | boolean | Date | null;

/** One row as a sheet reader hands it over (sources.ts, xlsx-worksheet.ts). */
export interface RawRow {
  /** 1-based, as a spreadsheet program shows it. */
  row: number;
  /** A new array for every row, never touched by the reader again, so a consumer may keep it. */
  cells: Cell[];
}

/**
 * exceljs gives rich text, formulas (with their cached result), hyperlinks and errors as objects; this keeps what a
 * person sees in the cell. A formula is never evaluated here: its cached result is the value.
 */
export function cellValue(value: unknown): Cell {
  if (value === null || value === undefined) return null;
  if (typeof value !== 'object' || value instanceof Date) return value as Cell;
  const v = value as {
    result?: unknown;
    richText?: { text: string }[];
    text?: unknown;
    error?: string;
    sharedString?: unknown;
  };
  if (Array.isArray(v.richText)) return v.richText.map((p) => p.text).join('');
  if ('formula' in v || 'sharedFormula' in v || 'result' in v) return cellValue(v.result);
  if (typeof v.text === 'string') return v.text;
  if (typeof v.text === 'object' && v.text !== null) return cellValue(v.text);
  if (typeof v.error === 'string') return v.error;
  return String(value);
}

/**
 * An integer's every decimal digit: above 2^53 the shortest round-trip form (String) rounds digits away (and from
 * 1e21 writes an exponent), where BigInt keeps the value's every digit.
 */
export const integerText = (n: number): string => (Number.isSafeInteger(n) ? String(n) : BigInt(n).toString());

/** The cell as text, trimmed; numbers keep every digit. */
export function cellText(c: Cell | undefined): string {
  if (c === null || c === undefined) return '';
  if (typeof c === 'number') return Number.isInteger(c) && Math.abs(c) < 1e21 ? integerText(c) : String(c);
  if (c instanceof Date) return c.toISOString();
  return String(c).trim();
}

/** A header cell as a name to compare: no case, no surrounding spaces, inner runs of spaces as one. */
export const headerKey = (c: Cell | undefined): string => cellText(c).replace(/\s+/g, ' ').toLowerCase();

/** The header every contact sheet names its phone column with (compared as `headerKey`), and where it may be. */
export const PHONE_HEADER = 'phone number';
/** Title rows may come above the header: it is looked for in this many first rows. */
export const HEADER_SEARCH_ROWS = 20;
