import { crc32 } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import type { ByteSource } from '#commons/spreadsheet/byte-source.ts';
import { cellText } from '#commons/spreadsheet/cell.ts';
import { FileProblem } from '#commons/spreadsheet/file-problem.ts';
import { DEFAULT_LIMITS, type ReadLimits } from '#commons/spreadsheet/limits.ts';
import { openWorkbook } from '#commons/spreadsheet/sources.ts';
import { SharedStrings } from '#commons/spreadsheet/xlsx-shared-strings.ts';
import { ENTITY_MESSAGE } from '#commons/spreadsheet/xml-part.ts';
import { scanUpload } from '#intake/sheet/scan.ts';
import { esc, inlineRow, workbookParts } from '../helpers/ooxml.ts';
import { zip } from '../helpers/zip.ts';

/** The contact sheet as intake reads it: its name and each data row's cells as text. */
async function contacts(bytes: Buffer | ByteSource, name = 'upload.xlsx', limits: ReadLimits = DEFAULT_LIMITS) {
  const workbook = await openWorkbook(bytes, name, limits);
  const rows: [number, ...string[]][] = [];
  const scanned = await scanUpload(workbook, limits, (r) => rows.push([r.row, ...r.cells.map((c) => cellText(c))]));
  return { sheet: scanned.sheetName, rows, settings: scanned.settings };
}

async function refusal(bytes: Buffer | ByteSource, name = 'upload.xlsx', limits: ReadLimits = DEFAULT_LIMITS) {
  try {
    await contacts(bytes, name, limits);
  } catch (err) {
    if (err instanceof FileProblem) return { code: err.code, message: err.message };
    throw err;
  }
  throw new Error('the file was read; a refusal was expected');
}

const header = (r = 1) => inlineRow(r, ['Phone Number', 'Name']);
const list = (...rows: [string, string][]) => header() + rows.map((row, i) => inlineRow(i + 2, row)).join('');

describe('which sheet supplies the contacts', () => {
  it('is the first visible tab in workbook order, whatever the order and names of the parts', async () => {
    const bytes = zip(
      workbookParts({
        sheets: [
          { name: 'Front', path: 'xl/worksheets/sheet2.xml', data: list(['+14155550101', 'Front tab']) },
          { name: 'Back', path: 'xl/worksheets/sheet1.xml', data: list(['+14155550202', 'Back tab']) },
        ],
        partOrder: [1, 0],
      }),
    );
    expect(await contacts(bytes)).toMatchObject({ sheet: 'Front', rows: [[2, '+14155550101', 'Front tab']] });
  });

  it('never takes a hidden or very hidden tab, and says so when only a hidden one has the column', async () => {
    const bytes = zip(
      workbookParts({
        sheets: [
          { name: 'Old list', state: 'hidden', data: list(['+14155550101', 'Hidden']) },
          { name: 'Older list', state: 'veryHidden', data: list(['+14155550202', 'Very hidden']) },
          { name: 'Contacts', data: list(['+14155550303', 'Visible']) },
        ],
      }),
    );
    expect(await contacts(bytes)).toMatchObject({ sheet: 'Contacts', rows: [[2, '+14155550303', 'Visible']] });

    const onlyHidden = zip(
      workbookParts({
        sheets: [
          { name: 'Readme', data: inlineRow(1, ['Nothing to see']) },
          { name: 'Secret', state: 'veryHidden', data: list(['+14155550101', 'Hidden']) },
        ],
      }),
    );
    expect(await refusal(onlyHidden)).toEqual({
      code: 'no_phone_column',
      message: expect.stringContaining('"Secret", is hidden'),
    });
  });

  it('reads a sheet stored under an unusual part name, relative or absolute, and names a missing one', async () => {
    const bytes = zip(
      workbookParts({
        sheets: [
          { name: 'Elsewhere', path: 'data/My List.xml', data: list(['+14155550101', 'Absolute']) },
          { name: 'Custom', path: 'xl/custom/contacts.xml', data: list(['+14155550202', 'Relative']) },
        ],
      }),
    );
    expect(await contacts(bytes)).toMatchObject({ sheet: 'Elsewhere', rows: [[2, '+14155550101', 'Absolute']] });

    const parts = workbookParts({ sheets: [{ name: 'Gone', path: 'xl/custom/gone.xml', data: list(['1', 'x']) }] });
    expect(await refusal(zip(parts.filter((p) => p.name !== 'xl/custom/gone.xml')))).toEqual({
      code: 'corrupt',
      message: 'The file is damaged: the sheet "Gone" should be stored in xl/custom/gone.xml, which is missing.',
    });
  });
});

describe('damaged and hostile parts', () => {
  const sheet = list(['+14155550101', 'Ada']);

  it('refuses an entry whose content fails its CRC-32, stored or deflated, instead of reading another number', async () => {
    for (const method of [0, 8]) {
      const parts = workbookParts({ sheets: [{ name: 'Contacts', data: sheet }] }).map((p) => ({ ...p, method }));
      const good = zip(parts);
      expect((await contacts(good)).rows).toEqual([[2, '+14155550101', 'Ada']]);
      // One digit of the number changed, the checksum left as it was: what a flipped bit on a disk looks like.
      const damaged = parts.map((p) =>
        p.name === 'xl/worksheets/sheet1.xml'
          ? { ...p, data: Buffer.from(p.data.toString().replace('+14155550101', '+14155550109')), crc32: crc32(p.data) }
          : p,
      );
      expect(await refusal(zip(damaged))).toEqual({
        code: 'corrupt',
        message: expect.stringContaining('xl/worksheets/sheet1.xml fails its checksum (CRC-32)'),
      });
    }
  });

  it('refuses a DTD or entity declaration in any XML part without expanding it', async () => {
    const dtd = '<!DOCTYPE lol [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;">]>';
    const inWorkbook = zip(workbookParts({ sheets: [{ name: 'Contacts', data: sheet }], prolog: dtd }));
    expect(await refusal(inWorkbook)).toEqual({ code: 'xml_entities', message: ENTITY_MESSAGE });
    expect(ENTITY_MESSAGE).toContain(
      'this workbook contains XML entity declarations, which callsheet refuses'.slice(1),
    );

    const parts = workbookParts({ sheets: [{ name: 'Contacts', data: sheet }] });
    const withProps = [...parts, { name: 'docProps/core.xml', data: Buffer.from(`<?xml version="1.0"?>${dtd}<x/>`) }];
    expect((await refusal(zip(withProps))).code).toBe('xml_entities');
  });

  it('finds a declaration in a part no reader parses, wherever it falls in the inflated chunks', async () => {
    const parts = workbookParts({ sheets: [{ name: 'Contacts', data: sheet }] });
    // Text that barely compresses, so the part is inflated as a stream of 256 KB chunks (its bound passes 4 MB).
    let filler = '';
    for (let i = 0; filler.length < 600_000; i++) filler += crc32(String(i)).toString(16);
    const chunk = 256 * 1024;
    const withPart = (text: string, method?: number) =>
      zip([
        ...parts,
        { name: 'docProps/custom.xml', data: Buffer.from(text), ...(method === undefined ? {} : { method }) },
      ]);
    const at = (offset: number, mark: string) => `${filler.slice(0, offset)}${mark}${filler.slice(offset)}`;
    for (const mark of ['<!DOCTYPE x>', '<!ENTITY x "y">'])
      for (let offset = chunk - mark.length - 1; offset <= chunk + 1; offset++) {
        expect((await refusal(withPart(at(offset, mark)))).code, `${mark} at ${offset}`).toBe('xml_entities');
        expect((await refusal(withPart(at(offset, mark), 0))).code, `${mark} stored, at ${offset}`).toBe(
          'xml_entities',
        );
      }
    for (const text of [`<!DOCTYPE x>${filler}`, `${filler}<!DOCTYPE`, '<!ENTITY'])
      expect((await refusal(withPart(text))).code, text.slice(0, 20)).toBe('xml_entities');
    // What only looks like one: a comment, exclamation marks, a mark cut short at the end of the part.
    const harmless = `<!-- note -->!!${at(chunk - 1, '<!')}!<!DOCTYP`;
    expect((await contacts(withPart(harmless))).rows).toEqual([[2, '+14155550101', 'Ada']]);
  });

  it('reads rows and cells that carry no r attribute at the positions they imply', async () => {
    const data =
      '<row><c t="inlineStr"><is><t>Phone Number</t></is></c><c t="inlineStr"><is><t>Name</t></is></c></row>' +
      '<row><c><v>14155550101</v></c><c t="inlineStr"><is><t>Second row</t></is></c></row>' +
      '<row r="5"><c r="B5" t="inlineStr"><is><t>B then C</t></is></c><c t="inlineStr"><is><t>+14155550505</t></is></c></row>' +
      '<row><c r="A6" t="inlineStr"><is><t>+14155550606</t></is></c><c><v>7</v></c></row>';
    // Column C of row 5 is beyond the Name column but is read where it stands; the phone column is A.
    expect((await contacts(zip(workbookParts({ sheets: [{ name: 'Contacts', data }] })))).rows).toEqual([
      [2, '14155550101', 'Second row'],
      [5, '', 'B then C', '+14155550505'],
      [6, '+14155550606', '7'],
    ]);
    // A cell addressed past Excel's last row keeps its column, and a row numbered by it is refused.
    const far =
      '<row r="1"><c r="A2097153" t="inlineStr"><is><t>Phone Number</t></is></c><c r="B1" t="inlineStr"><is><t>Name</t></is></c></row>' +
      '<row r="2"><c r="A2" t="inlineStr"><is><t>+14155550101</t></is></c></row>';
    expect((await contacts(zip(workbookParts({ sheets: [{ name: 'Contacts', data: far }] })))).rows).toEqual([
      [2, '+14155550101'],
    ]);
    const farRow = '<row><c r="A2097153" t="inlineStr"><is><t>Phone Number</t></is></c></row>';
    expect(await refusal(zip(workbookParts({ sheets: [{ name: 'Contacts', data: farRow }] })))).toMatchObject({
      code: 'corrupt',
      message: expect.stringContaining('has row 2097153 after row 0'),
    });
    const backwards = inlineRow(3, ['Phone Number']) + inlineRow(2, ['+14155550101']);
    expect(await refusal(zip(workbookParts({ sheets: [{ name: 'Contacts', data: backwards }] })))).toMatchObject({
      code: 'corrupt',
      message: expect.stringContaining('rows must come in order'),
    });
  });
});

describe('text as Excel shows it', () => {
  it('leaves phonetic runs out, joins rich runs and decodes _xHHHH_ escapes, shared and inline', async () => {
    const sst = [
      '<t>Phone Number</t>',
      '<t>Name</t>',
      '<t>山田太郎</t><rPh sb="0" eb="2"><t>ヤマダ</t></rPh><rPh sb="2" eb="4"><t>タロウ</t></rPh><phoneticPr fontId="1"/>',
      '<r><rPr><b/></rPr><t>Ada_x000D_</t></r><r><t xml:space="preserve"> Love_x005F_x0041_lace</t></r>',
      `<t>${esc('+1 415 555 0103')}</t>`,
    ];
    const data =
      '<row r="1"><c r="A1" t="s"><v>0</v></c><c r="B1" t="s"><v>1</v></c></row>' +
      '<row r="2"><c r="A2" t="str"><f>"x"</f><v>+1_x0020_415 555 0101</v></c><c r="B2" t="s"><v>2</v></c></row>' +
      '<row r="3"><c r="A3" t="inlineStr"><is><r><t>+1 415 </t></r><r><t>555 0102</t></r><rPh><t>ignored</t></rPh></is></c><c r="B3" t="s"><v>3</v></c></row>' +
      '<row r="4"><c r="A4" t="s"><v>4</v></c><c r="B4" t="inlineStr"><is><t><![CDATA[<CDATA & co>]]></t></is></c></row>';
    expect((await contacts(zip(workbookParts({ sheets: [{ name: 'Contacts', data }], sst })))).rows).toEqual([
      [2, '+1 415 555 0101', '山田太郎'],
      [3, '+1 415 555 0102', 'Ada\r Love_x0041_lace'],
      [4, '+1 415 555 0103', '<CDATA & co>'],
    ]);
  });

  it('refuses a shared-string index that does not exist', async () => {
    const data = `${header()}<row r="2"><c r="A2" t="s"><v>7</v></c></row>`;
    expect(await refusal(zip(workbookParts({ sheets: [{ name: 'Contacts', data }], sst: ['<t>a</t>'] })))).toEqual({
      code: 'corrupt',
      message: 'The file is damaged: xl/worksheets/sheet1.xml refers to shared text 7, which does not exist.',
    });
  });

  it('bounds the memory of rich shared strings: over the limit the file is refused, under it nothing is lost', async () => {
    // 20,000 strings of 50 one-character runs each, every run with its own font: 1,000,000 characters of text in
    // ~60 MB of markup. exceljs kept an object per run; here only the text is kept.
    let seed = 7;
    const colour = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed.toString(16).padStart(8, '0').slice(-6);
    };
    // Fonts vary from run to run, as in a pasted document, so the markup does not compress past the bomb guard.
    const rich = () =>
      Array.from(
        { length: 50 },
        () => `<r><rPr><b/><sz val="11"/><color rgb="FF${colour()}"/><rFont val="Calibri"/></rPr><t>x</t></r>`,
      ).join('');
    const sst = ['<t>Phone Number</t>', ...Array.from({ length: 20_000 }, rich)];
    const data = `${header()}<row r="2"><c r="A2" t="inlineStr"><is><t>+14155550101</t></is></c><c r="B2" t="s"><v>20000</v></c></row>`;
    const bytes = zip(workbookParts({ sheets: [{ name: 'Contacts', data }], sst }));
    expect((await contacts(bytes)).rows).toEqual([[2, '+14155550101', 'x'.repeat(50)]]);

    const tight = { ...DEFAULT_LIMITS, maxSharedStringChars: 500_000 };
    expect(await refusal(bytes, 'upload.xlsx', tight)).toEqual({
      code: 'too_large',
      message: expect.stringContaining('more than 500000 characters of text'),
    });
    const few = { ...DEFAULT_LIMITS, maxSharedStrings: 10_000 };
    expect((await refusal(bytes, 'upload.xlsx', few)).message).toContain('more than 10000 different texts');
  });

  it('keeps every shared string intact across its packed pages', () => {
    const strings = new SharedStrings(DEFAULT_LIMITS);
    const expected: string[] = [];
    for (let i = 0; i < 30_000; i++) {
      const s = i % 97 === 0 ? '' : `${i}:${'é'.repeat(i % 300)}`;
      expected.push(s);
      strings.push(s);
    }
    strings.flush();
    expect(strings.count).toBe(30_000);
    for (let i = 0; i < 30_000; i += 7) expect(strings.get(i)).toBe(expected[i]);
    expect(strings.get(29_999)).toBe(expected[29_999]);
    expect(strings.get(30_000)).toBeUndefined();
    expect(strings.get(-1)).toBeUndefined();
  });
});

describe('CSV', () => {
  it('refuses an unterminated quote, naming its line, instead of swallowing the rows after it', async () => {
    const csv = Buffer.from('Phone Number,Name\n+14155550101,"Ada\n+14155550102,Grace\n+14155550103,Linus\n');
    expect(await refusal(csv, 'list.csv')).toEqual({
      code: 'unterminated_quote',
      message: expect.stringContaining('a quote (") opened on line 2 that is never closed'),
    });
    // A closed quote may hold line breaks and separators.
    const quoted = Buffer.from('Phone Number,Name\n+14155550101,"Ada, Countess\nof Lovelace"\n+14155550102,Grace\n');
    expect((await contacts(quoted, 'list.csv')).rows).toEqual([
      [2, '+14155550101', 'Ada, Countess\nof Lovelace'],
      [3, '+14155550102', 'Grace'],
    ]);
  });

  it('reads semicolon- and tab-separated files with title rows, and says how it read one without the column', async () => {
    for (const sep of [';', '\t']) {
      const text = `Export, March 2026\n\nPhone Number${sep}Name\n+14155550101${sep}Ada, Countess\n`;
      expect((await contacts(Buffer.from(text), 'list.csv')).rows).toEqual([[4, '+14155550101', 'Ada, Countess']]);
    }
    expect(await refusal(Buffer.from('Telefon;Name\n+14155550101;Ada\n'), 'list.csv')).toEqual({
      code: 'no_phone_column',
      message: expect.stringMatching(/^This file looks semicolon-separated and was read that way, but none/),
    });
    expect((await refusal(Buffer.from('Telefon\tName\n+14155550101\tAda\n'), 'list.txt')).message).toMatch(
      /^This file looks tab-separated/,
    );
    // A comma file (or any text renamed .csv) is no worksheet either: it is said the same way.
    expect((await refusal(Buffer.from('Telefon,Name\n+14155550101,Ada\n'), 'list.csv')).message).toMatch(
      /^This file looks comma-separated and was read that way, but none of its first 20 rows has a "Phone Number" column/,
    );
    const utf16 = Buffer.concat([
      Buffer.from([0xff, 0xfe]),
      Buffer.from('Phone Number\tName\r\n+14155550101\tAda\r\n', 'utf16le'),
    ]);
    expect((await contacts(utf16, 'unicode.txt')).rows).toEqual([[2, '+14155550101', 'Ada']]);
  });
});

describe('files that are not spreadsheets', () => {
  it('says what a PDF, an image, a Word document or an Excel 2003 XML file is, and never to rename it to .csv', async () => {
    const cases: [Buffer, string, string][] = [
      [Buffer.from('%PDF-1.7\n%âãÏÓ\n1 0 obj\n'), 'contacts.xlsx', 'This is a PDF document, not a spreadsheet.'],
      [
        Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex'),
        'contacts.csv',
        'This is a PNG image, not a spreadsheet.',
      ],
      [
        Buffer.from('<?xml version="1.0"?>\n<Workbook xmlns="urn:schemas-microsoft-com:office:spreadsheet">'),
        'contacts.xls',
        'This is an Excel 2003 XML spreadsheet, not a spreadsheet. Open it in Excel and save it as .xlsx.',
      ],
      [
        zip([
          { name: '[Content_Types].xml', data: Buffer.from('<Types/>') },
          {
            name: '_rels/.rels',
            data: Buffer.from(
              '<Relationships><Relationship Id="r1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>',
            ),
          },
          { name: 'word/document.xml', data: Buffer.from('<document/>') },
        ]),
        'contacts.xlsx',
        'This is a Word document (.docx), not a spreadsheet.',
      ],
    ];
    for (const [bytes, name, start] of cases) {
      const r = await refusal(bytes, name);
      expect(r.code, name).toBe('unsupported_format');
      expect(r.message.startsWith(start), r.message).toBe(true);
      expect(r.message).not.toContain('.csv if');
    }
  });
});

describe('the Settings sheet', () => {
  it('reads up to the limit of rows and refuses more, naming the first row too many', async () => {
    const rows = (n: number) =>
      Array.from({ length: n }, (_, i) => inlineRow(i + 1, [i === 0 ? 'Setting' : 'campaign name', `v${i}`])).join('');
    const book = (n: number) =>
      zip(
        workbookParts({
          sheets: [
            { name: 'Contacts', data: list(['+14155550101', 'Ada']) },
            { name: 'Settings', state: 'hidden', data: rows(n) },
          ],
        }),
      );
    expect((await contacts(book(200))).settings).toHaveLength(200);
    expect(await refusal(book(201))).toEqual({
      code: 'invalid_settings',
      message: expect.stringContaining('more than 200 filled rows (row 201 is one too many)'),
    });
  });
});

/**
 * The bytes as a stream of pieces of `size` bytes (an S3 body arrives so), counting what the reader pulled: a reader
 * that stops at a refusal pulls no more.
 */
function streamed(bytes: Buffer, size = 64 * 1024, claimed: number | null = null) {
  const source = {
    size: claimed,
    pulled: 0,
    async *chunks() {
      for (let at = 0; at < bytes.length; at += size) {
        const piece = bytes.subarray(at, at + size);
        source.pulled += piece.length;
        yield piece;
      }
    },
  };
  return source;
}

describe('bounds on one cell and one row', () => {
  const huge = (n: number) => 'x'.repeat(n);

  it("refuses a CSV cell past Excel's 32,767 characters, naming it, and reads no further", async () => {
    const fits = Buffer.from(`Phone Number,Name\n+14155550101,${huge(32_767)}\n`);
    expect((await contacts(fits, 'list.csv')).rows).toEqual([[2, '+14155550101', huge(32_767)]]);
    const over = `Phone Number,Name\n+14155550101,Ada\n+14155550102,${huge(32_768)}\n`;
    expect(await refusal(Buffer.from(over), 'list.csv')).toEqual({
      code: 'cell_too_long',
      message:
        'Cell B3 of the CSV file holds more than 32,767 characters, the most a spreadsheet cell can hold, so the file was not read. Shorten that cell and upload the file again.',
    });
    // An 8 MB cell in a stream: refused once the first lines (at most a million characters, to choose the separator)
    // are read, the rest never pulled.
    const big = streamed(Buffer.from(`Phone Number,Name\n+14155550101,${huge(8 << 20)}\n`));
    expect((await refusal(big, 'list.csv')).code).toBe('cell_too_long');
    expect(big.pulled).toBeLessThanOrEqual((1 << 20) + 64 * 1024);
  });

  it("names the quote that swallowed the lines after it once they pass a cell's limit", async () => {
    const lines = Array.from({ length: 4000 }, (_, i) => `+1415555${String(i).padStart(4, '0')},Contact ${i}`);
    const csv = `Phone Number,Name\r\n+14155550100,"Ada\r\n${lines.join('\r\n')}\r\n`;
    expect(await refusal(streamed(Buffer.from(csv), 1000), 'list.csv')).toEqual({
      code: 'cell_too_long',
      message: expect.stringContaining(
        'Cell B2 of the CSV file holds more than 32,767 characters, the most a spreadsheet cell can hold, so the file was not read. It starts with a quote (") on line 2, and everything up to the next quote is one cell',
      ),
    });
  });

  it('refuses a CSV row longer than the limit, naming its row and line, however its cells are split', async () => {
    const long = Array.from({ length: 600_000 }, () => '1').join(',');
    const csv = `Phone Number,Name\n+14155550101,"Ada\nLovelace"\n${long}\n+14155550103,Grace\n`;
    const message =
      'Row 3 of the CSV file (from line 4) is longer than 1,048,576 characters, far more than a row of contacts needs, so the file was not read. Check that row (a missing line break, or text pasted many times over) and upload the file again.';
    expect(await refusal(Buffer.from(csv), 'list.csv')).toEqual({ code: 'line_too_long', message });
    expect(await refusal(streamed(Buffer.from(csv), 4099), 'list.csv')).toEqual({ code: 'line_too_long', message });
    // A row of exactly the limit, its line break included, is read; one character more is not.
    const row = (chars: number) =>
      `+14155550101,${Array.from({ length: 40 }, () => huge(30_000)).join(',')}`.slice(0, chars - 1);
    expect((await contacts(Buffer.from(`Phone Number,Name\n${row(1_048_576)}\n`), 'list.csv')).rows).toHaveLength(1);
    expect((await refusal(Buffer.from(`Phone Number,Name\n${row(1_048_577)}\n`), 'list.csv')).message).toMatch(
      /^Row 2 of the CSV file \(from line 2\) is longer than 1,048,576 characters/,
    );
  });

  it('reads a CSV in pieces of any size exactly as it reads it whole, line numbers included', async () => {
    // 200 plain rows first, so the awkward ones come after the first 4 KB (read whole, to tell the format).
    const plain = Array.from({ length: 200 }, (_, i) => `+1415555${String(i).padStart(4, '0')},Contact ${i}\r\n`);
    const text =
      `\ufeffPhone Number,Name,Note\r\n${plain.join('')}+14155550901,"Ada ""the first""",é😀\r` +
      '+14155550902,"Grace\r\nHopper",\n+14155550903,Linus,"x"y\n\n"",Ω,"a\rb"\r\n+14155550904,"end"';
    const whole = await contacts(Buffer.from(text), 'list.csv');
    expect(whole.rows).toHaveLength(205);
    expect(whole.rows.slice(-5)).toEqual([
      [202, '+14155550901', 'Ada "the first"', 'é😀'],
      [203, '+14155550902', 'Grace\r\nHopper', ''],
      [204, '+14155550903', 'Linus', 'xy'],
      [206, '', 'Ω', 'a\rb'],
      [207, '+14155550904', 'end'],
    ]);
    for (const size of [1, 2, 3, 4, 5, 7, 11, 64])
      expect(await contacts(streamed(Buffer.from(text), size), 'list.csv'), `pieces of ${size}`).toEqual(whole);
    const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text.slice(1), 'utf16le')]);
    for (const size of [1, 3, 4096]) expect(await contacts(streamed(utf16, size), 'list.txt')).toEqual(whole);
    // A quote left open is named by its line, CR LF counted as one line break.
    const open = `Phone Number,Name\r\n${plain.join('')}+14155550901,"Grace\r\n+14155550902,Linus\r\n`;
    for (const source of [Buffer.from(open), streamed(Buffer.from(open), 1)])
      expect((await refusal(source, 'list.csv')).message).toContain(
        'a quote (") opened on line 202 that is never closed',
      );
  });

  it('refuses an .xlsx cell past 32,767 characters, inline or shared, naming the cell and its sheet', async () => {
    const book = (data: string, sst?: string[], settings?: string) =>
      zip(
        workbookParts({
          sheets: [
            { name: 'Contacts', data },
            ...(settings ? [{ name: 'Settings', state: 'hidden' as const, data: settings }] : []),
          ],
          ...(sst ? { sst } : {}),
        }),
      );
    const inline = (text: string) => list(['+14155550101', 'Ada'], ['+14155550102', text]);
    expect((await contacts(book(inline(huge(32_767))))).rows[1]).toEqual([3, '+14155550102', huge(32_767)]);
    expect(await refusal(book(inline(huge(32_768))))).toEqual({
      code: 'cell_too_long',
      message:
        'Cell B3 of the sheet "Contacts" holds more than 32,767 characters, the most a spreadsheet cell can hold, so the file was not read. Shorten that cell and upload the file again.',
    });
    // Shared text: a string too long is refused where a cell uses it; one no cell uses costs nothing.
    const shared = (n: number) =>
      book(`${header()}<row r="2"><c r="A2" t="s"><v>0</v></c><c r="B2" t="s"><v>1</v></c></row>`, [
        '<t>+14155550101</t>',
        `<t>${huge(n)}</t>`,
        `<t>${huge(100_000)}</t>`,
      ]);
    expect((await contacts(shared(32_767))).rows).toEqual([[2, '+14155550101', huge(32_767)]]);
    expect((await refusal(shared(32_768))).message).toMatch(/^Cell B2 of the sheet "Contacts" holds more than 32,767/);
    // Escapes count as the characters they stand for: 32,767 of them read, one more refused.
    const escaped = (n: number) => '_x0041_'.repeat(n);
    expect((await contacts(book(inline(escaped(32_767))))).rows[1]?.[2]).toBe('A'.repeat(32_767));
    expect((await refusal(book(inline(escaped(32_768))))).code).toBe('cell_too_long');
    // A text far past the limit, in pieces: refused without gathering it.
    expect((await refusal(book(inline(`${huge(300_000)}y`)))).code).toBe('cell_too_long');
    // The Settings sheet is read with the same bound.
    const settings = inlineRow(1, ['campaign name', huge(40_000)]);
    expect((await refusal(book(list(['+14155550101', 'Ada']), undefined, settings))).message).toMatch(
      /^Cell B1 of the sheet "Settings" holds more than 32,767/,
    );
  });

  it('refuses a file over the size limit from its size alone, and a stream that passes the limit as it arrives', async () => {
    const csv = Buffer.from('Phone Number,Name\n+14155550101,Ada\n');
    const limits = { ...DEFAULT_LIMITS, maxFileBytes: 30 };
    const claimed = streamed(csv, 8, 31);
    expect(await refusal(claimed, 'list.csv', limits)).toEqual({
      code: 'too_large',
      message:
        'The file is 31 bytes; callsheet reads at most 30 bytes per file, so it was not read. Split it into smaller files and upload each.',
    });
    expect(claimed.pulled).toBe(0);
    const unclaimed = streamed(csv, 8);
    expect((await refusal(unclaimed, 'list.csv', limits)).message).toMatch(/^The file is larger than 30 bytes/);
    expect(unclaimed.pulled).toBe(32);
    const xlsx = streamed(
      zip(workbookParts({ sheets: [{ name: 'Contacts', data: list(['+14155550101', 'A']) }] })),
      100,
    );
    expect((await refusal(xlsx, 'list.xlsx', { ...DEFAULT_LIMITS, maxFileBytes: 500 })).code).toBe('too_large');
    expect(xlsx.pulled).toBe(600);
  });
});
