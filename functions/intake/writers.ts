import { eachConcurrently } from '#commons/concurrently.ts';
import { COSTLY_TEXT } from '#commons/phone/phone.ts';
import { MAX_COLUMNS, MAX_ROWS } from '#commons/spreadsheet/cell.ts';
import { PART_WRITES_AT_ONCE, partWorkbook } from '#commons/spreadsheet/part-file.ts';
import {
  columnName,
  escapedCell,
  rowRef,
  sharedCell,
  textCell,
  textRow,
  XlsxWriter,
  xmlText,
} from '#commons/spreadsheet/xlsx-writer.ts';
import { REASON_TEXT } from './contacts.ts';
import { FATE_COLUMNS, ORIGINAL_COLUMNS } from './original-rows.ts';
import type { Part } from './parts.ts';
import type { ValidationOutcome } from './validate-upload.ts';

/**
 * Every original row with its fate, for a person to open in Excel: the sheet's own columns, then whether the row
 * was accepted (its E.164 number, part and zone) or rejected (and why). A sheet too wide to leave room for the fate
 * columns (Excel's limit is 16,384) keeps its first 16,379 columns, and a second tab says so.
 */
export async function annotatedWorkbook(outcome: ValidationOutcome): Promise<Buffer> {
  const { scanned, originals, parts, rejections } = outcome;
  if (!scanned || !originals) throw new Error('annotatedWorkbook needs an upload whose contact sheet was read');
  // The fate columns repeat a few values (result, part, zone, reason) down the whole sheet: each is a shared
  // string, made once, so a row costs a fraction of the bytes to build and to deflate. Only the number is its own.
  const xlsx = new XlsxWriter();
  // Each held row's fate by its position: a part (index into `partCells`, plus one) and its number, or the shared
  // string of why it was rejected (plus one); zero is neither.
  const position = originals.positionOf();
  const partOf = new Int32Array(originals.size);
  const phoneOf: string[] = new Array(originals.size);
  const reasonOf = new Int32Array(originals.size);
  const partCells: { index: number; zone: number }[] = [];
  for (const p of parts) {
    // Every candidate zone: a row whose number spans zones is called only when all of them are open.
    partCells.push({ index: xlsx.share(String(p.index)), zone: xlsx.share(p.zones.join(', ')) });
    for (const c of p.contacts) {
      const i = position(c.row);
      if (i < 0) continue;
      partOf[i] = partCells.length;
      phoneOf[i] = xmlText(c.phone);
    }
  }
  const reject = (row: number, text: string) => {
    const i = position(row);
    if (i >= 0 && reasonOf[i] === 0) reasonOf[i] = xlsx.share(text) + 1;
  };
  for (const r of rejections)
    reject(r.row, `${r.reason}: ${r.hint ?? REASON_TEXT[r.reason]}${r.firstRow ? ` (row ${r.firstRow})` : ''}`);
  // The report's list is the complete one: a costly number is rejected after the row rules, outside `rejections`.
  for (const r of outcome.report.rejected)
    reject(r.row, r.reason === 'costly_number' ? `${r.reason}: ${COSTLY_TEXT}` : r.reason);
  const width = Math.min(scanned.width, ORIGINAL_COLUMNS);

  const isAccepted = xlsx.share('accepted');
  const isRejected = xlsx.share('rejected');
  const sheet = xlsx.sheet('Annotated');
  // Each row where it was in the original, so the row numbers the report names are the rows here too (title rows
  // and blank lines stay empty). A text file numbered past Excel's last row is written row after row instead.
  const inPlace = originals.ascendingWithin(scanned.headerRow, MAX_ROWS);
  const headAt = inPlace ? scanned.headerRow : 1;
  let head = `<row r="${headAt}">`;
  const headRef = rowRef(headAt);
  for (let i = 0; i < width; i++) head += textCell(i, headRef, scanned.header[i] ?? '');
  for (let i = 0; i < FATE_COLUMNS.length; i++) head += textCell(width + i, headRef, FATE_COLUMNS[i] as string);
  sheet.write(`${head}</row>`);
  for (let i = 0; i < originals.size; i++) {
    const outRow = inPlace ? originals.sheetRow(i) : i + 2;
    const ref = rowRef(outRow);
    const xml = originals.cellsXml(i, ref);
    const part = partOf[i] as number;
    let fate: string;
    if (part > 0) {
      const cells = partCells[part - 1] as { index: number; zone: number };
      fate =
        sharedCell(width, outRow, isAccepted) +
        escapedCell(width + 1, ref, phoneOf[i] as string) +
        sharedCell(width + 2, outRow, cells.index) +
        sharedCell(width + 3, outRow, cells.zone);
    } else {
      const reason = (reasonOf[i] as number) - 1;
      fate = sharedCell(width, outRow, isRejected) + (reason < 0 ? '' : sharedCell(width + 4, outRow, reason));
    }
    sheet.write(`<row r="${outRow}">${xml}${fate}</row>`);
    if (sheet.full) await sheet.flush();
  }
  await xlsx.add(sheet);

  if (scanned.width > ORIGINAL_COLUMNS) {
    const note = xlsx.sheet('Note');
    note.write(
      textRow(1, [
        `The original sheet has ${scanned.width} columns. A worksheet holds at most ${MAX_COLUMNS}, so the annotated copy shows columns A to ${columnName(ORIGINAL_COLUMNS - 1)} of the original, then the ${FATE_COLUMNS.length} callsheet columns. The original file keeps every column.`,
      ]),
    );
    await xlsx.add(note);
  }
  return xlsx.finish();
}

/**
 * Builds and writes an upload's files: each of `parts` (a few at a time) through `putPart`, and, when `putAnnotated`
 * is given, the annotated copy, which is built (and deflated in zlib's threads) while the part files are on their
 * way: one after the other, the main thread sat idle through each wait.
 */
export async function writeUploadFiles(
  outcome: ValidationOutcome,
  parts: readonly Part[],
  putPart: (part: Part, xlsx: Buffer) => Promise<unknown>,
  putAnnotated: ((xlsx: Buffer) => Promise<unknown>) | null,
): Promise<void> {
  await Promise.all([
    putAnnotated ? annotatedWorkbook(outcome).then(putAnnotated) : null,
    eachConcurrently(parts, PART_WRITES_AT_ONCE, async (part) => {
      // One turn of the event loop per part: parts are built on the main thread in about a millisecond each, and
      // back to back (puts that answer at once) they held it while zlib ran dry on the annotated copy, which then
      // had to wait for zlib to catch up.
      await new Promise(setImmediate);
      await putPart(part, await partWorkbook(part));
    }),
  ]);
}
