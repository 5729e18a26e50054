import { describe, expect, it } from 'vitest';
import { type PartRow, partWorkbook, readPartFile } from '#commons/spreadsheet/part-file.ts';
import { readAllWays } from '../intake/output-readers.ts';

describe('a part file', () => {
  const rows: PartRow[] = [
    { phone: '+14155552671', name: 'Ann', customInstruction: 'Speak slowly' },
    { phone: '+14155552672', name: null, customInstruction: null },
    { phone: '+14155552673', name: '=1+1', customInstruction: '@mention' },
    { phone: '+14155552674', name: 'tab\there _x0041_ \u0001 \uFFFE', customInstruction: ' padded ' },
    { phone: '+14155552675', name: '日本語 ✓', customInstruction: 'x'.repeat(500) },
  ];

  it('reads back the contacts written, odd characters included, trimmed as intake trims cells', async () => {
    const read = await readPartFile(await partWorkbook({ contacts: rows }));
    expect(read).toEqual(rows.map((r) => ({ ...r, customInstruction: r.customInstruction?.trim() ?? null })));
  });

  it('is read the same by other readers, with the API columns first', async () => {
    const read = await readAllWays(await partWorkbook({ contacts: rows }));
    expect(read.sheetjs[0]).toEqual(['Phone Number', 'Name', 'Custom Instruction']);
    expect(read.sheetjs.slice(1).map((r) => r[0])).toEqual(rows.map((r) => r.phone));
    expect(read.sheetjs[4]?.[1]).toBe(rows[3]?.name);
    expect(read.strict.rows).toEqual([rows.length + 1]);
  });

  it('refuses bytes that are not a workbook rather than reading no one', async () => {
    await expect(readPartFile(Buffer.from('Phone Number\n+14155552671\n'))).rejects.toThrow();
  });
});
