import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { validateUpload } from '#intake/validate-upload.ts';

// Made by LibreOffice Calc from leads.fods (test/fixtures/libreoffice/make.sh): files as a real program writes them.
const fixture = (name: string) => readFile(new URL(`../fixtures/libreoffice/${name}`, import.meta.url));

describe.each([
  ['leads.xlsx', 'xlsx'],
  ['leads.xls', 'xls'],
])('a sheet saved by LibreOffice: %s', (file, format) => {
  it('reads title rows, number cells, formula results, text that looks like a formula, and the Settings sheet', async () => {
    const out = await validateUpload(await fixture(file), file, { defaultCountry: 'US' });
    expect(out.report).toMatchObject({
      ok: true,
      format,
      rows: { total: 7, valid: 4, rejected: 3 },
      contacts: [
        { row: 4, phone: '+14155552671', name: 'Ann', customInstruction: 'Be brief' },
        { row: 5, phone: '+14155552672', name: 'Bob', customInstruction: null },
        { row: 6, phone: '+14155552673', name: 'Cara', customInstruction: null },
        { row: 11, phone: '+442079460018', name: 'Dee', customInstruction: '=SUM(1,2) is text here' },
      ],
      rejected: [
        { row: 7, reason: 'duplicate_phone', input: '+1 415 555 2671' },
        { row: 8, reason: 'invalid_phone', input: '12345' },
        { row: 10, reason: 'missing_phone', input: '' },
      ],
    });
    expect(out.scanned?.header).toEqual(['Phone Number', 'Name', 'Custom Instruction', 'Owner']);
    expect(out.settings).toEqual({
      campaignName: 'Spring',
      retries: 2,
      window: [{ days: [1, 2, 3, 4, 5], ranges: [{ start: 540, end: 1020 }] }],
    });
  });
});
