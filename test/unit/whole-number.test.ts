import { describe, expect, it } from 'vitest';
import { ConfigError, EnvReader, wholeNumber } from '#commons/config.ts';

/** The one check of whole-number settings, as every function's reader uses it. */
describe('wholeNumber', () => {
  it.each([
    ['7', 1, 60, 7],
    ['60', 1, 60, 60],
    ['0', 0, 900, 0],
    ['0', 1, 60, 'a whole number from 1 to 60'],
    ['61', 1, 60, 'a whole number from 1 to 60'],
    ['1.5', 1, 60, 'a whole number from 1 to 60'],
    ['-1', 0, 900, 'a whole number from 0 to 900'],
    ['1000000', 1, undefined, 1_000_000],
    ['0', 1, undefined, 'a whole number ≥ 1'],
    ['soon', 1, undefined, 'a whole number ≥ 1'],
  ])('%s in %s..%s', (raw, min, max, expected) => {
    const env = new EnvReader({ N: raw });
    const read = env.checked('N', wholeNumber(min, max));
    if (typeof expected === 'number') {
      expect(read).toBe(expected);
      expect(() => env.done()).not.toThrow();
    } else {
      expect(read).toBeUndefined();
      expect(() => env.done()).toThrow(new ConfigError([`N=${JSON.stringify(raw)}: ${expected}`]));
    }
  });
});
