import { Readable } from 'node:stream';
import { crc32 } from 'node:zlib';
import type { CheckedEntry } from './zip-guard.ts';

/** The parts exceljs's streaming reader uses, and the name pattern it recognises worksheets by. */
const WORKBOOK_PARTS = ['xl/_rels/workbook.xml.rels', 'xl/workbook.xml', 'xl/styles.xml', 'xl/sharedStrings.xml'];
const WORKSHEET = /^xl\/worksheets\/sheet\d+\.xml$/;

const EMPTY_SHARED_STRINGS = Buffer.from(
  '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" count="0" uniqueCount="0"/>',
);

function localHeader(e: CheckedEntry): Buffer {
  const name = Buffer.from(e.fileName);
  const header = Buffer.alloc(30);
  header.writeUInt32LE(0x04034b50, 0);
  header.writeUInt16LE(20, 4);
  // Flags 0: sizes are in this header, never in a trailing data descriptor.
  header.writeUInt16LE(e.compressionMethod, 8);
  header.writeUInt32LE(e.crc32 >>> 0, 14);
  header.writeUInt32LE(e.compressedSize, 18);
  header.writeUInt32LE(e.uncompressedSize, 22);
  header.writeUInt16LE(name.length, 26);
  return Buffer.concat([header, name]);
}

function endOfArchive(): Buffer {
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  return end;
}

/**
 * The checked workbook re-laid for exceljs's streaming reader, which has two flaws this works around:
 * - When a worksheet comes before the shared strings (as Excel and exceljs write them), it parks the sheet in a
 *   temporary file and reads it again later.
 * - Its zip reader signals the end of the archive when the *input* ends, even if entries it has already parsed are
 *   still waiting to be handed over; a sheet, the shared strings or the workbook part could be dropped (seen with
 *   uncompressed parts: a TypeError, or a Settings sheet silently missing).
 * So the feed sends the workbook parts first (an empty shared-strings part when there is none), then the worksheets
 * in archive order, with sizes in each local header, and ends the archive only after the reader has taken every
 * worksheet (`worksheetTaken` is called from its `entry` events). Other parts (themes, document properties,
 * drawings, external workbook links) are not sent: the reader ignores them, and nothing is ever followed.
 */
export function workbookFeed(entries: CheckedEntry[]): { stream: Readable; worksheetTaken: () => void } {
  const byName = new Map(entries.map((e) => [e.fileName, e]));
  const parts = WORKBOOK_PARTS.map((name) => byName.get(name)).filter((e): e is CheckedEntry => e !== undefined);
  if (!byName.has('xl/sharedStrings.xml')) {
    parts.push({
      fileName: 'xl/sharedStrings.xml',
      compressionMethod: 0,
      crc32: crc32(EMPTY_SHARED_STRINGS),
      compressedSize: EMPTY_SHARED_STRINGS.length,
      uncompressedSize: EMPTY_SHARED_STRINGS.length,
      data: EMPTY_SHARED_STRINGS,
    });
  }
  const worksheets = entries.filter((e) => WORKSHEET.test(e.fileName));
  let waiting = worksheets.length;
  let allTaken: () => void = () => undefined;
  const taken = new Promise<void>((resolve) => {
    allTaken = resolve;
    if (waiting === 0) resolve();
  });
  async function* bytes(): AsyncGenerator<Buffer> {
    for (const e of [...parts, ...worksheets]) {
      yield localHeader(e);
      yield e.data;
    }
    await taken;
    yield endOfArchive();
  }
  return {
    stream: Readable.from(bytes()),
    worksheetTaken: () => {
      waiting -= 1;
      if (waiting === 0) allTaken();
    },
  };
}
