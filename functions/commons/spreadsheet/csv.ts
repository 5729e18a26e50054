import { TextDecoder } from 'node:util';
import { HEADER_SEARCH_ROWS, headerKey, PHONE_HEADER, type RawRow } from './cell.ts';
import { FileProblem } from './file-problem.ts';
import { cellTooLong, inWords, MAX_CELL_CHARS, type ReadLimits } from './limits.ts';
import type { CsvSeparator, OpenedWorkbook } from './workbook.ts';
import { columnName } from './xlsx-writer.ts';

const QUOTE = 34;
const LF = 10;
const CR = 13;

const unterminatedQuote = (line: number) =>
  new FileProblem(
    'unterminated_quote',
    `The CSV file has a quote (") opened on line ${line} that is never closed, so every line after it would be read as one cell. Close the quote (or remove it) and upload the file again.`,
  );

/**
 * RFC 4180 records with quotes, doubled quotes and line breaks inside quotes, parsed a piece of text at a time, so
 * a file streams past and only the row being read is held. Bounded as it goes: a cell past Excel's 32,767
 * characters and a record past `maxRecordChars` are refused the moment they pass, naming where (a quote that is
 * never closed meets the cell limit long before the end of a large file). A quote still open at the end is refused,
 * naming the line it was opened on: read on, it would swallow every following row into one cell.
 */
export class CsvParser {
  private readonly separator: number;
  /** Completed cells of the record being read. */
  private fields: string[] = [];
  /** The cell being read, up to where the last piece of text ended. */
  private field = '';
  private quoted = false;
  /** The cell being read began with a quote, opened on `quoteLine`. */
  private fieldQuoted = false;
  private quoteLine = 0;
  private line = 1;
  private recordLine = 1;
  /** Characters of the record being read in earlier pieces. */
  private recordChars = 0;
  private rows = 0;
  /** The end of the last piece, kept for the next: a character whose meaning depends on the one after it. */
  private carry = '';

  constructor(
    separator: CsvSeparator,
    private readonly maxRecordChars: number,
    /** Each record, numbered from 1 as a spreadsheet program numbers the rows of the file. */
    private readonly emit: (row: number, fields: string[]) => void,
  ) {
    this.separator = separator.charCodeAt(0);
  }

  write(text: string): void {
    this.run(this.carry === '' ? text : this.carry + text, false);
  }

  end(): void {
    this.run(this.carry, true);
    if (this.quoted) throw unterminatedQuote(this.quoteLine);
    if (this.field !== '' || this.fields.length > 0) {
      this.endField('');
      this.endRecord();
    }
  }

  private run(s: string, final: boolean): void {
    this.carry = '';
    const separator = this.separator;
    const n = s.length;
    // The current cell's text not yet added to `field`, and the current record's text, start here in `s`.
    let start = 0;
    let recordStart = 0;
    let i = 0;
    for (; i < n; i++) {
      const c = s.charCodeAt(i);
      // Most characters mean nothing here: one comparison lets them pass.
      if (c > QUOTE && c !== separator) continue;
      if (this.quoted) {
        if (c === QUOTE) {
          if (i + 1 >= n && !final) break; // a doubled quote may be cut between pieces
          if (s.charCodeAt(i + 1) === QUOTE) {
            this.field += s.slice(start, i + 1); // one quote kept
            i++;
          } else {
            this.field += s.slice(start, i);
            this.quoted = false;
          }
          start = i + 1;
        } else if (c === LF) this.line++;
        else if (c === CR) {
          if (i + 1 >= n && !final) break; // CR LF may be cut between pieces
          if (s.charCodeAt(i + 1) !== LF) this.line++;
        }
        continue;
      }
      if (c === QUOTE) {
        if (start === i && this.field === '') {
          this.quoted = this.fieldQuoted = true;
          this.quoteLine = this.line;
          start = i + 1;
        }
        continue;
      }
      if (c === separator) {
        this.endField(s.slice(start, i));
        start = i + 1;
        continue;
      }
      if (c === LF || c === CR) {
        if (c === CR && i + 1 >= n && !final) break;
        this.endField(s.slice(start, i));
        if (c === CR && s.charCodeAt(i + 1) === LF) i++;
        this.line++;
        this.checkRecord(this.recordChars + (i + 1 - recordStart));
        this.endRecord();
        start = recordStart = i + 1;
      }
    }
    if (i > start) this.field += s.slice(start, i);
    this.recordChars += i - recordStart;
    this.carry = i < n ? s.slice(i) : '';
    this.checkCell(this.field);
    this.checkRecord(this.recordChars);
  }

  private endField(rest: string): void {
    const value = this.field === '' ? rest : this.field + rest;
    this.checkCell(value);
    this.fields.push(value);
    this.field = '';
    this.fieldQuoted = false;
  }

  private endRecord(): void {
    this.rows++;
    const fields = this.fields;
    this.fields = [];
    this.recordLine = this.line;
    this.recordChars = 0;
    this.emit(this.rows, fields);
  }

  private checkCell(value: string): void {
    if (value.length <= MAX_CELL_CHARS) return;
    const row = this.rows + 1;
    const at = this.recordLine === row ? '' : ` (the row starting on line ${this.recordLine})`;
    const cell = `Cell ${columnName(this.fields.length)}${row} of the CSV file${at}`;
    throw this.fieldQuoted
      ? cellTooLong(
          cell,
          ` It starts with a quote (") on line ${this.quoteLine}, and everything up to the next quote is one cell: close the quote where the cell should end (or remove it) and upload the file again.`,
        )
      : cellTooLong(cell);
  }

  private checkRecord(chars: number): void {
    if (chars <= this.maxRecordChars) return;
    throw new FileProblem(
      'line_too_long',
      `Row ${this.rows + 1} of the CSV file (from line ${this.recordLine}) is longer than ${inWords(this.maxRecordChars)} characters, far more than a row of contacts needs, so the file was not read. Check that row (a missing line break, or text pasted many times over) and upload the file again.`,
    );
  }
}

const SEPARATORS: CsvSeparator[] = [',', ';', '\t'];
export const SEPARATOR_NAME: Record<CsvSeparator, string> = { ',': 'comma', ';': 'semicolon', '\t': 'tab' };

/** The separator is decided from the first lines of the file: this many, or as many as fit in DETECT_CHARS. */
const DETECT_LINES = HEADER_SEARCH_ROWS + 1;
const DETECT_CHARS = 1 << 20;
const STOP = Symbol('enough rows');

/**
 * The separator under which one of the first rows has a `Phone Number` cell (title rows may come first); failing
 * that, the one the first non-blank line uses most, so the answer can say how the file was read.
 */
function csvSeparator(prefix: string, whole: boolean, limits: ReadLimits): CsvSeparator {
  for (const sep of SEPARATORS) {
    let rows = 0;
    let found = false;
    const parser = new CsvParser(sep, limits.maxRecordChars, (_, fields) => {
      found = fields.some((f) => headerKey(f) === PHONE_HEADER);
      if (found || ++rows >= HEADER_SEARCH_ROWS) throw STOP;
    });
    try {
      parser.write(prefix);
      if (whole) parser.end();
    } catch (err) {
      // A quote never closed, or a cell or row too long, is reported when the rows are read.
      if (err !== STOP && !(err instanceof FileProblem)) throw err;
    }
    if (found) return sep;
  }
  const firstLine = prefix.split(/\r?\n|\r/).find((l) => l.trim() !== '') ?? '';
  const count = (sep: string) => firstLine.split(sep).length - 1;
  return SEPARATORS.reduce((best, sep) => (count(sep) > count(best) ? sep : best), ',');
}

const UTF16LE_BOM = (b: Buffer) => b[0] === 0xff && b[1] === 0xfe;
const UTF16BE_BOM = (b: Buffer) => b[0] === 0xfe && b[1] === 0xff;

/** UTF-8, or UTF-16 after its byte order mark (the mark itself is dropped), decoded a piece at a time. */
class TextPieces {
  private readonly decoder: TextDecoder;

  constructor(head: Buffer) {
    const encoding = UTF16LE_BOM(head) ? 'utf-16le' : UTF16BE_BOM(head) ? 'utf-16be' : 'utf-8';
    this.decoder = new TextDecoder(encoding, { fatal: true });
  }

  /** The text of `bytes`; with none, whatever an unfinished character at the end leaves (an error if anything). */
  decode(bytes?: Buffer): string {
    try {
      return this.decoder.decode(bytes, { stream: bytes !== undefined });
    } catch {
      throw new FileProblem(
        'not_utf8',
        'The CSV file is not UTF-8 text. Save it as "CSV UTF-8" in your spreadsheet program and upload it again.',
      );
    }
  }
}

/**
 * A CSV file read as it streams past: `head` (the bytes its format was told by), then `rest`. Only the first lines
 * are held, to choose the separator; then each piece is parsed as it arrives and its rows handed on.
 */
export async function csvWorkbook(
  head: Buffer,
  rest: AsyncIterator<Buffer>,
  limits: ReadLimits,
): Promise<OpenedWorkbook> {
  const text = new TextPieces(head);
  let prefix = text.decode(head);
  let lines = 0;
  const countLines = (s: string) => {
    for (let at = s.indexOf('\n'); at >= 0; at = s.indexOf('\n', at + 1)) lines++;
  };
  countLines(prefix);
  let whole = false;
  while (lines < DETECT_LINES && prefix.length < DETECT_CHARS) {
    const next = await rest.next();
    if (next.done) {
      prefix += text.decode();
      whole = true;
      break;
    }
    const piece = text.decode(next.value);
    countLines(piece);
    prefix += piece;
  }
  const separator = csvSeparator(prefix, whole, limits);
  return {
    format: 'csv',
    separator,
    sheets: async function* () {
      let batch: RawRow[] = [];
      const parser = new CsvParser(separator, limits.maxRecordChars, (row, fields) => {
        batch.push({ row, cells: fields.map((f) => (f === '' ? null : f)) });
      });
      const rows = async function* (): AsyncIterable<RawRow[]> {
        try {
          parser.write(prefix);
          prefix = '';
          for (;;) {
            if (batch.length > 0) {
              yield batch;
              batch = [];
            }
            if (whole) break;
            const next = await rest.next();
            if (next.done) {
              parser.write(text.decode());
              whole = true;
            } else parser.write(text.decode(next.value));
          }
          parser.end();
          if (batch.length > 0) yield batch;
        } finally {
          // Left early (a refusal, or no header in the first rows): the rest is not read, and its source is closed.
          if (!whole) await rest.return?.();
        }
      };
      yield { name: 'CSV', state: 'visible', batches: rows() };
    },
  };
}
