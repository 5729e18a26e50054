import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { SimClock } from '#local/emulator/clock.ts';
import { invokeAsync, retryWait } from '#local/stack/async-invoke.ts';
import { SimScheduler } from '#local/stack/sim-scheduler.ts';

/** Lambda's asynchronous invocation as the embedded stack plays it: a throw is tried again after 1 and 2 minutes. */
describe('invokeAsync', () => {
  it.each([
    { failures: 0, retries: 2, attempts: 1, waits: [], ok: true },
    { failures: 1, retries: 2, attempts: 2, waits: [60_000], ok: true },
    { failures: 2, retries: 2, attempts: 3, waits: [60_000, 120_000], ok: true },
    { failures: 3, retries: 2, attempts: 3, waits: [60_000, 120_000], ok: false },
    { failures: 1, retries: 0, attempts: 1, waits: [], ok: false },
    { failures: 5, retries: 3, attempts: 4, waits: [60_000, 120_000, 120_000], ok: false },
  ])(
    '$failures failures with $retries retries: $attempts attempts, waits $waits',
    async ({ failures, retries, attempts, waits, ok }) => {
      let made = 0;
      const slept: number[] = [];
      const heard: number[] = [];
      const run = invokeAsync(
        async () => {
          made++;
          if (made <= failures) throw new Error(`attempt ${made} failed`);
          return 'done';
        },
        retries,
        async (ms) => {
          slept.push(ms);
        },
        (_, attempt) => heard.push(attempt),
      );
      if (ok) expect(await run).toBe('done');
      else await expect(run).rejects.toThrow(`attempt ${attempts} failed`);
      expect(made).toBe(attempts);
      expect(slept).toEqual(waits);
      expect(heard).toEqual(waits.map((_, i) => i + 1));
    },
  );
});

describe('retryWait', () => {
  const tick = () => new Promise((r) => setImmediate(r));

  it('sleeps as its actor while a timer holds time: another actor still wakes at its own instant', async () => {
    const clock = new SimClock(0, 0);
    const scheduler = new SimScheduler(clock);
    // A sweep that starts at 10 s and runs until the test ends it: time is held while it fires.
    let endSweep = () => {};
    let rounds = 0;
    scheduler.every(10_000, () =>
      rounds++ === 0
        ? new Promise<null>((r) => {
            endSweep = () => r(null);
          })
        : null,
    );
    // An execution in a Wait state until 30 s.
    scheduler.join('execution');
    scheduler.sleep('execution', 30_000);
    let woke: number | null = null;
    const execution = scheduler.gate('execution').then(() => {
      woke = clock.now();
      scheduler.leave('execution');
    });
    await tick();
    expect(clock.now()).toBe(10_000);
    // The guard fails during the sweep and waits a minute to try again.
    scheduler.join('guard');
    const tried: number[] = [];
    const guard = invokeAsync(
      async () => {
        tried.push(clock.now());
        if (tried.length === 1) throw new Error('failed');
      },
      2,
      retryWait(scheduler, 'guard', new AbortController().signal),
      () => {},
    ).finally(() => scheduler.leave('guard'));
    await tick();
    expect(clock.now()).toBe(10_000);
    endSweep();
    await execution;
    await guard;
    expect(woke).toBe(30_000);
    expect(tried).toEqual([10_000, 70_000]);
  });

  it('ends at once when the stack closes, and the actor is awake again', async () => {
    const clock = new SimClock(0, 0);
    const scheduler = new SimScheduler(clock);
    scheduler.join('guard');
    scheduler.join('holding'); // awake: time cannot move
    const closing = new AbortController();
    const wait = retryWait(scheduler, 'guard', closing.signal)(60_000);
    await tick();
    closing.abort();
    await wait;
    expect(clock.now()).toBe(0);
    // Awake: time does not move while it works, even once the other actor has gone.
    scheduler.leave('holding');
    expect(clock.now()).toBe(0);
    let fired = false;
    const later = scheduler.at(5_000, async () => {
      fired = true;
    });
    await tick();
    expect(fired).toBe(false);
    scheduler.leave('guard');
    await later;
    expect(fired).toBe(true);
  });

  it('every wait of a run shares one listener on the closing signal, and all end when it aborts', async () => {
    const closing = new AbortController();
    // Fifty guards, as a long run ends fifty parts: each wait on a real-time sleep, cut short by the close.
    const waits = Array.from({ length: 50 }, () => retryWait(null, 'guard', closing.signal)(3_600_000));
    expect(getEventListeners(closing.signal, 'abort')).toHaveLength(1);
    closing.abort();
    await Promise.all(waits);
    // A wait begun after the close ends at once too.
    await retryWait(null, 'guard', closing.signal)(3_600_000);
  });
});
