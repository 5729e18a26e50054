import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { fileTooLarge } from './limits.ts';

/**
 * An upload's bytes, read from the start a chunk at a time each time `chunks` is called: from memory, a file or an
 * S3 object. A reader that can stream (CSV) never holds the whole file; the others (.xlsx, .xls: a zip is read at
 * random) collect it, within the size limit.
 */
export interface ByteSource {
  /** The size in bytes when known before reading (HeadObject, stat), so a file over the limit is refused unread. */
  readonly size: number | null;
  chunks(): AsyncIterable<Uint8Array>;
}

/**
 * The source itself failed (the network, the disk): not the file's fault, so never reported as a bad file. The
 * original error is `cause`.
 */
export class SourceReadError extends Error {
  constructor(cause: unknown) {
    super(`the upload could not be read: ${(cause as Error)?.message ?? String(cause)}`, { cause });
    this.name = 'SourceReadError';
  }
}

const CHUNK_BYTES = 64 * 1024;

/** Bytes held in memory, handed out as views (nothing is copied). */
export function bytesSource(bytes: Buffer): ByteSource {
  return {
    size: bytes.length,
    async *chunks() {
      for (let at = 0; at < bytes.length; at += CHUNK_BYTES) yield bytes.subarray(at, at + CHUNK_BYTES);
    },
  };
}

/** A file on disk (`callsheet validate`), its size from stat; one that cannot be opened fails here, as a read would. */
export async function fileSource(path: string): Promise<ByteSource> {
  const handle = await open(path, 'r');
  try {
    const info = await handle.stat();
    if (!info.isFile()) throw Object.assign(new Error(`${path} is not a file`), { code: 'EISDIR' });
    return { size: info.size, chunks: () => createReadStream(path, { highWaterMark: CHUNK_BYTES }) };
  } finally {
    await handle.close();
  }
}

const asBuffer = (c: Uint8Array): Buffer =>
  Buffer.isBuffer(c) ? c : Buffer.from(c.buffer, c.byteOffset, c.byteLength);

/**
 * The source's chunks with a running count: refused the moment they pass `maxBytes`, whatever size was claimed,
 * and the source's own failures as SourceReadError. Leaving the loop early closes the source (an S3 body included).
 */
export async function* boundedChunks(source: ByteSource, maxBytes: number): AsyncGenerator<Buffer> {
  const it = source.chunks()[Symbol.asyncIterator]();
  let total = 0;
  try {
    for (;;) {
      let next: IteratorResult<Uint8Array>;
      try {
        next = await it.next();
      } catch (err) {
        throw new SourceReadError(err);
      }
      if (next.done) return;
      total += next.value.length;
      if (total > maxBytes) throw fileTooLarge(null, { maxFileBytes: maxBytes });
      yield asBuffer(next.value);
    }
  } finally {
    await it.return?.()?.catch(() => undefined);
  }
}

/**
 * `first` and then everything `rest` holds, as one buffer (for the formats read at random). With the size known
 * the buffer is made once and filled, rather than gathered and then copied (twice the memory at the end).
 */
export async function readAll(first: Buffer[], rest: AsyncIterator<Buffer>, size: number | null): Promise<Buffer> {
  let parts = [...first];
  let at = parts.reduce((n, b) => n + b.length, 0);
  let out: Buffer | null = null;
  if (size !== null && size >= at) {
    out = Buffer.allocUnsafe(size);
    let p = 0;
    for (const b of parts) p += b.copy(out, p);
    parts = [];
  }
  for (let next = await rest.next(); !next.done; next = await rest.next()) {
    const chunk = next.value;
    if (out && at + chunk.length > out.length) {
      // More than the size claimed: gathered from here on (still within the limit `rest` enforces).
      parts = [out.subarray(0, at)];
      out = null;
    }
    if (out) chunk.copy(out, at);
    else parts.push(chunk);
    at += chunk.length;
  }
  return out ? out.subarray(0, at) : Buffer.concat(parts, at);
}
