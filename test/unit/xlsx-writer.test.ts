import { inflateRawSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { DEFAULT_LIMITS } from '#commons/spreadsheet/limits.ts';
import { textRow, XlsxWriter } from '#commons/spreadsheet/xlsx-writer.ts';
import { inspectXlsx } from '#commons/spreadsheet/zip-guard.ts';
import { readAllWays } from '../intake/output-readers.ts';

/** Rows of varied text (digits, words, escapes, non-Latin) so pieces differ and compress unevenly. */
function rows(n: number): string[][] {
  const words = ['alpha', 'Ωmega', '日本', 'x_x0041_y', '<tag>', 'a & b', ' lead', 'tail '];
  return Array.from({ length: n }, (_, i) => [
    `+1415${String(5550000 + i)}`,
    `${words[i % words.length]} ${i * 7919}`,
    words[(i * 3) % words.length]?.repeat(1 + (i % 13)) ?? '',
  ]);
}

async function workbook(data: string[][], flushing: boolean): Promise<{ bytes: Buffer; xml: string }> {
  const xlsx = new XlsxWriter();
  const sheet = xlsx.sheet('Rows');
  let xml = '';
  for (const [i, cells] of data.entries()) {
    const row = textRow(i + 1, cells);
    xml += row;
    sheet.write(row);
    if (flushing && sheet.full) await sheet.flush();
  }
  await xlsx.add(sheet);
  return { bytes: xlsx.finish(), xml };
}

describe('the xlsx writer', () => {
  it.each([
    ['one piece (a campaign part), deflated at once', 50, true],
    ["one piece written whole past 1 MB, deflated on zlib's thread", 12_000, false],
    ['many pieces, deflated in the background', 10_000, true],
  ])('writes %s as one valid deflate stream with the right size and CRC', async (_, n, flushing) => {
    const data = rows(n);
    const { bytes, xml } = await workbook(data, flushing);
    if (!flushing) expect(Buffer.byteLength(xml)).toBeGreaterThan(1 << 20);
    // The guard inflates every entry and checks its real size and CRC-32 against the headers.
    const { entries } = await inspectXlsx(bytes, DEFAULT_LIMITS);
    const sheet = entries.find((e) => e.fileName === 'xl/worksheets/sheet1.xml');
    if (!sheet) throw new Error('no sheet part');
    const text = inflateRawSync(sheet.data).toString('utf8');
    expect(text.slice(text.indexOf('<sheetData>') + 11, text.indexOf('</sheetData>'))).toBe(xml);
    // And independent readers agree: Python's zipfile (CRC) and expat, exceljs, SheetJS.
    const read = await readAllWays(bytes);
    expect(read.strict.rows).toEqual([n]);
    expect(read.sheetjs).toHaveLength(n);
    expect(read.sheetjs).toEqual(data);
    // exceljs does not decode Excel's _xHHHH_ escapes (SheetJS and Excel do): compare the numbers only.
    expect(read.exceljs.map((r) => r[0])).toEqual(data.map((r) => r[0]));
  });
});
