import * as XLSX from '@e965/xlsx';
import ExcelJS from 'exceljs';

export type Row = (string | number | null)[];

/** An .xlsx built with exceljs: header row then data rows. */
export async function xlsx(rows: Row[], sheetName = 'Contacts'): Promise<Buffer> {
  const wb = new ExcelJS.Workbook();
  const ws = wb.addWorksheet(sheetName);
  for (const r of rows) ws.addRow(r);
  return Buffer.from(await wb.xlsx.writeBuffer());
}

/** A legacy .xls (BIFF8) built with SheetJS. */
export function xls(rows: Row[]): Buffer {
  const wb = XLSX.utils.book_new();
  XLSX.utils.book_append_sheet(wb, XLSX.utils.aoa_to_sheet(rows), 'Contacts');
  return XLSX.write(wb, { type: 'buffer', bookType: 'biff8' }) as Buffer;
}

/** `n` distinct valid E.164 numbers. */
export function phones(n: number, prefix = '+1415555'): string[] {
  return Array.from({ length: n }, (_, i) => `${prefix}${String(1000 + i).padStart(4, '0')}`);
}

export function contactSheet(numbers: string[]): Row[] {
  return [
    ['Phone Number', 'Name', 'Custom Instruction'],
    ...numbers.map((p, i) => [p, `Contact ${i + 1}`, i % 2 ? 'Be brief.' : null]),
  ];
}
