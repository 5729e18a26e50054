import { threadId } from 'node:worker_threads';
import * as XLSX from '@e965/xlsx';
import ExcelJS from 'exceljs';

export type Row = (string | number | null)[];

let saved = 0;

/**
 * An .xlsx built with exceljs: header row then data rows. Each call's workbook is a file of its own, as two files a
 * user saves are (a serial in its properties): exceljs stamps only the second it was written, so the same rows saved
 * twice in one second were byte for byte one file, and intake refused the second as a repeated upload. A test that
 * means to upload the same file again sends the same buffer.
 */
export async function xlsx(rows: Row[], sheetName = 'Contacts'): Promise<Buffer> {
  const wb = new ExcelJS.Workbook();
  wb.description = `test sheet ${process.pid}.${threadId}-${++saved}`;
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
