import { describe, expect, it } from 'vitest';
import { cellRef, ROW_SPAN } from '#commons/spreadsheet/xlsx-worksheet.ts';

/** The reference grammar as a regular expression: what the hand-written reader must agree with. */
const GRAMMAR = /^\$?([A-Za-z]{1,3})\$?(\d{1,7})$/;

function byGrammar(ref: string): number {
  const m = GRAMMAR.exec(ref);
  if (!m) return -1;
  let column = 0;
  for (const ch of (m[1] as string).toUpperCase()) column = column * 26 + (ch.charCodeAt(0) - 64);
  return column * ROW_SPAN + Number(m[2]);
}

/** A packed reference as [column, row]. */
const decoded = (at: number) => [Math.floor(at / ROW_SPAN), at % ROW_SPAN];

describe('cellRef', () => {
  it.each([
    ['A1', 1, 1],
    ['B7', 2, 7],
    ['$B$7', 2, 7],
    ['$b7', 2, 7],
    ['Z10', 26, 10],
    ['AA3', 27, 3],
    ['xfd1048576', 16_384, 1_048_576],
    ['ZZZ9999999', 18_278, 9_999_999],
    ['A007', 1, 7],
    ['A0', 1, 0],
    // Past Excel's last row: read as written, so the reader refuses it rather than moving the cell.
    ['A2097153', 1, 2_097_153],
    ['XFD9999999', 16_384, 9_999_999],
  ])('reads %s as column %i, row %i', (ref, column, row) => {
    expect(decoded(cellRef(ref))).toEqual([column, row]);
  });

  it.each([
    '',
    '$',
    'A',
    '7',
    'AAAA1',
    'A12345678',
    'A$',
    '$$A1',
    'A$$1',
    'A1$',
    'A 1',
    ' A1',
    'A1 ',
    'A-1',
    'A1.5',
    '@1',
    '[1',
    'É1',
    'A١',
    'R1C1',
  ])('refuses %j', (ref) => {
    expect(cellRef(ref)).toBe(-1);
  });

  it('agrees with the grammar on random references', () => {
    const letters = ['A', 'z', 'Q', 'x', '@', '[', '`', '{', 'é'];
    const digits = ['0', '9', '5', '1', '٣', '-', ' '];
    let seed = 7;
    const next = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed;
    };
    const some = (from: string[], most: number) => {
      let out = '';
      for (let i = next() % (most + 1); i > 0; i--) out += from[next() % from.length];
      return out;
    };
    // Mostly near-references (dollars, letters, digits, in that order), so both answers come up often.
    let valid = 0;
    for (let n = 0; n < 20_000; n++) {
      const ref = `${some(['$'], 1)}${some(letters, 4)}${some(['$'], 1)}${some(digits, 8)}${some(['$', 'A', '1'], 1)}`;
      const expected = byGrammar(ref);
      if (expected >= 0) valid++;
      expect(cellRef(ref), JSON.stringify(ref)).toBe(expected);
    }
    expect(valid).toBeGreaterThan(300);
    expect(valid).toBeLessThan(19_000);
  });
});
