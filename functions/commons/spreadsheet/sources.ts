import ExcelJS from 'exceljs';
import { type Cell, cellValue } from './cell.ts';
import { FileProblem } from './file-problem.ts';
import type { ReadLimits } from './limits.ts';
import { workbookFeed } from './workbook-feed.ts';
import { inspectXlsx } from './zip-guard.ts';

export type SheetFormat = 'xlsx' | 'xls' | 'csv';

export interface RawRow {
  /** 1-based, as a spreadsheet program shows it. */
  row: number;
  cells: Cell[];
}

export interface SheetSource {
  name: string;
  /** The sheet's rows in order, a batch at a time: a promise per row costs more than reading the row. */
  batches: AsyncIterable<RawRow[]>;
}

export interface OpenedWorkbook {
  format: SheetFormat;
  /** Worksheets, to be consumed one after the other. */
  sheets(): AsyncIterable<SheetSource>;
}

const ZIP = Buffer.from('504b0304', 'hex');
const CFB = Buffer.from('d0cf11e0a1b11ae1', 'hex');
const ENCRYPTED_MARK = Buffer.from('EncryptedPackage', 'utf16le');

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
  const ext = /\.([a-z0-9]+)$/i.exec(fileName)?.[1]?.toLowerCase();
  if (bytes.subarray(0, 2).toString('latin1') === 'PK') {
    throw new FileProblem('corrupt', 'The file looks like a damaged zip/.xlsx file and cannot be opened.');
  }
  if (ext === 'csv' || ext === 'txt') return 'csv';
  if (ext === 'xlsx' || ext === 'xls') {
    throw new FileProblem(
      'unsupported_format',
      `The file is named .${ext} but holds text, not a spreadsheet. Rename it to .csv if it is comma- or semicolon-separated, or save it from your spreadsheet program as .xlsx.`,
    );
  }
  throw new FileProblem(
    'unsupported_format',
    'This is not a spreadsheet callsheet can read. Upload .xlsx, .xls or .csv.',
  );
}

async function* xlsxSheets(bytes: Buffer, limits: ReadLimits): AsyncIterable<SheetSource> {
  const inspection = await inspectXlsx(bytes, limits);
  const byPath = new Map(inspection.sheets.map((s) => [s.path, s.name]));
  const names = new Set(inspection.sheets.map((s) => s.name));
  const feed = workbookFeed(inspection.entries);
  const reader = new ExcelJS.stream.xlsx.WorkbookReader(feed.stream, {
    entries: 'emit',
    sharedStrings: 'cache',
    hyperlinks: 'ignore',
    styles: 'ignore',
    worksheets: 'emit',
  });
  // The typings omit that the reader is an EventEmitter; `entries: 'emit'` reports each part as it is taken.
  (reader as unknown as NodeJS.EventEmitter).on('entry', (e: { type: string }) => {
    if (e.type === 'worksheet') feed.worksheetTaken();
  });
  for await (const sheet of reader) {
    const ws = sheet as unknown as { id: string | number; name: string; parse(): AsyncIterable<SheetEvent[]> };
    // exceljs names a sheet only when the workbook's relationship target is relative; otherwise use ours.
    const name = names.has(ws.name) ? ws.name : (byPath.get(`xl/worksheets/sheet${ws.id}.xml`) ?? ws.name);
    yield { name, batches: rowBatches(ws.parse()) };
  }
}

/** What exceljs's WorksheetReader.parse() yields: its own row iterator unwraps these one promise per row. */
interface SheetEvent {
  eventType: string;
  value: { number: number; values: unknown[] };
}

async function* rowBatches(events: AsyncIterable<SheetEvent[]>): AsyncIterable<RawRow[]> {
  for await (const batch of events) {
    const rows: RawRow[] = [];
    for (const { eventType, value } of batch) {
      if (eventType !== 'row') continue;
      const values = value.values;
      const cells: Cell[] = [];
      // values[0] is always empty: exceljs counts columns from 1.
      for (let i = 1; i < values.length; i++) cells.push(cellValue(values[i]));
      rows.push({ row: value.number, cells });
    }
    if (rows.length > 0) yield rows;
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
  for (const name of wb.SheetNames) {
    const sheet = wb.Sheets[name];
    if (!sheet?.['!ref']) {
      yield { name, batches: (async function* () {})() };
      continue;
    }
    const first = XLSX.utils.decode_range(sheet['!ref']).s.r;
    const grid = XLSX.utils.sheet_to_json<Cell[]>(sheet, { header: 1, raw: true, blankrows: true, defval: null });
    yield {
      name,
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

/** RFC 4180 records, comma or semicolon, with quotes, doubled quotes and line breaks inside quotes. */
export function* csvRecords(text: string, delimiter: string): Generator<string[]> {
  let field = '';
  let record: string[] = [];
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (quoted) {
      if (ch === '"') {
        if (text[i + 1] === '"') {
          field += '"';
          i++;
        } else quoted = false;
      } else field += ch;
    } else if (ch === '"' && field === '') quoted = true;
    else if (ch === delimiter) {
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
  if (field !== '' || record.length > 0) {
    record.push(field);
    yield record;
  }
}

function csvSheets(bytes: Buffer): AsyncIterable<SheetSource> {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    throw new FileProblem(
      'not_utf8',
      'The CSV file is not UTF-8 text. Save it as "CSV UTF-8" in your spreadsheet program and upload it again.',
    );
  }
  const firstLine = text.slice(0, text.search(/\r?\n|$/));
  const delimiter = (firstLine.match(/;/g)?.length ?? 0) > (firstLine.match(/,/g)?.length ?? 0) ? ';' : ',';
  return (async function* () {
    yield {
      name: 'CSV',
      batches: inBatches(
        (function* () {
          let row = 0;
          for (const record of csvRecords(text, delimiter))
            yield { row: ++row, cells: record.map((f) => (f === '' ? null : f)) };
        })(),
      ),
    };
  })();
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
  return { format, sheets: () => (format === 'xls' ? xlsSheets(bytes) : csvSheets(bytes)) };
}
