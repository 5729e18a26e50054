import { type ByteSource, boundedChunks, bytesSource, readAll } from './byte-source.ts';
import type { Cell } from './cell.ts';
import { csvWorkbook } from './csv.ts';
import { FileProblem } from './file-problem.ts';
import { cellTooLong, fileTooLarge, MAX_CELL_CHARS, type ReadLimits } from './limits.ts';
import { inBatches, type OpenedWorkbook, type SheetFormat, type SheetSource } from './workbook.ts';
import { readPackage, type SheetState } from './xlsx-package.ts';
import { readSharedStrings, type SharedStrings } from './xlsx-shared-strings.ts';
import { worksheetRows } from './xlsx-worksheet.ts';
import { columnName } from './xlsx-writer.ts';
import { inspectXlsx } from './zip-guard.ts';

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
            yield* worksheetRows(part, await sharedStrings(), sheet.name);
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
    const rows = grid.map((cells, i) => ({ row: first + i + 1, cells: cells ?? [] }));
    for (const r of rows)
      for (const [column, c] of r.cells.entries())
        if (typeof c === 'string' && c.length > MAX_CELL_CHARS)
          throw cellTooLong(`Cell ${columnName(column)}${r.row} of the sheet "${name}"`);
    yield { name, state, batches: inBatches(rows) };
  }
}

/** Bytes read to tell the format by (the first 4 KB are all `detectFormat` looks at). */
const HEAD_BYTES = 4096;

/**
 * Opens an upload in memory or as a stream. Its size is checked first when known, and its bytes are counted as
 * they arrive whatever was claimed. A CSV is parsed as it streams; a zip (.xlsx) or compound file (.xls) is read at
 * random, so it is gathered whole (within `maxFileBytes`) and, for .xlsx, checked entry by entry before any parsing.
 */
export async function openWorkbook(
  input: Buffer | ByteSource,
  fileName: string,
  limits: ReadLimits,
): Promise<OpenedWorkbook> {
  const source = Buffer.isBuffer(input) ? bytesSource(input) : input;
  if (source.size !== null && source.size > limits.maxFileBytes) throw fileTooLarge(source.size, limits);
  const chunks = boundedChunks(source, limits.maxFileBytes);
  const first: Buffer[] = [];
  let head: Buffer;
  let format: SheetFormat;
  try {
    let read = 0;
    while (read < HEAD_BYTES) {
      const next = await chunks.next();
      if (next.done) break;
      first.push(next.value);
      read += next.value.length;
    }
    head = first.length === 1 ? (first[0] as Buffer) : Buffer.concat(first);
    format = detectFormat(head, fileName);
    if (format !== 'csv' && Buffer.isBuffer(input)) await chunks.return(undefined);
  } catch (err) {
    await chunks.return(undefined);
    throw err;
  }
  if (format === 'csv')
    try {
      return await csvWorkbook(head, chunks, limits);
    } catch (err) {
      await chunks.return(undefined);
      throw err;
    }
  const bytes = Buffer.isBuffer(input) ? input : await readAll(first, chunks, source.size);
  if (format === 'xlsx') {
    // Inspect before the first sheet is handed out, so a hostile file fails before any parsing.
    const sheets = xlsxSheets(bytes, limits)[Symbol.asyncIterator]();
    const firstSheet = await sheets.next();
    return {
      format,
      sheets: async function* () {
        if (firstSheet.done) return;
        yield firstSheet.value;
        for (let r = await sheets.next(); !r.done; r = await sheets.next()) yield r.value;
      },
    };
  }
  // Told by its first bytes; a password is found only in the whole file.
  detectFormat(bytes, fileName);
  return { format, sheets: () => xlsSheets(bytes) };
}
