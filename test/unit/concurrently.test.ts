import { describe, expect, it } from 'vitest';
import { eachConcurrently } from '#commons/concurrently.ts';

/** A task that records how many run at once, and finishes when the test lets it (no timers). */
function tracked() {
  let running = 0;
  let peak = 0;
  const done: number[] = [];
  const task = async (n: number) => {
    running++;
    peak = Math.max(peak, running);
    // Yield a few turns so other workers get to start before this one ends.
    for (let i = 0; i < 3; i++) await Promise.resolve();
    running--;
    if (n < 0) throw new Error(`bad ${n}`);
    done.push(n);
  };
  return { task, done, peak: () => peak, running: () => running };
}

describe('eachConcurrently', () => {
  it.each([
    [0, 4, 0],
    [3, 8, 3],
    [10, 4, 4],
    [10, 1, 1],
  ])('runs %i items at most %i at a time (peak %i), every item once', async (count, limit, peak) => {
    const t = tracked();
    const items = Array.from({ length: count }, (_, i) => i);
    await eachConcurrently(items, limit, t.task);
    expect([...t.done].sort((a, b) => a - b)).toEqual(items);
    expect(t.peak()).toBe(peak);
  });

  it('throws the first failure once every started task has ended, and starts nothing after it', async () => {
    const t = tracked();
    await expect(eachConcurrently([1, -1, 2, -2, 3], 2, t.task)).rejects.toThrow('bad -1');
    expect(t.running()).toBe(0);
    // 1 and -1 started together; -1 failed, so only the item already taken by the other worker (2) ran on.
    expect(t.done).toEqual([1, 2]);
  });

  it.each([0, -1, 1.5, Number.NaN])('refuses a limit of %s instead of running nothing', async (limit) => {
    const t = tracked();
    await expect(eachConcurrently([1, 2], limit, t.task)).rejects.toThrow(RangeError);
    expect(t.done).toEqual([]);
  });
});
