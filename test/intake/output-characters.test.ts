import { describe, expect, it } from 'vitest';
import { partWorkbook } from '#commons/spreadsheet/part-file.ts';
import { MAX_CELL_CHARS, xmlText } from '#commons/spreadsheet/xlsx-writer.ts';
import type { Contact } from '#intake/contacts.ts';
import { FATE_COLUMNS, OriginalRows } from '#intake/original-rows.ts';
import { validateUpload } from '#intake/validate-upload.ts';
import { annotatedWorkbook } from '#intake/writers.ts';
import { unzip } from '../helpers/zip.ts';
import { readAllWays } from './output-readers.ts';

/** Text no XML 1.0 document may hold raw, and text that must survive the escaping unchanged. */
const AWKWARD = [
  'nul\u0000here',
  'bell\u0007 and vertical tab\u000B and form feed\u000C',
  'unit separator\u001F',
  'non-character \uFFFE and \uFFFF',
  'lone high \uD800 surrogate',
  'lone low \uDC00 surrogate',
  'reversed pair \uDC00\uD800',
  'carriage\rreturn',
  'delete\u007F',
  'a real emoji 😀 stays',
  'tab\tand line\nfeed stay',
  'looks escaped _x0041_ but is not',
  'markup <b>&amp;</b> "quoted"',
  '  padded  ',
  '=1+1',
];

const contact = (i: number, name: string): Contact => ({
  row: i + 2,
  phone: `+1415555${String(1000 + i)}`,
  country: 'US',
  name,
  customInstruction: `instruction: ${name}`,
});

describe('written workbooks carry any text and open everywhere', () => {
  it('escapes what XML cannot carry the way Excel does, and nothing else', () => {
    expect(xmlText('a\u0001b')).toBe('a_x0001_b');
    expect(xmlText('\uFFFE\uFFFF')).toBe('_xFFFE__xFFFF_');
    expect(xmlText('\uD83D')).toBe('_xD83D_');
    expect(xmlText('😀')).toBe('😀');
    expect(xmlText('_x0041_')).toBe('_x005F_x0041_');
    expect(xmlText('_x41_ and _xZZZZ_')).toBe('_x41_ and _xZZZZ_');
    expect(xmlText('a<b&c>d')).toBe('a&lt;b&amp;c&gt;d');
    expect(xmlText('plain text, é, 中文')).toBe('plain text, é, 中文');
  });

  it('a part file with every awkward character opens in a strict XML parser, exceljs and SheetJS, text intact', async () => {
    const part = { contacts: AWKWARD.map((name, i) => contact(i, name)) };
    const read = await readAllWays(await partWorkbook(part));
    expect(read.strict.rows).toEqual([AWKWARD.length + 1]);
    expect(read.sheetjs[0]).toEqual(['Phone Number', 'Name', 'Custom Instruction']);
    // SheetJS decodes Excel's escapes, so it sees exactly what was written.
    expect(read.sheetjs.slice(1)).toEqual(part.contacts.map((c) => [c.phone, c.name, c.customInstruction]));
    expect(read.exceljs.map((r) => r[0])).toEqual(['Phone Number', ...part.contacts.map((c) => c.phone)]);
  });

  it('cuts a cell longer than Excel allows (a CSV field can be) instead of writing a file Excel repairs', async () => {
    const long = 'x'.repeat(MAX_CELL_CHARS + 100);
    const part = { contacts: [contact(0, long)] };
    const read = await readAllWays(await partWorkbook(part));
    expect(read.sheetjs[1]?.[1]).toBe('x'.repeat(MAX_CELL_CHARS));
  });

  it('the annotated copy keeps every awkward original cell, and opens everywhere', async () => {
    const out = await validateUpload(Buffer.from('Phone Number,Name\n+14155551000,Ann\n+14155551001,Bob\n'), 'a.csv', {
      defaultCountry: 'US',
    });
    if (!out.scanned) throw new Error('not read');
    // The rows as the reader hands them over, with every awkward text in the sheet's own columns.
    const originals = new OriginalRows();
    originals.add({ row: 2, cells: ['+14155551000', ...AWKWARD] });
    originals.add({ row: 3, cells: ['+14155551001', null, 42, true] });
    const header = ['Phone Number', ...AWKWARD.map((_, i) => `Note ${i}`)];
    const outcome = { ...out, originals, scanned: { ...out.scanned, header, width: header.length } };
    const read = await readAllWays(await annotatedWorkbook(outcome));
    expect(read.strict.rows).toEqual([3]);
    expect(read.sheetjs[0]).toEqual([...header, ...FATE_COLUMNS]);
    // Intake trims what it reads, so padded text comes back trimmed, as the first read saw it.
    expect(read.sheetjs[1]?.slice(0, header.length)).toEqual(['+14155551000', ...AWKWARD.map((t) => t.trim())]);
    expect(read.sheetjs[1]?.slice(header.length, header.length + 2)).toEqual(['accepted', '+14155551000']);
    expect(read.sheetjs[2]?.slice(0, 4)).toEqual(['+14155551001', '', '42', 'true']);
    expect(read.exceljs).toHaveLength(3);
  });

  it('every rejected row of the report has its reason in the annotated copy, costly numbers included', async () => {
    // +1 900 is premium rate in the US: rejected after the row rules, unless the upload allows costly numbers.
    const csv = 'Phone Number,Name\n+14155551000,Ann\n+19002001234,Premium\nnope,Bad\n';
    const out = await validateUpload(Buffer.from(csv), 'costly.csv', { defaultCountry: 'US' });
    expect(out.report.rejected.map((r) => [r.row, r.reason])).toEqual([
      [3, 'costly_number'],
      [4, 'invalid_phone'],
    ]);
    const read = await readAllWays(await annotatedWorkbook(out));
    const reasons = read.sheetjs.slice(1).map((r) => [r[2], String(r[6]).split(':')[0]]);
    expect(reasons).toEqual([
      ['accepted', ''],
      ['rejected', 'costly_number'],
      ['rejected', 'invalid_phone'],
    ]);
  });

  it('a CSV with control characters and non-characters goes through intake to files every reader opens', async () => {
    const names = ['bell\u0007', 'form\u000Cfeed', 'non\uFFFEcharacter', 'ok'];
    const csv = ['Phone Number,Name,Owner', ...names.map((n, i) => `+1415555${1000 + i},"${n}",x\u0001y`)].join('\r\n');
    const out = await validateUpload(Buffer.from(csv), 'odd.csv', { defaultCountry: 'US' });
    expect(out.report.rows.valid).toBe(names.length);
    const part = out.parts[0];
    if (!part) throw new Error('no part');
    const partRead = await readAllWays(await partWorkbook(part));
    expect(partRead.sheetjs.slice(1).map((r) => r[1])).toEqual(out.report.contacts.map((c) => c.name ?? ''));
    const annotated = await readAllWays(await annotatedWorkbook(out));
    expect(annotated.strict.rows).toEqual([names.length + 1]);
    expect(annotated.sheetjs.slice(1).map((r) => r[1])).toEqual(out.report.contacts.map((c) => c.name ?? ''));
    // Nothing raw: every byte of every part is well-formed XML 1.0 (checked by the strict reader above), and the
    // escapes are really in the sheet.
    const sheet = (await unzip(await annotatedWorkbook(out))).find((e) => e.name === 'xl/worksheets/sheet1.xml');
    expect(sheet?.data.toString()).toContain('x_x0001_y');
  });
});
