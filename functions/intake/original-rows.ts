import { type Cell, cellText, MAX_COLUMNS, MAX_ROWS, type RawRow } from '#commons/spreadsheet/cell.ts';
import { textCell } from '#commons/spreadsheet/xlsx-writer.ts';

/** The columns the annotated copy adds after the original ones (writers.ts). */
export const FATE_COLUMNS = ['callsheet result', 'normalized phone', 'part', 'time zone', 'reason'] as const;

/** Original columns the annotated sheet has room for beside the fate columns. */
export const ORIGINAL_COLUMNS = MAX_COLUMNS - FATE_COLUMNS.length;

/**
 * The contact sheet's data rows as they stream past the rules, kept for the annotated copy so the upload is read
 * once (a second read cost as much as the first). The cells are kept as read: their text already lives in memory
 * (a workbook's shared strings are held for the whole read), so keeping them costs the small arrays and nothing is
 * converted until the annotated sheet is written.
 */
export class OriginalRows {
  private readonly cells: Cell[][] = [];
  /** The sheet row number of each held row, in order. */
  private readonly sheetRows: number[] = [];

  add(r: RawRow): void {
    // Every reader hands over a new array per row (sources.ts), so it is kept as it is unless too wide.
    this.cells.push(r.cells.length > ORIGINAL_COLUMNS ? r.cells.slice(0, ORIGINAL_COLUMNS) : r.cells);
    this.sheetRows.push(r.row);
  }

  /** How many rows are held. */
  get size(): number {
    return this.cells.length;
  }

  /** The sheet row number of the `i`th held row. */
  sheetRow(i: number): number {
    return this.sheetRows[i] as number;
  }

  /** Whether every held row comes after `after` and the one before it, the last at most `last`. */
  ascendingWithin(after: number, last: number): boolean {
    let previous = after;
    for (const row of this.sheetRows) {
      if (row <= previous) return false;
      previous = row;
    }
    return previous <= last;
  }

  /**
   * Where a sheet row is among the held rows, or -1 for a row not held. Looked up in an array indexed by row (at most
   * 4 MB for Excel's 1,048,576 rows), not a Map: the annotated copy looks up every row, and a 100,000-entry Map cost
   * about 45 ms to fill and read. Only a text file numbered past Excel's rows (blank lines count) gets a Map.
   */
  positionOf(): (row: number) => number {
    let last = 0;
    for (const row of this.sheetRows) if (row > last) last = row;
    if (last > MAX_ROWS) {
      const at = new Map<number, number>();
      for (let i = 0; i < this.sheetRows.length; i++) at.set(this.sheetRows[i] as number, i);
      return (row) => at.get(row) ?? -1;
    }
    const at = new Int32Array(last + 1);
    for (let i = 0; i < this.sheetRows.length; i++) at[this.sheetRows[i] as number] = i + 1;
    return (row) => (row < at.length ? (at[row] as number) - 1 : -1);
  }

  /** The `i`th held row's cells as worksheet XML, in the row whose `rowRef` is `ref`. */
  cellsXml(i: number, ref: string): string {
    const cells = this.cells[i] as Cell[];
    let xml = '';
    for (let column = 0; column < cells.length; column++) {
      const c = cells[column];
      if (c !== null && c !== undefined) xml += textCell(column, ref, cellText(c));
    }
    return xml;
  }
}
