import type { ZipEntrySpec } from './zip.ts';

/** One tab of a hand-built workbook. */
export interface BuiltSheet {
  name: string;
  state?: 'visible' | 'hidden' | 'veryHidden';
  /** Zip path of its part; `xl/worksheets/sheet<n>.xml` by default. */
  path?: string;
  /** The content of `<sheetData>`, exactly as it is to be written. */
  data: string;
}

export interface BuiltWorkbook {
  /** In tab order. */
  sheets: BuiltSheet[];
  /** Each shared string's `<si>` content, exactly as it is to be written; no shared-strings part when absent. */
  sst?: string[];
  /** Archive order of the sheet parts (indexes into `sheets`); tab order by default. */
  partOrder?: number[];
  /** Written right after each part's XML declaration (a DTD, say). */
  prolog?: string;
}

const MAIN = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';
const REL = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
const DECL = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n';

export const esc = (s: string) =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/**
 * The parts of an .xlsx written by hand, so a test can build what no library writes: tabs in an order different
 * from their parts, hidden tabs, parts under unusual names, rows and cells without `r`, phonetic runs, escapes.
 */
export function workbookParts(wb: BuiltWorkbook): ZipEntrySpec[] {
  const prolog = wb.prolog ?? '';
  const part = (name: string, xml: string): ZipEntrySpec => ({ name, data: Buffer.from(DECL + prolog + xml) });
  const paths = wb.sheets.map((s, i) => s.path ?? `xl/worksheets/sheet${i + 1}.xml`);
  const target = (p: string) => (p.startsWith('xl/') ? p.slice(3) : `/${p}`);
  const rels = paths
    .map((p, i) => `<Relationship Id="rId${i + 1}" Type="${REL}/worksheet" Target="${esc(target(p))}"/>`)
    .join('');
  const sstRel = wb.sst ? `<Relationship Id="rIdS" Type="${REL}/sharedStrings" Target="sharedStrings.xml"/>` : '';
  const sheets = wb.sheets
    .map(
      (s, i) =>
        `<sheet name="${esc(s.name)}" sheetId="${i + 1}"${s.state && s.state !== 'visible' ? ` state="${s.state}"` : ''} r:id="rId${i + 1}"/>`,
    )
    .join('');
  const overrides = paths
    .map(
      (p) =>
        `<Override PartName="/${esc(p)}" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>`,
    )
    .join('');
  const order = wb.partOrder ?? wb.sheets.map((_, i) => i);
  return [
    part(
      '[Content_Types].xml',
      `<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>${overrides}${wb.sst ? '<Override PartName="/xl/sharedStrings.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sharedStrings+xml"/>' : ''}</Types>`,
    ),
    part(
      '_rels/.rels',
      `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="${REL}/officeDocument" Target="xl/workbook.xml"/></Relationships>`,
    ),
    part('xl/workbook.xml', `<workbook xmlns="${MAIN}" xmlns:r="${REL}"><sheets>${sheets}</sheets></workbook>`),
    part(
      'xl/_rels/workbook.xml.rels',
      `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">${rels}${sstRel}</Relationships>`,
    ),
    ...(wb.sst
      ? [
          part(
            'xl/sharedStrings.xml',
            `<sst xmlns="${MAIN}" count="${wb.sst.length}" uniqueCount="${wb.sst.length}">${wb.sst.map((s) => `<si>${s}</si>`).join('')}</sst>`,
          ),
        ]
      : []),
    ...order.map((i) =>
      part(
        paths[i] as string,
        `<worksheet xmlns="${MAIN}" xmlns:r="${REL}"><sheetData>${wb.sheets[i]?.data}</sheetData></worksheet>`,
      ),
    ),
  ];
}

/** A row of inline-string cells with addresses, for the simple cases. */
export function inlineRow(r: number, values: (string | number | null)[]): string {
  const col = (i: number) => String.fromCharCode(65 + i);
  const cells = values
    .map((v, i) => {
      if (v === null) return '';
      const ref = `${col(i)}${r}`;
      return typeof v === 'number'
        ? `<c r="${ref}"><v>${v}</v></c>`
        : `<c r="${ref}" t="inlineStr"><is><t>${esc(v)}</t></is></c>`;
    })
    .join('');
  return `<row r="${r}">${cells}</row>`;
}
