import { type Cell, HEADER_SEARCH_ROWS, headerKey, PHONE_HEADER, type RawRow } from './cell.ts';
import { FileProblem } from './file-problem.ts';
import type { ReadLimits } from './limits.ts';
import { readPackage, type SheetState } from './xlsx-package.ts';
import { readSharedStrings, type SharedStrings } from './xlsx-shared-strings.ts';
import { worksheetRows } from './xlsx-worksheet.ts';
import { inspectXlsx } from './zip-guard.ts';

export type SheetFormat = 'xlsx' | 'xls' | 'csv';

export interface SheetSource {
  name: string;
  /** Hidden and very hidden tabs are not shown in Excel's tab bar. */
  state: SheetState;
  /** The sheet's rows in order, a batch at a time: a promise per row costs more than reading the row. */
  batches: AsyncIterable<RawRow[]>;
}

export interface OpenedWorkbook {
  format: SheetFormat;
  /** For CSV: the separator its cells were split on. */
  separator?: CsvSeparator;
  /**
   * Tabs in the order Excel shows them, each to be read (or skipped, at no cost) before the next is asked for.
   */
  sheets(): AsyncIterable<SheetSource>;
}

export type CsvSeparator = ',' | ';' | '\t';

const ZIP = Buffer.from('504b0304', 'hex');
const CFB = Buffer.from('d0cf11e0a1b11ae1', 'hex');
const ENCRYPTED_MARK = Buffer.from('EncryptedPackage', 'utf16le');

const TRY_AGAIN = 'Upload the contact list as .xlsx, .xls or .csv.';

/** Files people upload by mistake, told by their first bytes, so the answer says what the file really is. */
const KNOWN_CONTENT: { what: string; test: (head: Buffer, text: string) => boolean }[] = [
  { what: 'a PDF document', test: (_, t) => t.startsWith('%PDF-') },
  { what: 'a PNG image', test: (h) => h.subarray(0, 8).equals(Buffer.from('89504e470d0a1a0a', 'hex')) },
  { what: 'a JPEG image', test: (h) => h[0] === 0xff && h[1] === 0xd8 && h[2] === 0xff },
  { what: 'a GIF image', test: (_, t) => t.startsWith('GIF87a') || t.startsWith('GIF89a') },
  { what: 'a gzip archive', test: (h) => h[0] === 0x1f && h[1] === 0x8b },
  { what: 'a 7-Zip archive', test: (_, t) => t.startsWith('7z\xbc\xaf\x27\x1c') },
  { what: 'a RAR archive', test: (_, t) => t.startsWith('Rar!\x1a\x07') },
  { what: 'an RTF (rich text) document', test: (_, t) => t.startsWith('{\\rtf') },
  {
    what: 'an Excel 2003 XML spreadsheet',
    test: (_, t) => /^(\xef\xbb\xbf)?<\?xml/.test(t) && t.includes('urn:schemas-microsoft-com:office:spreadsheet'),
  },
  { what: 'a web page (HTML)', test: (_, t) => /^(\xef\xbb\xbf)?\s*<(!doctype html|html)/i.test(t) },
];

const UTF16LE_BOM = (b: Buffer) => b[0] === 0xff && b[1] === 0xfe;
const UTF16BE_BOM = (b: Buffer) => b[0] === 0xfe && b[1] === 0xff;

/** Decides the format from the bytes; the name only decides whether text may be read as CSV. */
export function detectFormat(bytes: Buffer, fileName: string): SheetFormat {
  if (bytes.length === 0) throw new FileProblem('empty_file', 'The file is empty.');
  if (bytes.subarray(0, 4).equals(ZIP)) return 'xlsx';
  if (bytes.subarray(0, 8).equals(CFB)) {
    if (bytes.includes(ENCRYPTED_MARK)) {
      throw new FileProblem(
        'encrypted',
        'The file is password-protected. Remove the password in your spreadsheet program and upload it again.',
      );
    }
    return 'xls';
  }
  const head = bytes.subarray(0, 4096);
  const headText = head.toString('latin1');
  const known = KNOWN_CONTENT.find((k) => k.test(head, headText));
  if (known) {
    const hint = known.what.startsWith('an Excel 2003') ? ' Open it in Excel and save it as .xlsx.' : '';
    throw new FileProblem('unsupported_format', `This is ${known.what}, not a spreadsheet.${hint} ${TRY_AGAIN}`);
  }
  if (headText.startsWith('PK')) {
    throw new FileProblem('corrupt', 'The file looks like a damaged zip/.xlsx file and cannot be opened.');
  }
  const text = !head.subarray(0, 1024).includes(0) || UTF16LE_BOM(head) || UTF16BE_BOM(head);
  if (!text) throw new FileProblem('unsupported_format', `This is neither a spreadsheet nor text. ${TRY_AGAIN}`);
  const ext = /\.([a-z0-9]+)$/i.exec(fileName)?.[1]?.toLowerCase();
  if (ext === 'csv' || ext === 'txt' || ext === 'tsv') return 'csv';
  if (ext === 'xlsx' || ext === 'xls') {
    throw new FileProblem(
      'unsupported_format',
      `The file is named .${ext} but holds text, not a spreadsheet. If it is a list with one row per line (cells separated by commas, semicolons or tabs), rename it to .csv; otherwise save it from your spreadsheet program as .xlsx.`,
    );
  }
  throw new FileProblem('unsupported_format', `This is not a spreadsheet callsheet can read. ${TRY_AGAIN}`);
}

async function* xlsxSheets(bytes: Buffer, limits: ReadLimits): AsyncIterable<SheetSource> {
  const { entries } = await inspectXlsx(bytes, limits);
  const pkg = readPackage(entries);
  // Shared strings are read once, when the first worksheet is, and only if one is.
  let strings: Promise<SharedStrings> | null = null;
  const sharedStrings = () => {
    strings ??= readSharedStrings(pkg.sharedStrings, limits);
    return strings;
  };
  for (const sheet of pkg.sheets) {
    const part = sheet.part;
    yield {
      name: sheet.name,
      state: sheet.state,
      batches: part
        ? (async function* () {
            yield* worksheetRows(part, await sharedStrings());
          })()
        : (async function* () {})(),
    };
  }
}

async function* xlsSheets(bytes: Buffer): AsyncIterable<SheetSource> {
  // Legacy BIFF only: SheetJS is loaded for this format and nothing else.
  const XLSX = await import('@e965/xlsx');
  let wb: ReturnType<typeof XLSX.read>;
  try {
    wb = XLSX.read(bytes, { type: 'buffer', cellDates: true, cellFormula: false, cellHTML: false, cellText: false });
  } catch (err) {
    const msg = (err as Error).message;
    if (/password|encrypt/i.test(msg))
      throw new FileProblem(
        'encrypted',
        'The file is password-protected. Remove the password in your spreadsheet program and upload it again.',
      );
    throw new FileProblem('corrupt', `The file cannot be read as .xls: ${msg}.`);
  }
  const states: SheetState[] = ['visible', 'hidden', 'veryHidden'];
  for (const [i, name] of wb.SheetNames.entries()) {
    const sheet = wb.Sheets[name];
    const state = states[wb.Workbook?.Sheets?.[i]?.Hidden ?? 0] ?? 'hidden';
    if (!sheet?.['!ref']) {
      yield { name, state, batches: (async function* () {})() };
      continue;
    }
    const first = XLSX.utils.decode_range(sheet['!ref']).s.r;
    const grid = XLSX.utils.sheet_to_json<Cell[]>(sheet, { header: 1, raw: true, blankrows: true, defval: null });
    yield {
      name,
      state,
      batches: inBatches(grid.map((cells, i) => ({ row: first + i + 1, cells: cells ?? [] }))),
    };
  }
}

const BATCH_ROWS = 500;

async function* inBatches(rows: Iterable<RawRow>): AsyncIterable<RawRow[]> {
  let batch: RawRow[] = [];
  for (const r of rows) {
    batch.push(r);
    if (batch.length === BATCH_ROWS) {
      yield batch;
      batch = [];
    }
  }
  if (batch.length > 0) yield batch;
}

/**
 * RFC 4180 records with quotes, doubled quotes and line breaks inside quotes. A quote still open at the end of the
 * text is refused, naming the line it was opened on: read on, it would swallow every following row into one cell.
 */
export function* csvRecords(text: string, delimiter: string): Generator<string[]> {
  let field = '';
  let record: string[] = [];
  let quoted = false;
  let line = 1;
  let quoteLine = 0;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (ch === '\n' || (ch === '\r' && text[i + 1] !== '\n')) line++;
    if (quoted) {
      if (ch === '"') {
        if (text[i + 1] === '"') {
          field += '"';
          i++;
        } else quoted = false;
      } else field += ch;
    } else if (ch === '"' && field === '') {
      quoted = true;
      quoteLine = line;
    } else if (ch === delimiter) {
      record.push(field);
      field = '';
    } else if (ch === '\n' || ch === '\r') {
      if (ch === '\r' && text[i + 1] === '\n') i++;
      record.push(field);
      yield record;
      record = [];
      field = '';
    } else field += ch;
  }
  if (quoted)
    throw new FileProblem(
      'unterminated_quote',
      `The CSV file has a quote (") opened on line ${quoteLine} that is never closed, so every line after it would be read as one cell. Close the quote (or remove it) and upload the file again.`,
    );
  if (field !== '' || record.length > 0) {
    record.push(field);
    yield record;
  }
}

const SEPARATORS: CsvSeparator[] = [',', ';', '\t'];
export const SEPARATOR_NAME: Record<CsvSeparator, string> = { ',': 'comma', ';': 'semicolon', '\t': 'tab' };

/**
 * The separator under which one of the first rows has a `Phone Number` cell (title rows may come first); failing
 * that, the one the first non-blank line uses most, so the answer can say how the file was read.
 */
function csvSeparator(text: string, headerRows: number, isHeader: (cell: string) => boolean): CsvSeparator {
  for (const sep of SEPARATORS) {
    let n = 0;
    try {
      for (const record of csvRecords(text, sep)) {
        if (record.some(isHeader)) return sep;
        if (++n >= headerRows) break;
      }
    } catch (err) {
      if (!(err instanceof FileProblem)) throw err;
      // an unterminated quote is reported when the rows are read
    }
  }
  const firstLine = text.split(/\r?\n|\r/).find((l) => l.trim() !== '') ?? '';
  const count = (sep: string) => firstLine.split(sep).length - 1;
  return SEPARATORS.reduce((best, sep) => (count(sep) > count(best) ? sep : best), ',');
}

function decodeText(bytes: Buffer): string {
  try {
    if (UTF16LE_BOM(bytes)) return new TextDecoder('utf-16le', { fatal: true }).decode(bytes);
    if (UTF16BE_BOM(bytes)) return new TextDecoder('utf-16be', { fatal: true }).decode(bytes);
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    throw new FileProblem(
      'not_utf8',
      'The CSV file is not UTF-8 text. Save it as "CSV UTF-8" in your spreadsheet program and upload it again.',
    );
  }
}

function csvWorkbook(bytes: Buffer): OpenedWorkbook {
  const text = decodeText(bytes);
  const separator = csvSeparator(text, HEADER_SEARCH_ROWS, (cell) => headerKey(cell) === PHONE_HEADER);
  return {
    format: 'csv',
    separator,
    sheets: async function* () {
      yield {
        name: 'CSV',
        state: 'visible',
        batches: inBatches(
          (function* () {
            let row = 0;
            for (const record of csvRecords(text, separator))
              yield { row: ++row, cells: record.map((f) => (f === '' ? null : f)) };
          })(),
        ),
      };
    },
  };
}

export async function openWorkbook(bytes: Buffer, fileName: string, limits: ReadLimits): Promise<OpenedWorkbook> {
  if (bytes.length > limits.maxFileBytes) {
    throw new FileProblem(
      'too_large',
      `The file is ${bytes.length} bytes; the limit is ${limits.maxFileBytes}. Split it into smaller files.`,
    );
  }
  const format = detectFormat(bytes, fileName);
  if (format === 'xlsx') {
    // Inspect before the first sheet is handed out, so a hostile file fails before any parsing.
    const sheets = xlsxSheets(bytes, limits)[Symbol.asyncIterator]();
    const first = await sheets.next();
    return {
      format,
      sheets: async function* () {
        if (first.done) return;
        yield first.value;
        for (let r = await sheets.next(); !r.done; r = await sheets.next()) yield r.value;
      },
    };
  }
  if (format === 'csv') return csvWorkbook(bytes);
  return { format, sheets: () => xlsSheets(bytes) };
}
