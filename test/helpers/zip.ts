import { crc32, deflateRawSync } from 'node:zlib';
import yauzl from 'yauzl';

export interface ZipEntrySpec {
  name: string;
  data: Buffer;
  /** Sizes to write in the headers instead of the true ones (a lying archive). */
  declaredSize?: number;
  encrypted?: boolean;
  /** Zip compression method: 8 (deflate, the default), 0 (stored), or anything else to test refusal. */
  method?: number;
  /** A CRC-32 to write instead of the true one (a damaged entry). */
  crc32?: number;
}

/** A minimal deflate zip writer, for crafting hostile archives that no library would produce. */
export function zip(entries: ZipEntrySpec[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const e of entries) {
    const name = Buffer.from(e.name);
    const method = e.method ?? 8;
    const compressed = method === 8 ? deflateRawSync(e.data) : e.data;
    const crc = e.crc32 ?? crc32(e.data);
    const size = e.declaredSize ?? e.data.length;
    const flags = e.encrypted ? 0x1 : 0;
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(flags, 6);
    local.writeUInt16LE(method, 8);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(compressed.length, 18);
    local.writeUInt32LE(size, 22);
    local.writeUInt16LE(name.length, 26);
    locals.push(local, name, compressed);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(flags, 8);
    central.writeUInt16LE(method, 10);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(compressed.length, 20);
    central.writeUInt32LE(size, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(offset, 42);
    centrals.push(central, name);
    offset += local.length + name.length + compressed.length;
  }
  const cd = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(cd.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, cd, end]);
}

/** The entries of a zip, inflated, in archive order: to re-pack a real workbook in another way. */
export function unzip(bytes: Buffer): Promise<ZipEntrySpec[]> {
  return new Promise((resolve, reject) => {
    yauzl.fromBuffer(bytes, { lazyEntries: true }, (err, archive) => {
      if (err || !archive) return reject(err);
      const entries: ZipEntrySpec[] = [];
      archive.on('error', reject);
      archive.on('end', () => resolve(entries));
      archive.on('entry', (entry: yauzl.Entry) => {
        archive.openReadStream(entry, (e, stream) => {
          if (e || !stream) return reject(e);
          const chunks: Buffer[] = [];
          stream.on('data', (c: Buffer) => chunks.push(c));
          stream.on('end', () => {
            entries.push({ name: entry.fileName, data: Buffer.concat(chunks) });
            archive.readEntry();
          });
        });
      });
      archive.readEntry();
    });
  });
}
