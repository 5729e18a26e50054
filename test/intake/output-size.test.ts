import ExcelJS from 'exceljs';
import { describe, expect, it } from 'vitest';
import { MAX_COLUMNS } from '#commons/spreadsheet/cell.ts';
import { partWorkbook } from '#commons/spreadsheet/part-file.ts';
import { ContactRules } from '#intake/contacts.ts';
import { FATE_COLUMNS } from '#intake/original-rows.ts';
import { validateUpload } from '#intake/validate-upload.ts';
import { annotatedWorkbook } from '#intake/writers.ts';
import { readAllWays } from './output-readers.ts';

/** `n` distinct valid US numbers: +1 415 2000000 onwards. */
const manyNumbers = (n: number) => Array.from({ length: n }, (_, i) => `+1415${2_000_000 + i}`);

describe('sizes at the edge: widest sheet, most contacts', () => {
  it('a 16,384-column sheet validates and its annotated copy is written, valid, with the fate columns in reach', async () => {
    const wb = new ExcelJS.Workbook();
    const ws = wb.addWorksheet('Wide');
    const header: string[] = ['Phone Number', 'Name'];
    for (let c = 3; c <= MAX_COLUMNS; c++) header.push(`C${c}`);
    ws.addRow(header);
    const row = ['+14155552671', 'Ann'];
    for (let c = 3; c <= MAX_COLUMNS; c++) row.push(`v${c}`);
    ws.addRow(row);
    ws.addRow(['+14155552672', 'Bob']);
    const out = await validateUpload(Buffer.from(await wb.xlsx.writeBuffer()), 'wide.xlsx', { defaultCountry: 'US' });
    expect(out.report.rows).toEqual({ total: 2, valid: 2, rejected: 0 });
    const read = await readAllWays(await annotatedWorkbook(out));
    expect(read.strict.rows).toEqual([3, 1]);
    expect(read.sheetNames).toEqual(['Annotated', 'Note']);
    const kept = MAX_COLUMNS - FATE_COLUMNS.length;
    expect(read.sheetjs[0]).toHaveLength(MAX_COLUMNS);
    expect(read.sheetjs[0]?.slice(0, 3)).toEqual(['Phone Number', 'Name', 'C3']);
    expect(read.sheetjs[0]?.slice(kept - 1)).toEqual([`C${kept}`, ...FATE_COLUMNS]);
    expect(read.sheetjs[1]?.slice(kept - 1, kept + 2)).toEqual([`v${kept}`, 'accepted', '+14155552671']);
    expect(read.sheetjs[2]?.slice(0, 2)).toEqual(['+14155552672', 'Bob']);
    expect(read.sheetjs[2]?.slice(kept, kept + 2)).toEqual(['accepted', '+14155552672']);
    expect(read.exceljs[1]?.[kept + 3]).toBe('America/Los_Angeles');
  });

  it('removes suppressed numbers from 200,000 contacts without a RangeError', () => {
    const rules = new ContactRules('US');
    const numbers = manyNumbers(200_000);
    for (const [i, phone] of numbers.entries()) rules.add({ row: i + 2, phone, name: null, customInstruction: null });
    expect(rules.contacts).toHaveLength(200_000);
    rules.suppress(new Set([numbers[0] as string, numbers[199_999] as string]));
    expect(rules.contacts).toHaveLength(199_998);
    expect(rules.contacts[0]?.row).toBe(3);
    expect(rules.rejected.map((r) => [r.row, r.reason])).toEqual([
      [2, 'suppressed'],
      [200_001, 'suppressed'],
    ]);
  });

  it('150,000 contacts with a suppression list go through intake to a report, parts and an annotated copy', async () => {
    const numbers = manyNumbers(150_000);
    const csv = `Phone Number,Name\n${numbers.map((p, i) => `${p},Contact ${i}`).join('\n')}\n`;
    const out = await validateUpload(Buffer.from(csv), 'big.csv', {
      defaultCountry: 'US',
      suppressed: async (phones) => new Set(phones.filter((_, i) => i % 1000 === 0)),
    });
    expect(out.report.rows).toEqual({ total: 150_000, valid: 149_850, rejected: 150 });
    expect(out.parts).toHaveLength(150);
    const last = out.parts.at(-1);
    if (!last) throw new Error('no parts');
    const part = await readAllWays(await partWorkbook(last));
    expect(part.sheetjs.at(-1)?.[0]).toBe(numbers.at(-1));
    // The annotated copy, streamed back with exceljs's reader: one row per original row, each with its fate.
    const reader = new ExcelJS.stream.xlsx.WorkbookReader(
      (await import('node:stream')).Readable.from([await annotatedWorkbook(out)]),
      {},
    );
    const fates = new Map<string, number>();
    let rows = 0;
    for await (const sheet of reader)
      for await (const r of sheet as unknown as AsyncIterable<ExcelJS.Row>) {
        rows++;
        const fate = String(r.getCell(3).value);
        fates.set(fate, (fates.get(fate) ?? 0) + 1);
      }
    expect(rows).toBe(150_001);
    expect(Object.fromEntries(fates)).toEqual({ 'callsheet result': 1, accepted: 149_850, rejected: 150 });
  }, 60_000);
});
