import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, test } from 'vitest';
import { localDataDir } from '#local/stack/data-dir.ts';

describe('the local data directory (CALLSHEET_DATA_DIR)', () => {
  const elsewhere = mkdtempSync(join(tmpdir(), 'callsheet-data-dir-'));

  test.each([
    ['unset', undefined, resolve('.callsheet')],
    ['empty', '', resolve('.callsheet')],
    ['blank', '  ', resolve('.callsheet')],
    ['a folder', elsewhere, elsewhere],
    ['a relative folder', 'runs/a', resolve('runs/a')],
  ])('%s: %s', (_, value, expected) => {
    expect(localDataDir(value === undefined ? {} : { CALLSHEET_DATA_DIR: value })).toBe(expected);
  });

  test('a file is refused by name, with what to do', () => {
    const file = join(elsewhere, 'not-a-folder');
    writeFileSync(file, '');
    expect(() => localDataDir({ CALLSHEET_DATA_DIR: file })).toThrow(`${file} is a file, not a folder`);
  });
});
