import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { PacedScheduler, type RunningClock } from '#local/stack/paced-scheduler.ts';

const T0 = Date.parse('2026-12-07T17:00:00Z');

/** A clock that runs `speed` times real (fake) time from T0, as the emulator's does. */
function runningClock(speed: number): RunningClock {
  const real0 = Date.now();
  return { speed, now: () => T0 + (Date.now() - real0) * speed, set: () => {} };
}

beforeEach(() => {
  vi.useFakeTimers({ now: 0 });
});
afterEach(() => {
  vi.useRealTimers();
});

describe('PacedScheduler', () => {
  it('ends a Wait when the running clock reaches it: a simulated minute at 60x is one real second', async () => {
    const s = new PacedScheduler(runningClock(60));
    s.sleep('exec', T0 + 60_000);
    let woke = false;
    void s.gate('exec').then(() => {
      woke = true;
    });
    await vi.advanceTimersByTimeAsync(990);
    expect(woke).toBe(false);
    await vi.advanceTimersByTimeAsync(20);
    expect(woke).toBe(true);
  });

  it('lets a task through at once when it did not wait, and wakes executions independently', async () => {
    const s = new PacedScheduler(runningClock(10));
    let direct = false;
    void s.gate('a').then(() => {
      direct = true;
    });
    await vi.advanceTimersByTimeAsync(0);
    expect(direct).toBe(true);
    const woke: string[] = [];
    s.sleep('late', T0 + 100_000);
    s.sleep('early', T0 + 10_000);
    void s.gate('late').then(() => woke.push('late'));
    void s.gate('early').then(() => woke.push('early'));
    await vi.advanceTimersByTimeAsync(1_100);
    expect(woke).toEqual(['early']);
    await vi.advanceTimersByTimeAsync(9_000);
    expect(woke).toEqual(['early', 'late']);
  });

  it('runs the sweeper every interval of simulated time, skips the ticks it says are quiet, and stops', async () => {
    const clock = runningClock(60);
    const s = new PacedScheduler(clock);
    const runs: number[] = [];
    let quietUntil: number | null = null;
    const stop = s.every(60_000, () => {
      runs.push(Math.round((clock.now() - T0) / 60_000));
      return quietUntil;
    });
    await vi.advanceTimersByTimeAsync(3_050);
    expect(runs).toEqual([1, 2, 3]);
    quietUntil = T0 + 10 * 60_000;
    await vi.advanceTimersByTimeAsync(1_000);
    expect(runs).toEqual([1, 2, 3, 4]);
    await vi.advanceTimersByTimeAsync(5_000);
    expect(runs).toEqual([1, 2, 3, 4]);
    quietUntil = null;
    await vi.advanceTimersByTimeAsync(1_100);
    expect(runs).toEqual([1, 2, 3, 4, 10]);
    stop();
    await vi.advanceTimersByTimeAsync(5_000);
    expect(runs).toEqual([1, 2, 3, 4, 10]);
  });

  it('runs a tick within a quiet answer when `idle` says something changed since', async () => {
    const clock = runningClock(60);
    const s = new PacedScheduler(clock);
    const runs: number[] = [];
    let acted = false;
    s.every(
      60_000,
      () => {
        acted = false;
        runs.push(Math.round((clock.now() - T0) / 60_000));
        return T0 + 10 * 60_000;
      },
      () => !acted,
    );
    await vi.advanceTimersByTimeAsync(3_050);
    expect(runs).toEqual([1]);
    acted = true;
    await vi.advanceTimersByTimeAsync(1_000);
    expect(runs).toEqual([1, 4]);
  });

  it('refuses a stopped clock', () => {
    expect(() => new PacedScheduler(runningClock(0))).toThrow(RangeError);
  });
});
