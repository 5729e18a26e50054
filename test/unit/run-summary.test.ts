import { describe, expect, test } from 'vitest';
import { isoDuration, readableDuration, runOutcome, runSummary } from '#local/cli/run-summary.ts';
import { counted } from '#local/cli/words.ts';

describe('durations in the run summary', () => {
  test.each([
    [0, 'PT0S', '0 s'],
    [59, 'PT59S', '59 s'],
    [3_723, 'PT1H2M3S', '1 h 2 min 3 s'],
    [7_200, 'PT2H', '2 h'],
    [86_400, 'P1D', '1 d'],
    [213_617, 'P2DT11H20M17S', '2 d 11 h 20 min 17 s'],
    [172_860, 'P2DT1M', '2 d 1 min'],
  ])('%i s is %s, read as "%s"', (seconds, iso, readable) => {
    expect(isoDuration(seconds)).toBe(iso);
    expect(readableDuration(iso)).toBe(readable);
  });
});

describe('counts with their nouns', () => {
  test.each([
    [0, 'contact', undefined, '0 contacts'],
    [1, 'contact', undefined, '1 contact'],
    [2, 'contact', undefined, '2 contacts'],
    [1, 'reply', 'replies', '1 reply'],
    [3, 'reply', 'replies', '3 replies'],
  ])('%i %s', (n, noun, nouns, text) => {
    expect(counted(n, noun, nouns)).toBe(text);
  });
});

describe('how a run ends', () => {
  const summary = (failures: Record<string, number>) => ({
    ...runSummary(null, null),
    failedByReason: failures,
  });
  test.each([
    ['every part completed', ['completed', 'completed'], {}, 0, []],
    ['a part failed', ['completed', 'failed'], {}, 1, []],
    ['no part at all', [], {}, 1, []],
    ['busy and no answer are outcomes, not failures of the run', ['completed'], { busy: 2, no_answer: 1 }, 0, []],
    [
      'calls failed for want of credits',
      ['completed'],
      { insufficient_credits: 3 },
      1,
      [
        '3 calls failed for want of credits: top up the account (here: --credits); the part reports show whose calls they were.',
      ],
    ],
    [
      'one call failed for want of credits',
      ['completed'],
      { insufficient_credits: 1 },
      1,
      [
        '1 call failed for want of credits: top up the account (here: --credits); the part reports show whose calls they were.',
      ],
    ],
  ])('%s', (_what, statuses, failures, code, lines) => {
    const outcome = runOutcome(
      statuses.map((status) => ({ status })),
      summary(failures),
      'here: --credits',
    );
    expect(outcome).toEqual({ code, lines });
  });
});
