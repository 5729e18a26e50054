import { describe, expect, it } from 'vitest';
import { terminalLine } from '#local/cli/file-log.ts';

/** What `callsheet local` shows on the terminal of a warning or error its log file keeps as JSON. */
describe('terminalLine', () => {
  it.each([
    ['a message alone', 'warning', 'the API is slow', undefined, 'callsheet local: warning: the API is slow'],
    [
      'plain fields, in order; text with spaces quoted',
      'error',
      'safety: guard braked',
      { actor: 'guard', campaignId: 'cmp_1', reason: 'execution aborted', pauseHeld: false },
      'callsheet local: error: safety: guard braked (actor=guard campaignId=cmp_1 reason="execution aborted" pauseHeld=false)',
    ],
    [
      'no embedded metrics, objects or empty values',
      'error',
      'safety: guard braked',
      { outcome: 'braked', GuardActions: 1, _aws: { Timestamp: 1 }, window: { rules: [] }, note: undefined, at: null },
      'callsheet local: error: safety: guard braked (outcome=braked)',
    ],
  ] as const)('%s', (_what, level, message, fields, line) => {
    expect(terminalLine('callsheet-local', level, message, fields as Record<string, unknown> | undefined)).toBe(line);
  });
});
