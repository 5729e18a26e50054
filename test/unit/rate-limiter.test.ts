import { describe, expect, it } from 'vitest';
import { RateLimiter } from '#commons/voice-api/rate-limiter.ts';

function fakeClock(start = 1_000_000) {
  let now = start;
  const sleeps: number[] = [];
  return {
    sleeps,
    now: () => now,
    sleep: async (ms: number) => {
      sleeps.push(ms);
      now += ms;
    },
    advance: (ms: number) => {
      now += ms;
    },
  };
}

describe('client-side rate limiter', () => {
  it('lets a full minute of requests through at once, then spaces the rest evenly', async () => {
    const clock = fakeClock();
    const limiter = new RateLimiter(60, clock);
    for (let i = 0; i < 60; i++) await limiter.take();
    expect(clock.sleeps).toEqual([]);
    await limiter.take();
    await limiter.take();
    expect(clock.sleeps).toEqual([1000, 1000]);
  });

  it('refills over time', async () => {
    const clock = fakeClock();
    const limiter = new RateLimiter(6, clock);
    for (let i = 0; i < 6; i++) await limiter.take();
    clock.advance(30_000); // half a minute: three tokens back
    for (let i = 0; i < 3; i++) await limiter.take();
    expect(clock.sleeps).toEqual([]);
  });

  it('holds requests until the reset the service announced with Remaining: 0, but never longer than the cap', async () => {
    const clock = fakeClock(1_700_000_000_000);
    const limiter = new RateLimiter(0, clock, 60_000);
    limiter.observe(new Headers({ 'X-RateLimit-Remaining': '0', 'X-RateLimit-Reset': String(1_700_000_000 + 20) }));
    await limiter.take();
    expect(clock.sleeps).toEqual([20_000]);
    limiter.observe(new Headers({ 'X-RateLimit-Remaining': '0', 'X-RateLimit-Reset': String(1_700_000_000 + 10_000) }));
    await limiter.take();
    expect(clock.sleeps[1]).toBe(60_000);
    limiter.observe(new Headers({ 'X-RateLimit-Remaining': '5', 'X-RateLimit-Reset': String(1_700_000_000 + 99_999) }));
    await limiter.take();
    expect(clock.sleeps).toHaveLength(2);
  });
});
