import ExcelJS from 'exceljs';
import { describe, expect, it } from 'vitest';
import { parseLegalHours } from '#commons/legal-hours.ts';
import { API_COLUMNS, partWorkbook } from '#commons/spreadsheet/part-file.ts';
import { validateUpload } from '#intake/validate-upload.ts';
import { annotatedWorkbook } from '#intake/writers.ts';
import { type Row, xls, xlsx } from '../helpers/sheets.ts';
import { unzip, zip } from '../helpers/zip.ts';

const us = { defaultCountry: 'US' as const };
const usNumbers = (n: number) => Array.from({ length: n }, (_, i) => `+1415555${String(2000 + i).padStart(4, '0')}`);

async function readBack(bytes: Buffer): Promise<unknown[][]> {
  const wb = new ExcelJS.Workbook();
  await wb.xlsx.load(bytes as unknown as ArrayBuffer);
  const rows: unknown[][] = [];
  wb.worksheets[0]?.eachRow((r) => rows.push((r.values as unknown[]).slice(1)));
  return rows;
}

describe('intake: reading a sheet', () => {
  it('takes the first worksheet with a Phone Number header within 20 rows, ignoring title rows and header spacing/case', async () => {
    const wb = new ExcelJS.Workbook();
    wb.addWorksheet('Notes').addRow(['Read me first']);
    const ws = wb.addWorksheet('Leads');
    ws.addRow(['Q3 export from CRM']);
    ws.addRow([]);
    ws.addRow(['  PHONE   number ', 'name', 'custom  instruction', 'Owner']);
    ws.addRow(['+14155552671', 'Ann', 'Be brief', 'Zoe']);
    const out = await validateUpload(Buffer.from(await wb.xlsx.writeBuffer()), 'leads.xlsx', us);
    expect(out.report).toMatchObject({
      ok: true,
      format: 'xlsx',
      rows: { total: 1, valid: 1, rejected: 0 },
      contacts: [{ row: 4, phone: '+14155552671', name: 'Ann', customInstruction: 'Be brief' }],
    });
    expect(out.scanned?.sheetName).toBe('Leads');
    expect(out.scanned?.header).toContain('Owner');
  });

  it('reads numbers digit-exact, formula results, rich text and hyperlinks, and skips blank rows', async () => {
    const wb = new ExcelJS.Workbook();
    const ws = wb.addWorksheet('Contacts');
    ws.addRow(['Phone Number', 'Name']);
    ws.addRow([4155552671, 'number cell']);
    ws.addRow([919820012345, 'scientific in Excel']);
    ws.addRow([]);
    ws.addRow([{ formula: '"+1"&"4155552672"', result: '+14155552672' }, 'formula']);
    ws.addRow([{ richText: [{ text: '+44 20 ' }, { font: { bold: true }, text: '7946 0958' }] }, 'rich']);
    ws.addRow([
      { text: '+61 412 345 678', hyperlink: 'tel:+61412345678' },
      { formula: 'UPPER("x")', result: 'X' },
    ]);
    // GB has no default legal hours: a window lets its row be called (without one it is refused, see below).
    const out = await validateUpload(Buffer.from(await wb.xlsx.writeBuffer()), 'c.xlsx', {
      ...us,
      metadata: { 'calling-window': 'Mon-Fri 09:00-17:00' },
    });
    expect(out.report.contacts.map((c) => [c.row, c.phone, c.name])).toEqual([
      [2, '+14155552671', 'number cell'],
      [3, '+919820012345', 'scientific in Excel'],
      [5, '+14155552672', 'formula'],
      [6, '+442079460958', 'rich'],
      [7, '+61412345678', 'X'],
    ]);
    expect(out.report.rows.total).toBe(5);
  });

  it('reads .xls (BIFF) and .csv (BOM, semicolons, quotes) the same way', async () => {
    const rows: Row[] = [
      ['Phone Number', 'Name'],
      ['(415) 555-2671', 'Ann'],
      [4155552672, 'Bo'],
    ];
    const fromXls = await validateUpload(xls(rows), 'old.xls', us);
    expect(fromXls.report.format).toBe('xls');
    expect(fromXls.report.contacts.map((c) => c.phone)).toEqual(['+14155552671', '+14155552672']);
    const csv = Buffer.from(
      '\ufeffName;Phone Number;Custom Instruction\n"Lee; Ann";415-555-2671;"say ""hi""\nthen stop"\n\nBo;+1 415 555 2672;\n',
      'utf8',
    );
    const fromCsv = await validateUpload(csv, 'list.csv', us);
    expect(fromCsv.report.format).toBe('csv');
    expect(fromCsv.report.contacts).toEqual([
      { row: 2, phone: '+14155552671', name: 'Lee; Ann', customInstruction: 'say "hi"\nthen stop' },
      { row: 4, phone: '+14155552672', name: 'Bo', customInstruction: null },
    ]);
  });
});

describe('intake: row rules', () => {
  it('gives every rejected row one reason and keeps the first of duplicates', async () => {
    const file = await xlsx([
      ['Phone Number', 'Name'],
      ['415 555 2671', 'first'],
      ['+1 (415) 555-2671', 'same number, other format'],
      [null, 'no phone'],
      ['call me', 'words'],
      ['+1 555 555 0100', 'fictional'],
      ['+14155552672', 'suppressed'],
    ]);
    const out = await validateUpload(file, 'r.xlsx', {
      ...us,
      suppressed: async (phones) => new Set(phones.filter((p) => p === '+14155552672')),
    });
    expect(out.report.rows).toEqual({ total: 6, valid: 1, rejected: 5 });
    expect(out.report.rejected).toEqual([
      { row: 3, reason: 'duplicate_phone', input: '+1 (415) 555-2671' },
      { row: 4, reason: 'missing_phone', input: '' },
      { row: 5, reason: 'invalid_phone', input: 'call me' },
      {
        row: 6,
        reason: 'invalid_phone',
        input: '+1 555 555 0100',
        hint: expect.stringMatching(/^no phone line of its country has this number/),
      },
      { row: 7, reason: 'suppressed', input: '+14155552672' },
    ]);
    expect(out.report.ok).toBe(true);
  });

  it('says a sheet with a header and no rows has nobody to call, and one whose rows all fail to see them', async () => {
    const empty = await validateUpload(Buffer.from('Phone Number\n'), 'empty.csv', us);
    expect([empty.report.rows, empty.report.error?.message]).toEqual([
      { total: 0, valid: 0, rejected: 0 },
      'The sheet has no rows under its header row: there is nobody to call.',
    ]);
    const bad = await validateUpload(Buffer.from('Phone Number\nabc\n'), 'bad.csv', us);
    expect([bad.report.rows, bad.report.error?.message]).toEqual([
      { total: 1, valid: 0, rejected: 1 },
      'No row has a phone number that can be called; see the rejected rows for why.',
    ]);
  });

  it('calls a number written with an extension at its main number, and says which rows lose one', async () => {
    const rows: Row[] = [
      ['Phone Number', 'Name'],
      ['+1 415 555 2671 ext. 12', 'ext.'],
      ['(415) 555-2672 x3', 'x'],
      ['+1 415 555 2672 x4', 'duplicate: no note'],
      ['+14155552673 ext 7', 'suppressed: no note'],
      ...Array.from({ length: 6 }, (_, i): Row => [`415.555.${2680 + i};ext=${i + 1}`, `ext= ${i}`]),
      ['+14155552699', 'none'],
    ];
    const out = await validateUpload(await xlsx(rows), 'ext.xlsx', {
      ...us,
      suppressed: async (phones) => new Set(phones.filter((p) => p === '+14155552673')),
    });
    expect(out.report.contacts.slice(0, 2).map((c) => c.phone)).toEqual(['+14155552671', '+14155552672']);
    expect(out.report.rows).toEqual({ total: 11, valid: 9, rejected: 2 });
    expect(out.report.notes).toContain(
      '8 numbers give an extension, which a call cannot dial: row 2 (extension 12), row 3 (extension 3), row 6 (extension 1), row 7 (extension 2), row 8 (extension 3) and 3 more; each is called at its main number, so give a direct number to reach the person',
    );
  });

  it('tells each kept number to the lookups while reading, before asking which are suppressed', async () => {
    const file = await xlsx([['Phone Number'], ['415 555 2671'], ['+1 (415) 555-2671'], ['call me'], ['+14155552672']]);
    const told: string[] = [];
    let toldBeforeAsked: string[] = [];
    await validateUpload(file, 'r.xlsx', {
      ...us,
      lookAhead: (phone) => told.push(phone),
      suppressed: async () => {
        toldBeforeAsked = [...told];
        return new Set();
      },
    });
    // Once each, as E.164: not the duplicate, not the unreadable cell.
    expect(toldBeforeAsked).toEqual(['+14155552671', '+14155552672']);
  });

  it('splits into parts of at most 1000 in row order', async () => {
    const numbers = usNumbers(2500);
    const out = await validateUpload(await xlsx([['Phone Number'], ...numbers.map((n) => [n])]), 'big.xlsx', us);
    expect(out.report.parts.map((p) => p.rows)).toEqual([1000, 1000, 500]);
    expect(out.parts.flatMap((p) => p.contacts.map((c) => c.phone))).toEqual(numbers);
    expect(out.report.parts.every((p) => p.timeZone === 'America/Los_Angeles')).toBe(true);
  });

  it('groups parts by the destination time zone and says how each zone was decided', async () => {
    const out = await validateUpload(
      await xlsx([
        ['Phone Number'],
        ['+14155552671'],
        ['+919820012345'],
        ['+12125551234'],
        ['+447911123456'],
        ['+14155552672'],
        ['+18005551234'],
      ]),
      'zones.xlsx',
      us,
    );
    const one = (zone: string) => ({ zones: [zone], timeZone: zone });
    expect(out.report.parts.map(({ zones, ...p }) => ({ ...p, zones: zones.length }))).toEqual([
      { index: 1, rows: 2, ...one('America/Los_Angeles'), zones: 1, zoneSource: 'number', country: 'US' },
      { index: 2, rows: 1, ...one('Asia/Kolkata'), zones: 1, zoneSource: 'number', country: 'IN' },
      { index: 3, rows: 1, ...one('America/New_York'), zones: 1, zoneSource: 'number', country: 'US' },
      // Toll-free: the number says only "+1", so every clock of the plan is kept, never a guess.
      { index: 4, rows: 1, timeZone: 'America/Adak', zones: 15, zoneSource: 'several', country: 'US' },
    ]);
    // No legal hours for GB and no window: the row is refused with what to do.
    expect(out.report.rejected).toEqual([{ row: 5, reason: 'no_legal_hours', input: '+447911123456' }]);
    // libphonenumber places this mobile range in Guernsey (GG); its zones all keep London's clock.
    expect(out.report.notes).toEqual([
      'set a calling window for GG numbers: callsheet has no default legal hours for GG',
    ]);
    const withWindow = await validateUpload(await xlsx([['Phone Number'], ['+447911123456']]), 'gb.xlsx', {
      ...us,
      metadata: { 'calling-window': 'Mon-Fri 09:00-17:00' },
    });
    expect(withWindow.report.parts).toEqual([
      { index: 1, rows: 1, ...one('Europe/London'), zoneSource: 'country', country: 'GG' },
    ]);
  });
});

describe('intake: the report of a hostile sheet', () => {
  it('quotes at most 64 characters of a rejected cell, so the report stays small however long the cells', async () => {
    const long = `${'\u0001'.repeat(62)}😀${'9'.repeat(30_000)}`;
    const csv = `Phone Number,Name\n+14155552671,Ada\n${long},Bo\n${'x'.repeat(64)},Cy\n`;
    const out = await validateUpload(Buffer.from(csv), 'long.csv', us);
    expect(out.report.rejected).toEqual([
      {
        row: 3,
        reason: 'invalid_phone',
        input: `${'\u0001'.repeat(62)}…`,
        hint: 'far too long for a phone number (30,064 characters): check that this column holds the numbers',
      },
      { row: 4, reason: 'invalid_phone', input: 'x'.repeat(64) },
    ]);
    expect(out.report.ok).toBe(true);
  });
});

describe('intake: files it refuses, with a reason', () => {
  const refuse = async (bytes: Buffer, name: string) => (await validateUpload(bytes, name, us)).report;

  it('names the problem for empty, renamed-text, ods, truncated, encrypted and headerless files', async () => {
    expect((await refuse(Buffer.alloc(0), 'a.xlsx')).error?.code).toBe('empty_file');
    const renamed = await refuse(Buffer.from('Phone Number\n+14155552671\n'), 'list.xlsx');
    expect(renamed.error).toMatchObject({ code: 'unsupported_format', message: expect.stringContaining('holds text') });
    const ods = zip([
      { name: 'mimetype', data: Buffer.from('application/vnd.oasis.opendocument.spreadsheet') },
      { name: 'content.xml', data: Buffer.from('<x/>') },
    ]);
    expect((await refuse(ods, 'list.xlsx')).error).toMatchObject({
      code: 'unsupported_format',
      message: expect.stringContaining('.ods'),
    });
    const good = await xlsx([['Phone Number'], ['+14155552671']]);
    expect((await refuse(good.subarray(0, good.length - 40), 'cut.xlsx')).error?.code).toBe('corrupt');
    const locked = zip([{ name: 'xl/workbook.xml', data: Buffer.from('<workbook/>'), encrypted: true }]);
    expect((await refuse(locked, 'locked.xlsx')).error?.code).toBe('encrypted');
    const cfbEncrypted = Buffer.concat([
      Buffer.from('d0cf11e0a1b11ae1', 'hex'),
      Buffer.alloc(512),
      Buffer.from('EncryptedPackage', 'utf16le'),
    ]);
    expect((await refuse(cfbEncrypted, 'locked.xlsx')).error?.code).toBe('encrypted');
    const noHeader = await refuse(await xlsx([['Phone'], ['+14155552671']]), 'h.xlsx');
    expect(noHeader).toMatchObject({
      ok: false,
      error: { code: 'no_phone_column', message: expect.stringContaining('"Phone Number"') },
    });
    // Latin-1 text saved as .csv: not UTF-8 (UTF-16 with a byte order mark, as Excel's "Unicode text", is read).
    expect((await refuse(Buffer.from('Phone Number\nJos\xe9\n', 'latin1'), 'bad.csv')).error?.code).toBe('not_utf8');
  });

  it('reads parts stored without compression, every time, Settings sheet included, and refuses sizes or compression a spreadsheet program never writes', async () => {
    const wb = new ExcelJS.Workbook();
    wb.addWorksheet('Contacts').addRows([['Phone Number'], ['020 7946 0018']]);
    wb.addWorksheet('Settings').addRows([
      ['default country', 'GB'],
      ['calling window', 'Mon-Fri 09:00-17:00'],
    ]);
    // Spreadsheet programs write no folder entries.
    const real = (await unzip(Buffer.from(await wb.xlsx.writeBuffer()))).filter((e) => !e.name.endsWith('/'));
    const storedFile = zip(real.map((e) => ({ ...e, method: 0 })));
    // exceljs's zip reader used to drop parts after a stored worksheet now and then; one read could pass by luck.
    for (let i = 0; i < 8; i++) {
      const stored = await validateUpload(storedFile, 'stored.xlsx', us);
      expect(stored.report.contacts.map((c) => c.phone)).toEqual(['+442079460018']);
    }

    const short = zip(real.map((e) => (e.name === 'xl/workbook.xml' ? { ...e, declaredSize: e.data.length + 10 } : e)));
    expect((await refuse(short, 'short.xlsx')).error).toMatchObject({
      code: 'corrupt',
      message: expect.stringContaining('xl/workbook.xml is shorter than its header says'),
    });
    const bzip2 = zip(real.map((e) => (e.name === 'xl/workbook.xml' ? { ...e, method: 12 } : e)));
    expect((await refuse(bzip2, 'bzip2.xlsx')).error).toMatchObject({
      code: 'corrupt',
      message: expect.stringContaining('compression method'),
    });
  });

  it('rejects a zip bomb quickly, whether its headers tell the truth or lie about sizes', async () => {
    const huge = Buffer.alloc(300 * 1024 * 1024); // 300 MB of zeros deflates to about 300 KB
    const honest = zip([{ name: 'xl/worksheets/sheet1.xml', data: huge }]);
    expect(honest.length).toBeLessThan(1024 * 1024);
    const honestReport = await refuse(honest, 'bomb.xlsx');
    expect(honestReport).toMatchObject({ ok: false, error: { code: 'zip_bomb' } });
    const lying = zip([{ name: 'xl/worksheets/sheet1.xml', data: huge, declaredSize: 4096 }]);
    const before = process.memoryUsage().rss;
    const lyingReport = await refuse(lying, 'bomb.xlsx');
    expect(lyingReport).toMatchObject({ ok: false, error: { code: 'zip_bomb' } });
    expect(process.memoryUsage().rss - before).toBeLessThan(64 * 1024 * 1024);
    // A small lying entry (its bound is the 1 MB floor) is caught by the one-step inflate that small parts get.
    const smallLie = zip([{ name: 'xl/styles.xml', data: Buffer.alloc(2 * 1024 * 1024), declaredSize: 4096 }]);
    expect((await refuse(smallLie, 'bomb.xlsx')).error).toMatchObject({
      code: 'zip_bomb',
      message: expect.stringContaining('xl/styles.xml inflates past what its size allows'),
    });
  });
});

describe('intake: files it writes', () => {
  it('writes each part with exactly the API columns, keeping formula-like text as text', async () => {
    const out = await validateUpload(
      await xlsx([
        ['Phone Number', 'Name', 'Custom Instruction', 'Extra'],
        ['+14155552671', '=1+1', '@mention', 'x'],
        ['+14155552672', '-5', '+cmd', 'y'],
      ]),
      'f.xlsx',
      us,
    );
    const part = out.parts[0];
    if (!part) throw new Error('no part');
    const rows = await readBack(await partWorkbook(part));
    expect(rows).toEqual([[...API_COLUMNS], ['+14155552671', '=1+1', '@mention'], ['+14155552672', '-5', '+cmd']]);
    const wb = new ExcelJS.Workbook();
    await wb.xlsx.load((await partWorkbook(part)) as unknown as ArrayBuffer);
    expect(wb.worksheets[0]?.getCell('B2').type).toBe(ExcelJS.ValueType.String);
  });

  it('reads back its own part files, which have no shared-strings part', async () => {
    const out = await validateUpload(
      await xlsx([
        ['Phone Number', 'Name'],
        ['+14155552671', 'Ann'],
      ]),
      'p.xlsx',
      us,
    );
    const part = out.parts[0];
    if (!part) throw new Error('no part');
    const file = await partWorkbook(part);
    expect((await unzip(file)).map((e) => e.name)).not.toContain('xl/sharedStrings.xml');
    expect((await validateUpload(file, 'part-1.xlsx', {})).report.contacts).toEqual([
      { row: 2, phone: '+14155552671', name: 'Ann', customInstruction: null },
    ]);
  });

  it('writes an annotated copy with every original row and its fate', async () => {
    const out = await validateUpload(
      await xlsx([
        ['Phone Number', 'Owner'],
        ['4155552671', 'a'],
        ['4155552671', 'b'],
        ['nope', 'c'],
      ]),
      'a.xlsx',
      us,
    );
    const rows = await readBack(await annotatedWorkbook(out));
    expect(rows[0]).toEqual([
      'Phone Number',
      'Owner',
      'callsheet result',
      'normalized phone',
      'part',
      'time zone',
      'reason',
    ]);
    expect(rows[1]).toEqual(['4155552671', 'a', 'accepted', '+14155552671', '1', 'America/Los_Angeles']);
    expect(rows[2]?.slice(0, 3)).toEqual(['4155552671', 'b', 'rejected']);
    expect(String(rows[2]?.[6])).toMatch(/^duplicate_phone: .*row 2/);
    expect(String(rows[3]?.[6])).toMatch(/^invalid_phone/);
  });

  it('puts each row of the annotated copy at its row in the original, where the report’s row numbers find it', async () => {
    // A title row and a blank line: the report counts both, so the copy must too.
    const csv = 'Leads of May\nPhone Number,Name\n+14155552001,A\n\n+19005550100,Costly\n+12085550143,Idaho\n';
    const out = await validateUpload(Buffer.from(csv), 'blank.csv', us);
    expect(out.report.rejected).toEqual([{ row: 5, reason: 'costly_number', input: '+19005550100' }]);
    const wb = new ExcelJS.Workbook();
    await wb.xlsx.load((await annotatedWorkbook(out)) as unknown as ArrayBuffer);
    const ws = wb.worksheets[0];
    if (!ws) throw new Error('no worksheet');
    const at = (n: number) => (ws.getRow(n).values as unknown[]).slice(1, 4);
    expect(at(2)).toEqual(['Phone Number', 'Name', 'callsheet result']);
    expect(at(3)).toEqual(['+14155552001', 'A', 'accepted']);
    expect(at(5)).toEqual(['+19005550100', 'Costly', 'rejected']);
    expect(at(6)).toEqual(['+12085550143', 'Idaho', 'accepted']);
    expect(out.report.contacts.map((c) => c.row)).toEqual([3, 6]);
  });

  it('gives a fate to a text file row numbered past Excel’s last row (blank lines count)', async () => {
    const csv = `Phone Number,Name\n+14155552671,Ann\n${'\n'.repeat(1_100_000)}+14155552672,Bob\n`;
    const out = await validateUpload(Buffer.from(csv), 'far.csv', us);
    expect(out.report.contacts.map((c) => c.row)).toEqual([2, 1_100_003]);
    const rows = await readBack(await annotatedWorkbook(out));
    expect(rows.slice(1).map((r) => r.slice(0, 4))).toEqual([
      ['+14155552671', 'Ann', 'accepted', '+14155552671'],
      ['+14155552672', 'Bob', 'accepted', '+14155552672'],
    ]);
  });

  it('gives each row of the annotated copy its own fate, below title rows, across parts and every kind of refusal', async () => {
    const out = await validateUpload(
      await xlsx([
        ['Export of 1 May'],
        [],
        ['Phone Number', 'Owner'],
        ['+33 1 44 55 66 77', 'paris'],
        ['4155552671', 'sf'],
        ['1-900-555-1234', 'premium'],
        ['4155552672', 'suppressed'],
        [],
        ['+33 1 44 55 66 78', 'paris again'],
        ['+442079460000', 'london'],
        ['4155552671', 'sf again'],
        ['+80012345678', 'no zone'],
      ]),
      'a.xlsx',
      {
        ...us,
        suppressed: async (phones) => new Set(phones.filter((p) => p === '+14155552672')),
        // Great Britain without its conservative default: a country with no legal hours of its own.
        legalHours: parseLegalHours('{"GB": "off"}'),
      },
    );
    const rows = await readBack(await annotatedWorkbook(out));
    const fates = rows.slice(1).map((r) => [r[1], ...r.slice(2)]);
    expect(fates[0]).toEqual(['paris', 'accepted', '+33144556677', '1', 'Europe/Paris']);
    expect(fates[1]).toEqual(['sf', 'accepted', '+14155552671', '2', 'America/Los_Angeles']);
    expect(fates[2]).toEqual([
      'premium',
      'rejected',
      undefined,
      undefined,
      undefined,
      expect.stringMatching(/^costly_number: /),
    ]);
    expect(fates[3]).toEqual([
      'suppressed',
      'rejected',
      undefined,
      undefined,
      undefined,
      expect.stringMatching(/^suppressed/),
    ]);
    expect(fates[4]).toEqual(['paris again', 'accepted', '+33144556678', '1', 'Europe/Paris']);
    expect(fates[5]?.slice(0, 2)).toEqual(['london', 'rejected']);
    expect(String(fates[5]?.[5])).toMatch(/^no_legal_hours: /);
    expect(fates[6]?.slice(0, 2)).toEqual(['sf again', 'rejected']);
    expect(String(fates[6]?.[5])).toMatch(/^duplicate_phone: .*\(row 5\)/);
    expect(fates[7]?.slice(0, 2)).toEqual(['no zone', 'rejected']);
    expect(String(fates[7]?.[5])).toMatch(/^no_time_zone: /);
    expect(fates).toHaveLength(8);
  });
});
