import { describe, expect, it } from 'vitest';
import { invokeAsync } from '#local/stack/async-invoke.ts';

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
