import { describe, expect, it } from 'vitest';
import type { Log } from '#commons/log.ts';
import { scanSaidOnce } from '#local/stack/scan-said-once.ts';

describe("the embedded stack's sweeper log", () => {
  it('says a scan of a table made before its index once, and every other line each time', () => {
    const lines: string[] = [];
    const log: Log = {
      info: (m) => lines.push(`info ${m}`),
      warn: (m) => lines.push(`warn ${m}`),
      error: (m) => lines.push(`error ${m}`),
    };
    const said = scanSaidOnce(log);
    for (let sweep = 0; sweep < 3; sweep++) {
      said.warn('sweeper: scanned the whole campaigns table, an index of it not readable', { scanned: 'by-end-day' });
      said.warn('sweeper: secured a campaign', { partKey: 'p1' });
    }
    said.error('sweeper failed');
    said.info('note');
    expect(lines).toEqual([
      "warn sweeper: this data directory's campaigns table was made before one of its indexes (dynalite cannot add one), so each sweep scans the table instead: nothing to do at its size",
      'warn sweeper: secured a campaign',
      'warn sweeper: secured a campaign',
      'warn sweeper: secured a campaign',
      'error sweeper failed',
      'info note',
    ]);
  });
});
