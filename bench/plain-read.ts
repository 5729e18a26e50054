import ExcelJS from 'exceljs';

/** The baseline every intake figure is a ratio of: a plain exceljs streaming read of every row. */
export async function plainRead(file: string): Promise<number> {
  let rows = 0;
  const reader = new ExcelJS.stream.xlsx.WorkbookReader(file, {
    sharedStrings: 'cache',
    hyperlinks: 'ignore',
    styles: 'ignore',
    worksheets: 'emit',
    entries: 'emit',
  });
  for await (const sheet of reader) for await (const _row of sheet as unknown as AsyncIterable<unknown>) rows++;
  return rows;
}
