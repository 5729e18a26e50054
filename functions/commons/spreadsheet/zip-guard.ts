import { createInflateRaw, inflateRawSync } from 'node:zlib';
import yauzl from 'yauzl';
import { FileProblem } from './file-problem.ts';
import type { ReadLimits } from './limits.ts';

export interface WorkbookSheet {
  name: string;
  /** Zip path of the sheet's XML, e.g. `xl/worksheets/sheet2.xml`. */
  path: string;
}

/** One checked zip entry: its header facts and its compressed bytes (a view into the upload, not a copy). */
export interface CheckedEntry {
  fileName: string;
  compressionMethod: number;
  crc32: number;
  compressedSize: number;
  uncompressedSize: number;
  data: Buffer;
}

export interface XlsxInspection {
  /** Worksheets in tab order. */
  sheets: WorkbookSheet[];
  /** Every entry, in archive order, after its real size was checked. */
  entries: CheckedEntry[];
}

const SMALL_PARTS = new Set(['xl/workbook.xml', 'xl/_rels/workbook.xml.rels', 'mimetype']);

const bomb = (msg: string) =>
  new FileProblem('zip_bomb', `This file inflates far beyond a contact sheet (${msg}); it was not opened.`);

/** Central-directory entries, read without inflating anything. */
function listEntries(bytes: Buffer): Promise<yauzl.Entry[]> {
  return new Promise((resolve, reject) => {
    const damaged = (err: Error | null | undefined) =>
      new FileProblem('corrupt', `The file is damaged or truncated and cannot be opened as .xlsx (${err?.message}).`);
    yauzl.fromBuffer(bytes, { lazyEntries: true }, (err, zip) => {
      if (err || !zip) {
        reject(damaged(err));
        return;
      }
      const entries: yauzl.Entry[] = [];
      zip.on('error', (e: Error) => reject(damaged(e)));
      zip.on('entry', (entry: yauzl.Entry) => {
        entries.push(entry);
        zip.readEntry();
      });
      zip.on('end', () => resolve(entries));
      zip.readEntry();
    });
  });
}

const LOCAL_HEADER = 0x04034b50;
const STORED = 0;
const DEFLATED = 8;
/** Large output chunks: inflating a 20 MB sheet in 16 KB steps costs several times the inflate itself. */
const INFLATE_CHUNK = 256 * 1024;

/** The entry's compressed bytes, located through its local header (whose own lengths may differ from the central one's). */
function compressedData(bytes: Buffer, entry: yauzl.Entry): Buffer {
  const at = entry.relativeOffsetOfLocalHeader;
  const damaged = new FileProblem('corrupt', `The file is damaged or truncated: ${entry.fileName} cannot be read.`);
  if (at + 30 > bytes.length || bytes.readUInt32LE(at) !== LOCAL_HEADER) throw damaged;
  const start = at + 30 + bytes.readUInt16LE(at + 26) + bytes.readUInt16LE(at + 28);
  if (start + entry.compressedSize > bytes.length) throw damaged;
  return bytes.subarray(start, start + entry.compressedSize);
}

/**
 * Entries that may inflate to at most this much are inflated in one synchronous call, which then holds at most this
 * much memory: a workbook's dozen small parts would otherwise each wait a turn of the thread pool.
 */
const SYNC_INFLATE_BOUND = 4 * 1024 * 1024;

function inflateSmall(data: Buffer, name: string, limit: number, keep: boolean): Buffer | number {
  try {
    const out = inflateRawSync(data, { maxOutputLength: Math.max(1, limit) });
    return keep ? out : out.length;
  } catch (e) {
    if ((e as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE')
      throw bomb(`${name} inflates past what its size allows`);
    throw new FileProblem('corrupt', `The file is damaged: ${(e as Error).message}.`);
  }
}

/**
 * Inflates one entry only to count it (keeping it when asked), and gives up the moment it passes `limit`: a crafted
 * file's headers can lie, so the real size is the only one trusted. Memory stays at one output chunk.
 */
function inflateCounted(data: Buffer, name: string, limit: number, keep: boolean): Promise<Buffer | number> {
  return new Promise((resolve, reject) => {
    const inflate = createInflateRaw({ chunkSize: INFLATE_CHUNK });
    const chunks: Buffer[] = [];
    let inflated = 0;
    inflate.on('data', (chunk: Buffer) => {
      inflated += chunk.length;
      if (inflated > limit) {
        inflate.destroy();
        reject(bomb(`${name} inflates past what its size allows`));
        return;
      }
      if (keep) chunks.push(chunk);
    });
    inflate.on('error', (e: Error) => reject(new FileProblem('corrupt', `The file is damaged: ${e.message}.`)));
    inflate.on('end', () => resolve(keep ? Buffer.concat(chunks) : inflated));
    inflate.end(data);
  });
}

/**
 * Checks an .xlsx before any parser sees it: declared and actual inflated sizes, per-entry inflate ratio (the
 * headers of a crafted file can lie, so every entry is inflated here with a running count and abandoned the moment
 * it passes a bound), and reads the workbook's sheet list.
 */
export async function inspectXlsx(bytes: Buffer, limits: ReadLimits): Promise<XlsxInspection> {
  const entries = await listEntries(bytes);
  const small = new Map<string, string>();
  const checked: CheckedEntry[] = [];
  let total = 0;
  for (const entry of entries) {
    if ((entry.generalPurposeBitFlag & 0x1) !== 0) {
      throw new FileProblem(
        'encrypted',
        'The file is password-protected. Remove the password in your spreadsheet program and upload it again.',
      );
    }
    if (total + entry.uncompressedSize > limits.maxUncompressedBytes)
      throw bomb(`it declares more than ${limits.maxUncompressedBytes} bytes`);
    const ratioLimit = Math.max(limits.ratioFloorBytes, entry.compressedSize * limits.maxInflateRatio);
    if (entry.uncompressedSize > ratioLimit) {
      throw bomb(
        `${entry.fileName} declares a ${Math.round(entry.uncompressedSize / Math.max(1, entry.compressedSize))}:1 inflate ratio`,
      );
    }
    const data = compressedData(bytes, entry);
    const keep = SMALL_PARTS.has(entry.fileName);
    let content: Buffer | number;
    if (entry.compressionMethod === STORED) content = keep ? data : data.length;
    else if (entry.compressionMethod === DEFLATED) {
      const limit = Math.min(ratioLimit, limits.maxUncompressedBytes - total);
      content =
        limit <= SYNC_INFLATE_BOUND
          ? inflateSmall(data, entry.fileName, limit, keep)
          : await inflateCounted(data, entry.fileName, limit, keep);
    } else
      throw new FileProblem(
        'corrupt',
        `The file is damaged: ${entry.fileName} uses a compression method spreadsheet programs do not write.`,
      );
    const size = typeof content === 'number' ? content : content.length;
    if (size > entry.uncompressedSize) throw bomb(`${entry.fileName} is larger than its header says`);
    if (size < entry.uncompressedSize)
      throw new FileProblem('corrupt', `The file is damaged: ${entry.fileName} is shorter than its header says.`);
    total += size;
    if (typeof content !== 'number') small.set(entry.fileName, content.toString('utf8'));
    checked.push({
      fileName: entry.fileName,
      compressionMethod: entry.compressionMethod,
      crc32: entry.crc32,
      compressedSize: entry.compressedSize,
      uncompressedSize: entry.uncompressedSize,
      data,
    });
  }

  if (small.get('mimetype')?.includes('opendocument')) {
    throw new FileProblem(
      'unsupported_format',
      'This is an OpenDocument spreadsheet (.ods). Save it as .xlsx (Excel) or .csv and upload it again.',
    );
  }
  const workbook = small.get('xl/workbook.xml');
  const rels = small.get('xl/_rels/workbook.xml.rels');
  if (!workbook || !rels) {
    throw new FileProblem(
      'unsupported_format',
      'This zip file is not an Excel workbook (.xlsx). Save the sheet as .xlsx or .csv and upload it again.',
    );
  }
  return { sheets: sheetList(workbook, rels), entries: checked };
}

const attr = (tag: string, name: string): string | undefined =>
  new RegExp(`\\b${name}="([^"]*)"`)
    .exec(tag)?.[1]
    ?.replace(/&amp;/g, '&')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'");

/** Sheet names in tab order with the zip path of each, from workbook.xml and its relationships. */
function sheetList(workbookXml: string, relsXml: string): WorkbookSheet[] {
  const targets = new Map<string, string>();
  for (const m of relsXml.matchAll(/<Relationship\b[^>]*>/g)) {
    const id = attr(m[0], 'Id');
    const target = attr(m[0], 'Target');
    if (id && target) targets.set(id, target.startsWith('/') ? target.slice(1) : `xl/${target}`);
  }
  const sheets: WorkbookSheet[] = [];
  for (const m of workbookXml.matchAll(/<(?:\w+:)?sheet\b[^>]*>/g)) {
    const name = attr(m[0], 'name');
    const rid = attr(m[0], 'r:id') ?? attr(m[0], 'id');
    const path = rid ? targets.get(rid) : undefined;
    if (name !== undefined && path) sheets.push({ name, path });
  }
  return sheets;
}
