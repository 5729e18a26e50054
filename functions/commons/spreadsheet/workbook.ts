import type { RawRow } from './cell.ts';
import type { SheetState } from './xlsx-package.ts';

export type SheetFormat = 'xlsx' | 'xls' | 'csv';

export type CsvSeparator = ',' | ';' | '\t';

export interface SheetSource {
  name: string;
  /** Hidden and very hidden tabs are not shown in Excel's tab bar. */
  state: SheetState;
  /** The sheet's rows in order, a batch at a time: a promise per row costs more than reading the row. */
  batches: AsyncIterable<RawRow[]>;
}

/** A workbook as the readers hand it over (sources.ts): its format and its tabs. */
export interface OpenedWorkbook {
  format: SheetFormat;
  /** For CSV: the separator its cells were split on. */
  separator?: CsvSeparator;
  /**
   * Tabs in the order Excel shows them, each to be read (or skipped, at no cost) before the next is asked for.
   * Asked for once: a CSV streams past as it is read.
   */
  sheets(): AsyncIterable<SheetSource>;
}

const BATCH_ROWS = 500;

export async function* inBatches(rows: Iterable<RawRow>): AsyncIterable<RawRow[]> {
  let batch: RawRow[] = [];
  for (const r of rows) {
    batch.push(r);
    if (batch.length === BATCH_ROWS) {
      yield batch;
      batch = [];
    }
  }
  if (batch.length > 0) yield batch;
}
