import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { TestSpecification, Vitest } from 'vitest/node';
import { SLOWEST, SlowestFirst } from '../helpers/sequencer.ts';

const ROOT = '/repo';
const project = { name: '', config: { sequence: { groupOrder: 0 }, isolate: false } };
const spec = (file: string) => ({ moduleId: join(ROOT, file), project }) as unknown as TestSpecification;

/** A Vitest with no cached results, as on a fresh clone: its own order is by file size, largest first. */
function freshClone(sizes: Record<string, number>): Vitest {
  return {
    config: { root: ROOT },
    cache: {
      getFileTestResults: () => undefined,
      getFileStats: (key: string) => ({ size: sizes[key.replace(/^:/, '')] ?? 0 }),
    },
  } as unknown as Vitest;
}

describe('the test order', () => {
  it('starts the slowest files first and keeps Vitest’s order for the rest', async () => {
    const sizes = {
      'test/big.test.ts': 900,
      'test/run-cli.test.ts': 100,
      'test/small.test.ts': 50,
      'test/local/local-command.test.ts': 200,
    };
    const order = await new SlowestFirst(freshClone(sizes)).sort(Object.keys(sizes).map(spec));
    expect(order.map((s) => s.moduleId.slice(ROOT.length + 1))).toEqual([
      'test/local/local-command.test.ts',
      'test/run-cli.test.ts',
      'test/big.test.ts',
      'test/small.test.ts',
    ]);
  });

  it('names only files that exist', () => {
    expect(SLOWEST.filter((f) => !existsSync(f))).toEqual([]);
  });
});
