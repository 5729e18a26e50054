import { crc32, createInflateRaw, inflateRawSync } from 'node:zlib';
import yauzl from 'yauzl';
import { FileProblem } from './file-problem.ts';
import type { ReadLimits } from './limits.ts';
import { entityProblem } from './xml-part.ts';

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
  /** Every entry, in archive order, after its real size and checksum were checked. */
  entries: CheckedEntry[];
}

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

/** Parts read as XML, where a document type declaration (and so an entity declaration) is refused. */
const XML_PART = /\.(xml|rels|vml)$/i;
const DTD_MARKS = [Buffer.from('<!DOCTYPE'), Buffer.from('<!ENTITY')];
const MARK_OVERLAP = 16;
const BANG = 0x21;
const LT = 0x3c;

/**
 * Whether `<!DOCTYPE` or `<!ENTITY` starts inside `b`. Found through its `!`: a byte a sheet's XML rarely holds, which
 * `indexOf` finds at memory speed, where searching for both marks took 13 ms per 16 MB sheet.
 */
function declaresDtd(b: Buffer): boolean {
  for (let at = b.indexOf(BANG, 1); at !== -1; at = b.indexOf(BANG, at + 1))
    if (b[at - 1] === LT && DTD_MARKS.some((m) => startsAt(b, at - 1, m))) return true;
  return false;
}

/** Whether `m` is in `b` from `at` on (wholly: a mark cut by the chunk's end is found in the straddle view). */
function startsAt(b: Buffer, at: number, m: Buffer): boolean {
  return at + m.length <= b.length && b.compare(m, 0, m.length, at, at + m.length) === 0;
}

/** What is learnt from an entry while inflating it once: its real size, checksum and whether it declares a DTD. */
class EntryCheck {
  size = 0;
  crc = 0;
  dtd = false;
  private tail: Buffer = Buffer.alloc(0);

  constructor(private readonly xml: boolean) {}

  add(chunk: Buffer): void {
    this.size += chunk.length;
    this.crc = crc32(chunk, this.crc);
    if (!this.xml || this.dtd) return;
    // A mark may straddle two chunks: look at the end of the previous one too.
    const view = this.tail.length > 0 ? Buffer.concat([this.tail, chunk.subarray(0, MARK_OVERLAP)]) : null;
    this.dtd = declaresDtd(chunk) || (view !== null && declaresDtd(view));
    this.tail = Buffer.from(chunk.subarray(Math.max(0, chunk.length - MARK_OVERLAP)));
  }
}

function inflateSmall(data: Buffer, name: string, limit: number, check: EntryCheck): void {
  let out: Buffer;
  try {
    out = inflateRawSync(data, { maxOutputLength: Math.max(1, limit) });
  } catch (e) {
    if ((e as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE')
      throw bomb(`${name} inflates past what its size allows`);
    throw new FileProblem('corrupt', `The file is damaged: ${(e as Error).message}.`);
  }
  check.add(out);
}

/**
 * Inflates one entry only to check it, and gives up the moment it passes `limit`: a crafted file's headers can lie,
 * so the real size is the only one trusted. Memory stays at one output chunk.
 */
function inflateCounted(data: Buffer, name: string, limit: number, check: EntryCheck): Promise<void> {
  return new Promise((resolve, reject) => {
    const inflate = createInflateRaw({ chunkSize: INFLATE_CHUNK });
    inflate.on('data', (chunk: Buffer) => {
      if (check.size + chunk.length > limit) {
        inflate.destroy();
        reject(bomb(`${name} inflates past what its size allows`));
        return;
      }
      check.add(chunk);
    });
    inflate.on('error', (e: Error) => reject(new FileProblem('corrupt', `The file is damaged: ${e.message}.`)));
    inflate.on('end', () => resolve());
    inflate.end(data);
  });
}

/** The inflated content of an entry that `inspectXlsx` has already checked (so its size is known to be bounded). */
export function partBytes(e: CheckedEntry): Buffer {
  return e.compressionMethod === STORED ? e.data : inflateRawSync(e.data);
}

/** The inflated content of a checked entry, a chunk at a time. */
export async function* partChunks(e: CheckedEntry): AsyncIterable<Buffer> {
  if (e.compressionMethod === STORED) {
    for (let at = 0; at < e.data.length; at += INFLATE_CHUNK) yield e.data.subarray(at, at + INFLATE_CHUNK);
    return;
  }
  if (e.uncompressedSize <= SYNC_INFLATE_BOUND) {
    yield inflateRawSync(e.data);
    return;
  }
  const inflate = createInflateRaw({ chunkSize: INFLATE_CHUNK });
  inflate.end(e.data);
  for await (const chunk of inflate) yield chunk as Buffer;
}

/** What a zip that is not a workbook holds, told by its parts. */
export function notAWorkbook(names: string[], mimetype: string | undefined): FileProblem {
  const has = (prefix: string) => names.some((n) => n.toLowerCase().startsWith(prefix));
  const unsupported = (what: string) =>
    new FileProblem('unsupported_format', `${what} Save the contact sheet as .xlsx or .csv and upload it again.`);
  if (mimetype?.includes('opendocument.spreadsheet'))
    return new FileProblem(
      'unsupported_format',
      'This is an OpenDocument spreadsheet (.ods). Save it as .xlsx (Excel) or .csv and upload it again.',
    );
  if (mimetype?.includes('opendocument'))
    return unsupported('This is an OpenDocument text or presentation file, not a spreadsheet.');
  if (has('word/')) return unsupported('This is a Word document (.docx), not a spreadsheet.');
  if (has('ppt/')) return unsupported('This is a PowerPoint presentation (.pptx), not a spreadsheet.');
  if (has('index/') && names.some((n) => n.endsWith('.iwa')))
    return unsupported('This is an Apple Numbers or Pages file; export it from Numbers as Excel (.xlsx).');
  if (has('xl/')) return new FileProblem('corrupt', 'The file is damaged: it has Excel parts but no workbook part.');
  return unsupported('This zip file is not an Excel workbook (.xlsx).');
}

/**
 * Checks an .xlsx before any parser sees it: declared and actual inflated sizes, per-entry inflate ratio (the
 * headers of a crafted file can lie, so every entry is inflated here with a running count and abandoned the moment
 * it passes a bound), each entry's CRC-32 (a damaged entry is a damaged file, never a different phone number), and
 * that no XML part declares a document type (entities are never expanded: such a file is refused).
 */
export async function inspectXlsx(bytes: Buffer, limits: ReadLimits): Promise<XlsxInspection> {
  const entries = await listEntries(bytes);
  const checked: CheckedEntry[] = [];
  let total = 0;
  let dtd = false;
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
    const check = new EntryCheck(XML_PART.test(entry.fileName));
    if (entry.compressionMethod === STORED) check.add(data);
    else if (entry.compressionMethod === DEFLATED) {
      const limit = Math.min(ratioLimit, limits.maxUncompressedBytes - total);
      if (limit <= SYNC_INFLATE_BOUND) inflateSmall(data, entry.fileName, limit, check);
      else await inflateCounted(data, entry.fileName, limit, check);
    } else
      throw new FileProblem(
        'corrupt',
        `The file is damaged: ${entry.fileName} uses a compression method spreadsheet programs do not write.`,
      );
    if (check.size > entry.uncompressedSize) throw bomb(`${entry.fileName} is larger than its header says`);
    if (check.size < entry.uncompressedSize)
      throw new FileProblem('corrupt', `The file is damaged: ${entry.fileName} is shorter than its header says.`);
    if (check.crc >>> 0 !== entry.crc32 >>> 0)
      throw new FileProblem(
        'corrupt',
        `The file is damaged: ${entry.fileName} fails its checksum (CRC-32), so nothing in it can be trusted. Save the sheet again and upload the new copy.`,
      );
    dtd ||= check.dtd;
    total += check.size;
    checked.push(toChecked(entry, data));
  }
  if (dtd) throw entityProblem();
  return { entries: checked };
}

function toChecked(entry: yauzl.Entry, data: Buffer): CheckedEntry {
  return {
    fileName: entry.fileName,
    compressionMethod: entry.compressionMethod,
    crc32: entry.crc32,
    compressedSize: entry.compressedSize,
    uncompressedSize: entry.uncompressedSize,
    data,
  };
}
