import { describe, expect, it } from 'vitest';
import { type Retrier, retryDelayMs } from '#local/stack/retry-delay.ts';

const TRANSIENT: Retrier = {
  ErrorEquals: ['TransientError', 'States.Timeout'],
  IntervalSeconds: 2,
  BackoffRate: 2,
  MaxAttempts: 3,
  MaxDelaySeconds: 5,
};
const BUDGET: Retrier = { ErrorEquals: ['BudgetExhaustedError'], IntervalSeconds: 60, BackoffRate: 1, MaxAttempts: 2 };

describe('retryDelayMs: the wait before Step Functions retries a task, as the service counts it', () => {
  it.each([
    { name: 'first retry waits the interval', retriers: [TRANSIENT], error: 'TransientError', before: [], want: 2000 },
    { name: 'backoff doubles it', retriers: [TRANSIENT], error: 'TransientError', before: [1], want: 4000 },
    { name: 'capped at MaxDelaySeconds', retriers: [TRANSIENT], error: 'TransientError', before: [2], want: 5000 },
    { name: 'out of attempts: no retry', retriers: [TRANSIENT], error: 'TransientError', before: [3], want: null },
    { name: 'an error no retrier names', retriers: [TRANSIENT], error: 'PermanentError', before: [], want: null },
    {
      name: 'the first retrier naming it',
      retriers: [BUDGET, TRANSIENT],
      error: 'BudgetExhaustedError',
      before: [],
      want: 60_000,
    },
    {
      name: 'a later retrier for another error',
      retriers: [BUDGET, TRANSIENT],
      error: 'States.Timeout',
      before: [2, 0],
      want: 2000,
    },
    {
      name: 'States.ALL takes anything',
      retriers: [{ ErrorEquals: ['States.ALL'], IntervalSeconds: 5 }],
      error: 'X',
      before: [],
      want: 5000,
    },
    {
      name: 'States.TaskFailed but not a timeout',
      retriers: [{ ErrorEquals: ['States.TaskFailed'] }],
      error: 'States.Timeout',
      before: [],
      want: null,
    },
  ])('$name', ({ retriers, error, before, want }) => {
    const attempts = [...before];
    expect(retryDelayMs(retriers, error, attempts)).toBe(want);
  });

  it('counts each retry on the retrier that took it', () => {
    const attempts: number[] = [];
    expect([1, 2, 3].map(() => retryDelayMs([BUDGET, TRANSIENT], 'BudgetExhaustedError', attempts))).toEqual([
      60_000,
      60_000,
      null,
    ]);
    expect(attempts).toEqual([2]);
  });
});
