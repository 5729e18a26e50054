import { execFileSync } from 'node:child_process';
import * as XLSX from '@e965/xlsx';
import ExcelJS from 'exceljs';

/**
 * Reads a written workbook back three independent ways, so "it opens" means more than "our own code agrees":
 * - Python's zipfile + expat: every part's CRC, and every XML part parsed by a strict XML 1.0 parser (it rejects the
 *   characters XML cannot carry, which lenient readers let through);
 * - exceljs (what the Voice API's side of this project reads parts with);
 * - SheetJS, a second spreadsheet reader, which also decodes Excel's `_xHHHH_` escapes.
 */
export async function readAllWays(bytes: Buffer): Promise<{
  strict: { sheets: string[]; rows: number[] };
  exceljs: unknown[][];
  sheetjs: string[][];
  sheetNames: string[];
}> {
  const strict = JSON.parse(
    execFileSync(
      'python3',
      [
        '-c',
        `
import io, json, sys, zipfile, xml.etree.ElementTree as ET
z = zipfile.ZipFile(io.BytesIO(sys.stdin.buffer.read()))
bad = z.testzip()
if bad: raise SystemExit('bad CRC in ' + bad)
ns = '{http://schemas.openxmlformats.org/spreadsheetml/2006/main}'
sheets, rows = [], []
for name in z.namelist():
    root = ET.fromstring(z.read(name))
    if name.startswith('xl/worksheets/'):
        sheets.append(name)
        rows.append(len(root.findall('.//' + ns + 'row')))
print(json.dumps({'sheets': sheets, 'rows': rows}))
`,
      ],
      { input: bytes, maxBuffer: 1 << 26 },
    ).toString(),
  );
  const wb = new ExcelJS.Workbook();
  await wb.xlsx.load(bytes as unknown as ArrayBuffer);
  const exceljs: unknown[][] = [];
  wb.worksheets[0]?.eachRow((r) => exceljs.push((r.values as unknown[]).slice(1)));
  const book = XLSX.read(bytes, { type: 'buffer', dense: true });
  const first = book.Sheets[book.SheetNames[0] as string];
  const sheetjs = first ? XLSX.utils.sheet_to_json<string[]>(first, { header: 1, raw: true, defval: '' }) : [];
  return { strict, exceljs, sheetjs, sheetNames: book.SheetNames };
}
