import { describe, expect, it } from 'vitest';
import { SimClock } from '#local/emulator/clock.ts';

describe('simulated clock', () => {
  it('plays events in time order, each seeing its own time, when advanced in one jump', () => {
    const clock = new SimClock(0, 0);
    const seen: [string, number][] = [];
    clock.after(3000, () => seen.push(['c', clock.now()]));
    clock.after(1000, () => {
      seen.push(['a', clock.now()]);
      clock.after(500, () => seen.push(['a+', clock.now()])); // scheduled from inside an event
    });
    clock.after(2000, () => seen.push(['b', clock.now()]));
    clock.advance(10_000);
    expect(seen).toEqual([
      ['a', 1000],
      ['a+', 1500],
      ['b', 2000],
      ['c', 3000],
    ]);
    expect(clock.now()).toBe(10_000);
  });

  it('keeps scheduling order for events at the same instant, skips cancelled ones and survives a failing one', () => {
    const errors: unknown[] = [];
    const clock = new SimClock(0, 0, (e) => errors.push(e));
    const order: number[] = [];
    clock.at(500, () => order.push(1));
    const t = clock.at(500, () => order.push(2));
    clock.at(500, () => {
      throw new Error('boom');
    });
    clock.at(500, () => order.push(3));
    t.cancel();
    clock.advance(500);
    expect(order).toEqual([1, 3]);
    expect(errors).toHaveLength(1);
    expect(clock.pendingEvents()).toBe(0);
  });

  it('does not run future events and never goes backwards', () => {
    const clock = new SimClock(1000, 0);
    let ran = false;
    clock.at(5000, () => {
      ran = true;
    });
    clock.advance(3999);
    expect(ran).toBe(false);
    expect(() => clock.set(0)).toThrow(RangeError);
    clock.set(5000);
    expect(ran).toBe(true);
  });

  it('runs at speed on its own', async () => {
    const clock = new SimClock(0, 1000);
    // An absolute instant: at 1000×, each real millisecond before scheduling would move a relative one.
    const fired = new Promise<number>((resolve) => clock.at(20_000, () => resolve(clock.now())));
    expect(await fired).toBe(20_000);
    expect(clock.now()).toBeGreaterThanOrEqual(20_000);
    clock.stop();
  });
});
