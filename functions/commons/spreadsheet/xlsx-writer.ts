import { once } from 'node:events';
import { promisify } from 'node:util';
import { crc32, createDeflateRaw, type DeflateRaw, deflateRaw, deflateRawSync } from 'node:zlib';

const deflateRawOnce = promisify(deflateRaw);

/**
 * Characters XML 1.0 cannot carry (C0 controls other than tab and line feed, U+FFFE, U+FFFF, lone surrogates), a
 * carriage return (a parser would turn it into a line feed), DEL (exceljs drops it), and an underscore that would
 * otherwise read as the start of such an escape. Each is written as Excel writes it, `_xHHHH_` (ECMA-376 ST_Xstring),
 * so Excel, LibreOffice and SheetJS show the original character and any XML parser accepts the part.
 */
const NEEDS_ESCAPE =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
  /[\0-\x08\x0B-\x1F\x7F\uFFFE\uFFFF&<>]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]|_(?=x[0-9A-Fa-f]{4}_)/;
const ESCAPES = new RegExp(NEEDS_ESCAPE.source, 'g');

function escapeOne(ch: string): string {
  if (ch === '&') return '&amp;';
  if (ch === '<') return '&lt;';
  if (ch === '>') return '&gt;';
  return `_x${(ch.charCodeAt(0) as number).toString(16).toUpperCase().padStart(4, '0')}_`;
}

/**
 * Whether the text is printable ASCII other than & < > _ (plus tab and line feed): the usual cell, which needs no
 * escaping. A loop, not a regular expression: this runs for every cell written, and V8 ran the pattern slower.
 */
function plain(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x20 ? c !== 9 && c !== 10 : c > 0x7e || c === 0x26 || c === 0x3c || c === 0x3e || c === 0x5f) return false;
  }
  return true;
}

/** Text as the content of a `<t>` element: markup escaped, characters XML cannot carry as `_xHHHH_`. */
export function xmlText(text: string): string {
  return plain(text) || !NEEDS_ESCAPE.test(text) ? text : text.replace(ESCAPES, escapeOne);
}

const columnNames: string[] = [];

/** A column's letters (0 → A, 16383 → XFD). */
export function columnName(index: number): string {
  let name = columnNames[index];
  if (name === undefined) {
    name = '';
    for (let n = index + 1; n > 0; n = Math.floor((n - 1) / 26)) name = String.fromCharCode(65 + ((n - 1) % 26)) + name;
    columnNames[index] = name;
  }
  return name;
}

/** Excel refuses to open (offers to repair) a cell longer than this; a CSV field can be, so it is cut. */
export const MAX_CELL_CHARS = 32_767;

const isSpace = (code: number) => code === 32 || code === 9 || code === 10 || code === 13;

const cellOpen: string[] = [];

/** `<c r="AB`: the start of every cell in a column, made once per column (cells are written about a million times). */
function openCell(column: number): string {
  let open = cellOpen[column];
  if (open === undefined) {
    open = `<c r="${columnName(column)}`;
    cellOpen[column] = open;
  }
  return open;
}

/**
 * A row's share of each of its cells' XML (its number and the inline-string opening), made once per row: cell
 * writing runs about a million times for a 100,000-row annotated sheet, and number-to-text was a good part of it.
 */
export const rowRef = (row: number): string => `${row}" t="inlineStr"><is><t`;

/**
 * One text cell as worksheet XML. Always an inline string, never a formula or a number, so text starting with =, +,
 * - or @ stays text in any program that opens the file. Empty text writes no cell.
 */
export function textCell(column: number, ref: string, text: string): string {
  return escapedCell(column, ref, xmlText(text.length > MAX_CELL_CHARS ? text.slice(0, MAX_CELL_CHARS) : text));
}

/** `textCell` for text already passed through `xmlText`. */
export function escapedCell(column: number, ref: string, escaped: string): string {
  if (escaped === '') return '';
  // Escaping leaves leading and trailing spaces, tabs and line feeds as they were.
  const preserve = isSpace(escaped.charCodeAt(0)) || isSpace(escaped.charCodeAt(escaped.length - 1));
  return `${openCell(column)}${ref}${preserve ? ' xml:space="preserve">' : '>'}${escaped}</t></is></c>`;
}

/** One number cell as worksheet XML; a value that is not a finite number writes no cell. */
export function numberCell(column: number, row: number, value: number): string {
  return Number.isFinite(value) ? `<c r="${columnName(column)}${row}"><v>${value}</v></c>` : '';
}

/**
 * One cell showing the shared string at `index` (from `XlsxWriter.share`): for a value repeated on many rows, a
 * fraction of the bytes of an inline string, so less to build and to deflate.
 */
export function sharedCell(column: number, row: number, index: number): string {
  return `${openCell(column)}${row}" t="s"><v>${index}</v></c>`;
}

/** A header row: text cells in the bold style (STYLES' second cell format). */
export function headerRow(row: number, cells: readonly string[]): string {
  let xml = `<row r="${row}">`;
  for (let i = 0; i < cells.length; i++) {
    const text = xmlText(cells[i] as string);
    if (text !== '') xml += `<c r="${columnName(i)}${row}" s="1" t="inlineStr"><is><t>${text}</t></is></c>`;
  }
  return `${xml}</row>`;
}

/** A whole row of text cells from column A. */
export function textRow(row: number, cells: readonly string[]): string {
  const ref = rowRef(row);
  let xml = `<row r="${row}">`;
  for (let i = 0; i < cells.length; i++) xml += textCell(i, ref, cells[i] as string);
  return `${xml}</row>`;
}

const XML_HEAD = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n';
const MAIN_NS = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';
const REL_NS = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
const PKG_REL_NS = 'http://schemas.openxmlformats.org/package/2006/relationships';
const STYLES = `${XML_HEAD}<styleSheet xmlns="${MAIN_NS}"><fonts count="2"><font><sz val="11"/><name val="Calibri"/></font><font><b/><sz val="11"/><name val="Calibri"/></font></fonts><fills count="2"><fill><patternFill patternType="none"/></fill><fill><patternFill patternType="gray125"/></fill></fills><borders count="1"><border><left/><right/><top/><bottom/><diagonal/></border></borders><cellStyleXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0"/></cellStyleXfs><cellXfs count="2"><xf numFmtId="0" fontId="0" fillId="0" borderId="0" xfId="0"/><xf numFmtId="0" fontId="1" fillId="0" borderId="0" xfId="0" applyFont="1"/></cellXfs><cellStyles count="1"><cellStyle name="Normal" xfId="0" builtinId="0"/></cellStyles></styleSheet>`;

interface ZipEntry {
  name: string;
  /** 0 stored, 8 deflated. */
  method: 0 | 8;
  crc: number;
  size: number;
  data: Buffer[];
  compressedSize: number;
}

/**
 * Sheet XML is handed to zlib in pieces of about this many characters: it never exists whole, and the text of a
 * piece dies young (1 MB pieces were slower: their strings outlived minor GCs).
 */
const CHUNK_CHARS = 64 << 10;
/**
 * Pieces go to zlib in writes of about this many bytes. Each write is a round trip to zlib's thread that advances
 * only when the writer yields; written a 64 KB piece at a time, zlib fell behind the rows and the writer sat idle
 * waiting for it (20 to 60 ms per 100,000-row sheet). A 256 KB write is deflated while the next pieces are made.
 */
const ZLIB_WRITE_BYTES = 256 << 10;
/** Deflated in the background until this much waits for zlib; then the writer waits (more only adds to peak RSS). */
const MAX_QUEUED_BYTES = 2 << 20;
const LEVEL = 1;
/**
 * A sheet written whole (never flushed) up to this size is deflated in one synchronous call: a 1000-row part takes
 * about 0.25 ms. Handed to zlib's thread, each part cost the main thread about 0.17 ms in stream set-up and callbacks
 * besides, and 100 parts made intake's whole path 35-45 ms slower. A larger sheet goes to zlib's thread, so the
 * event loop is not held for long.
 */
const SYNC_DEFLATE_BYTES = 1 << 20;

/** How a sheet opens: rows kept in view while scrolling, and column widths (in characters) from column A. */
export interface SheetLayout {
  frozenRows?: number;
  columnWidths?: readonly number[];
}

/** The elements before `<sheetData>`, in the order the schema (CT_Worksheet) wants them. */
function layoutXml({ frozenRows = 0, columnWidths = [] }: SheetLayout): string {
  let xml = '';
  if (frozenRows > 0)
    xml += `<sheetViews><sheetView workbookViewId="0"><pane ySplit="${frozenRows}" topLeftCell="A${frozenRows + 1}" activePane="bottomLeft" state="frozen"/></sheetView></sheetViews>`;
  if (columnWidths.length > 0)
    xml += `<cols>${columnWidths.map((w, i) => `<col min="${i + 1}" max="${i + 1}" width="${w}" customWidth="1"/>`).join('')}</cols>`;
  return xml;
}

/**
 * Worksheet XML on its way into the zip: rows are appended as text, and once a sheet outgrows one piece it is
 * deflated in zlib's thread pool while the caller builds the next rows. A small sheet (a campaign part) is
 * deflated in one call when it ends (see SYNC_DEFLATE_BYTES).
 */
export class SheetStream {
  private pending = '';
  private crc = 0;
  private size = 0;
  private readonly out: Buffer[] = [];
  private deflate: DeflateRaw | null = null;
  /** Pieces converted but not yet handed to zlib (see ZLIB_WRITE_BYTES). */
  private batch: Buffer[] = [];
  private batchBytes = 0;

  constructor(
    readonly name: string,
    layout: SheetLayout = {},
  ) {
    this.pending = `${XML_HEAD}<worksheet xmlns="${MAIN_NS}">${layoutXml(layout)}<sheetData>`;
  }

  /** Appends row XML (from `textRow`, or built from `textCell`s). */
  write(xml: string): void {
    this.pending += xml;
  }

  /** Whether enough is pending that the caller should `await flush()` before writing more. */
  get full(): boolean {
    return this.pending.length >= CHUNK_CHARS;
  }

  private take(): Buffer {
    const buf = Buffer.from(this.pending, 'utf8');
    this.pending = '';
    this.crc = crc32(buf, this.crc);
    this.size += buf.length;
    return buf;
  }

  /** Hands what is pending on towards zlib; `final` (the sheet's last piece) sends everything held. */
  async flush(final = false): Promise<void> {
    if (this.pending === '') return;
    if (!this.deflate) {
      const deflate = createDeflateRaw({ level: LEVEL, chunkSize: 256 << 10 });
      deflate.on('data', (c: Buffer) => this.out.push(c));
      this.deflate = deflate;
    }
    const piece = this.take();
    this.batch.push(piece);
    this.batchBytes += piece.length;
    if (this.batchBytes >= ZLIB_WRITE_BYTES || final) {
      this.deflate.write(this.batch.length === 1 ? piece : Buffer.concat(this.batch));
      this.batch = [];
      this.batchBytes = 0;
    }
    if (this.deflate.writableLength > MAX_QUEUED_BYTES) await once(this.deflate, 'drain');
    // Otherwise one turn of the event loop, so zlib's finished piece is collected and its next one started while
    // the caller makes more rows: without it, zlib only ever ran while the writer waited for it to drain.
    else await new Promise(setImmediate);
  }

  async end(): Promise<ZipEntry> {
    this.pending += '</sheetData></worksheet>';
    const deflate = this.deflate;
    if (deflate) {
      await this.flush(true);
      const done = once(deflate, 'end');
      deflate.end();
      await done;
    } else {
      const xml = this.take();
      this.out.push(
        xml.length <= SYNC_DEFLATE_BYTES
          ? deflateRawSync(xml, { level: LEVEL })
          : await deflateRawOnce(xml, { level: LEVEL }),
      );
    }
    const compressedSize = this.out.reduce((n, b) => n + b.length, 0);
    return { name: '', method: 8, crc: this.crc, size: this.size, data: this.out, compressedSize };
  }
}

/** The shared string table, deflated (its texts are the reasons and zones of a whole sheet). */
function sharedStringsEntry(escaped: readonly string[]): ZipEntry {
  // `count` (the total number of references) is optional; `uniqueCount` is the table's size.
  let xml = `${XML_HEAD}<sst xmlns="${MAIN_NS}" uniqueCount="${escaped.length}">`;
  for (const t of escaped) xml += `<si><t xml:space="preserve">${t}</t></si>`;
  const buf = Buffer.from(`${xml}</sst>`, 'utf8');
  const data = deflateRawSync(buf, { level: LEVEL });
  return {
    name: 'xl/sharedStrings.xml',
    method: 8,
    crc: crc32(buf),
    size: buf.length,
    data: [data],
    compressedSize: data.length,
  };
}

function stored(name: string, text: string): ZipEntry {
  const buf = Buffer.from(text, 'utf8');
  return { name, method: 0, crc: crc32(buf), size: buf.length, data: [buf], compressedSize: buf.length };
}

const escapeAttr = (s: string) => xmlText(s).replaceAll('"', '&quot;');

/**
 * A minimal .xlsx (SpreadsheetML) writer: text and number cells (inline, or shared for values repeated down a sheet), a plain and a bold style. exceljs's writer
 * spends most of its time on its cell model; a contact sheet needs none of it.
 */
export class XlsxWriter {
  private readonly sheets: { name: string; entry: ZipEntry }[] = [];
  /** The shared string table, as escaped `<t>` contents, and each text's index in it. */
  private readonly shared: string[] = [];
  private readonly sharedIndex = new Map<string, number>();

  /** The shared-string index of this text (added on first use), for `sharedCell`. */
  share(text: string): number {
    let i = this.sharedIndex.get(text);
    if (i === undefined) {
      i = this.shared.length;
      this.shared.push(xmlText(text.length > MAX_CELL_CHARS ? text.slice(0, MAX_CELL_CHARS) : text));
      this.sharedIndex.set(text, i);
    }
    return i;
  }

  sheet(name: string, layout?: SheetLayout): SheetStream {
    return new SheetStream(name, layout);
  }

  /** Adds a finished sheet, in tab order. */
  async add(sheet: SheetStream): Promise<void> {
    const entry = await sheet.end();
    entry.name = `xl/worksheets/sheet${this.sheets.length + 1}.xml`;
    this.sheets.push({ name: sheet.name, entry });
  }

  finish(): Buffer {
    const n = this.sheets.length;
    const hasShared = this.shared.length > 0;
    const sheetOverrides = this.sheets
      .map(
        (_, i) =>
          `<Override PartName="/xl/worksheets/sheet${i + 1}.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>`,
      )
      .join('');
    const entries: ZipEntry[] = [
      stored(
        '[Content_Types].xml',
        `${XML_HEAD}<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/><Override PartName="/xl/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.styles+xml"/>${sheetOverrides}${hasShared ? '<Override PartName="/xl/sharedStrings.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sharedStrings+xml"/>' : ''}</Types>`,
      ),
      stored(
        '_rels/.rels',
        `${XML_HEAD}<Relationships xmlns="${PKG_REL_NS}"><Relationship Id="rId1" Type="${REL_NS}/officeDocument" Target="xl/workbook.xml"/></Relationships>`,
      ),
      stored(
        'xl/workbook.xml',
        `${XML_HEAD}<workbook xmlns="${MAIN_NS}" xmlns:r="${REL_NS}"><sheets>${this.sheets
          .map((s, i) => `<sheet name="${escapeAttr(s.name)}" sheetId="${i + 1}" r:id="rId${i + 1}"/>`)
          .join('')}</sheets></workbook>`,
      ),
      stored(
        'xl/_rels/workbook.xml.rels',
        `${XML_HEAD}<Relationships xmlns="${PKG_REL_NS}">${this.sheets
          .map(
            (_, i) =>
              `<Relationship Id="rId${i + 1}" Type="${REL_NS}/worksheet" Target="worksheets/sheet${i + 1}.xml"/>`,
          )
          .join('')}<Relationship Id="rId${n + 1}" Type="${REL_NS}/styles" Target="styles.xml"/>${
          hasShared ? `<Relationship Id="rId${n + 2}" Type="${REL_NS}/sharedStrings" Target="sharedStrings.xml"/>` : ''
        }</Relationships>`,
      ),
      stored('xl/styles.xml', STYLES),
      ...(hasShared ? [sharedStringsEntry(this.shared)] : []),
      ...this.sheets.map((s) => s.entry),
    ];
    return zipArchive(entries);
  }
}

/** DOS date 1980-01-01 00:00: the archive's bytes depend only on its content. */
const DOS_DATE = 0x21;

function zipArchive(entries: ZipEntry[]): Buffer {
  const out: Buffer[] = [];
  const central: Buffer[] = [];
  let offset = 0;
  for (const e of entries) {
    const name = Buffer.from(e.name, 'utf8');
    const { method } = e;
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0x0800, 6); // names are UTF-8
    local.writeUInt16LE(method, 8);
    local.writeUInt16LE(0, 10);
    local.writeUInt16LE(DOS_DATE, 12);
    local.writeUInt32LE(e.crc >>> 0, 14);
    local.writeUInt32LE(e.compressedSize, 18);
    local.writeUInt32LE(e.size, 22);
    local.writeUInt16LE(name.length, 26);
    const dir = Buffer.alloc(46);
    dir.writeUInt32LE(0x02014b50, 0);
    dir.writeUInt16LE(20, 4);
    dir.writeUInt16LE(20, 6);
    dir.writeUInt16LE(0x0800, 8);
    dir.writeUInt16LE(method, 10);
    dir.writeUInt16LE(DOS_DATE, 14);
    dir.writeUInt32LE(e.crc >>> 0, 16);
    dir.writeUInt32LE(e.compressedSize, 20);
    dir.writeUInt32LE(e.size, 24);
    dir.writeUInt16LE(name.length, 28);
    dir.writeUInt32LE(offset, 42);
    central.push(dir, name);
    out.push(local, name);
    for (const chunk of e.data) out.push(chunk);
    offset += 30 + name.length + e.compressedSize;
  }
  const dirSize = central.reduce((n, b) => n + b.length, 0);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(dirSize, 12);
  end.writeUInt32LE(offset, 16);
  for (const b of central) out.push(b);
  out.push(end);
  return Buffer.concat(out);
}
