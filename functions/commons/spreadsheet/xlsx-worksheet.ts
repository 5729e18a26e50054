import type { RawRow } from './cell.ts';
import { type Cell, MAX_COLUMNS, MAX_ROWS } from './cell.ts';
import { FileProblem } from './file-problem.ts';
import { cellTooLong, MAX_CELL_CHARS } from './limits.ts';
import type { SharedStrings } from './xlsx-shared-strings.ts';
import { columnName } from './xlsx-writer.ts';
import { decodeXstring, XmlPart } from './xml-part.ts';
import { type CheckedEntry, partChunks } from './zip-guard.ts';

/**
 * Packs a cell reference's column and row into one number: above any row seven digits can write (9,999,999), so a
 * row past Excel's last decodes as itself and is refused, never carried into the column.
 */
export const ROW_SPAN = 2 ** 24;

/**
 * A cell reference (`B7`, `$B$7`, `xfd1048576`: one to three letters, one to seven digits) as
 * `column * ROW_SPAN + row`, or -1 for anything else. Read in place, char by char: it runs for every cell, and a
 * regular expression's match array per cell was a good share of the whole read.
 */
export function cellRef(ref: string): number {
  const len = ref.length;
  let i = ref.charCodeAt(0) === 36 /* $ */ ? 1 : 0;
  const lettersFrom = i;
  let column = 0;
  for (; i < len && i - lettersFrom < 4; i++) {
    const ch = ref.charCodeAt(i) | 0x20; // lower case
    if (ch < 97 || ch > 122) break;
    column = column * 26 + (ch - 96);
  }
  if (i === lettersFrom || i - lettersFrom > 3) return -1;
  if (ref.charCodeAt(i) === 36) i++;
  const digitsFrom = i;
  let row = 0;
  for (; i < len; i++) {
    const ch = ref.charCodeAt(i);
    if (ch < 48 || ch > 57) return -1;
    row = row * 10 + (ch - 48);
  }
  return i === digitsFrom || i - digitsFrom > 7 ? -1 : column * ROW_SPAN + row;
}

/**
 * Raw text kept of one cell's value: `_xHHHH_` escapes shrink seven characters to one, so past this the decoded text
 * is surely beyond Excel's limit, and the cell is refused without holding more of it.
 */
const MAX_RAW_CELL_CHARS = 7 * (MAX_CELL_CHARS + 1);

/**
 * The rows of one worksheet part, streamed a chunk of XML at a time. Positions come from the `r` attributes when
 * they are there and are implied when not (both are optional in OOXML): a row without `r` follows the previous row
 * (or takes the row of its first addressed cell), a cell without `r` follows the previous cell of its row.
 * A cell shows its cached value: shared strings by index, inline strings without phonetic runs, `_xHHHH_` escapes
 * decoded, booleans, error codes as text, numbers as numbers, `t="d"` ISO dates as dates. A cell whose text passes
 * Excel's 32,767 characters is refused, named, as soon as that is known.
 */
export async function* worksheetRows(
  entry: CheckedEntry,
  strings: SharedStrings,
  sheetName: string,
): AsyncIterable<RawRow[]> {
  const part = entry.fileName;
  const damaged = (what: string) => new FileProblem('corrupt', `The file is damaged: ${part} ${what}.`);
  const tooLong = () =>
    cellTooLong(`Cell ${columnName(Math.max(0, col - 1))}${row?.row ?? lastRow + 1} of the sheet "${sheetName}"`);
  let rows: RawRow[] = [];
  let inData = false;
  let lastRow = 0;
  let row: RawRow | null = null;
  /** The row's number came from an attribute (its own `r` or its first addressed cell). */
  let rowFixed = false;
  let col = 0;
  let type = 'n';
  let capture: 'v' | 'is' | null = null;
  let inIs = false;
  let phonetic = 0;
  let v: string | null = null;
  let inline: string | null = null;
  let piece = '';

  const setRow = (n: number) => {
    if (!(n > lastRow && n <= MAX_ROWS)) throw damaged(`has row ${n} after row ${lastRow} (rows must come in order)`);
    if (row) row.row = n;
  };

  function cellValue(): Cell {
    switch (type) {
      case 's': {
        if (v === null) return null;
        const s = strings.get(Number(v));
        if (s === undefined || v.trim() === '') throw damaged(`refers to shared text ${v}, which does not exist`);
        return s;
      }
      case 'inlineStr':
        return inline ?? (v === null ? null : decodeXstring(v));
      case 'str':
        return v === null ? null : decodeXstring(v);
      case 'b':
        return v === null ? null : v.trim() === '1' || v.trim() === 'true';
      case 'e':
        return v;
      case 'd': {
        if (v === null) return null;
        const iso = v.trim();
        const d = new Date(/[zZ]|[+-]\d\d:?\d\d$/.test(iso) || !iso.includes('T') ? iso : `${iso}Z`);
        return Number.isNaN(d.getTime()) ? iso : d;
      }
      default: {
        if (v === null || v.trim() === '') return null;
        const n = Number(v);
        return Number.isNaN(n) ? v : n;
      }
    }
  }

  const xml = new XmlPart(part, {
    open(name, a) {
      if (!inData) {
        if (name === 'sheetData') inData = true;
        return;
      }
      switch (name) {
        case 'row': {
          row = { row: lastRow + 1, cells: [] };
          const r = a.get('r');
          rowFixed = r !== undefined;
          if (rowFixed) {
            const n = Number(r);
            if (!Number.isInteger(n)) throw damaged(`has a row numbered "${r}"`);
            setRow(n);
          }
          col = 0;
          break;
        }
        case 'c': {
          if (!row) return;
          type = a.get('t') ?? 'n';
          v = null;
          inline = null;
          const ref = a.get('r');
          if (ref === undefined) col++;
          else {
            const at = cellRef(ref);
            if (at < 0) throw damaged(`has a cell addressed "${ref}"`);
            col = Math.floor(at / ROW_SPAN);
            if (!rowFixed) {
              setRow(at % ROW_SPAN);
              rowFixed = true;
            }
          }
          if (col > MAX_COLUMNS) throw damaged(`has a cell beyond Excel's last column (XFD)`);
          break;
        }
        case 'v':
          capture = 'v';
          piece = '';
          break;
        case 'is':
          inIs = true;
          inline = '';
          break;
        case 'rPh':
          phonetic++;
          break;
        case 't':
          if (inIs && phonetic === 0) {
            capture = 'is';
            piece = '';
          }
          break;
      }
    },
    text(text) {
      if (!capture) return;
      if (piece.length + text.length > MAX_RAW_CELL_CHARS) throw tooLong();
      piece += text;
    },
    close(name) {
      if (!inData) return;
      switch (name) {
        case 'v':
          if (capture === 'v') v = (v ?? '') + piece;
          if (v !== null && v.length > MAX_RAW_CELL_CHARS) throw tooLong();
          capture = null;
          break;
        case 't':
          if (capture === 'is') inline = (inline ?? '') + decodeXstring(piece);
          if (inline !== null && inline.length > MAX_CELL_CHARS) throw tooLong();
          capture = null;
          break;
        case 'rPh':
          phonetic--;
          break;
        case 'is':
          inIs = false;
          break;
        case 'c': {
          if (!row) return;
          const value = cellValue();
          if (typeof value === 'string' && value.length > MAX_CELL_CHARS) throw tooLong();
          const cells = row.cells;
          while (cells.length < col - 1) cells.push(null);
          cells[col - 1] = value;
          break;
        }
        case 'row':
          if (row) {
            lastRow = row.row;
            rows.push(row);
            row = null;
          }
          break;
        case 'sheetData':
          inData = false;
          break;
      }
    },
  });
  for await (const chunk of partChunks(entry)) {
    xml.write(chunk);
    if (rows.length > 0) {
      const out = rows;
      rows = [];
      yield out;
    }
  }
  xml.end();
  if (rows.length > 0) yield rows;
}
