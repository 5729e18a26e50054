import { describe, expect, it } from 'vitest';
import { OriginalRows } from '#intake/original-rows.ts';

describe('the rows held for the annotated copy', () => {
  it.each([
    ['within Excel’s rows (array)', [2, 3, 7, 1_048_576]],
    ['past Excel’s rows, as a text file can be numbered (map)', [2, 9, 1_048_577, 3_000_000]],
  ])('find each sheet row’s place %s, and no place for a row not held', (_, rows) => {
    const held = new OriginalRows();
    for (const row of rows) held.add({ row, cells: [String(row)] });
    const position = held.positionOf();
    rows.forEach((row, i) => {
      expect(position(row)).toBe(i);
      expect(held.sheetRow(i)).toBe(row);
    });
    for (const absent of [0, 1, 4, (rows.at(-1) as number) + 1, 5_000_000]) expect(position(absent)).toBe(-1);
  });
});
