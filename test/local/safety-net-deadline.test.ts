import { afterEach, describe, expect, it, vi } from 'vitest';
import type { LambdaInvoke } from '#local/stack/lifecycle-machine.ts';
import { startLocalStack } from '#local/stack/local-stack.ts';
import { TEST_KEY, useEmulator } from '../helpers/emulator.ts';

/**
 * The local stack's guard and sweeper are Lambda handlers (middy), which give up when their context says the
 * invocation's time is spent. Each invocation gets a deadline of its own, as in Lambda: one context made when the
 * stack started ran out 15 minutes later, and from then on every sweep failed at once (`callsheet local` left
 * without its sweeper after a quarter of an hour).
 */
const f = useEmulator();

const turns = async (n: number) => {
  for (let i = 0; i < n; i++) await new Promise((resolve) => setImmediate(resolve));
};

afterEach(() => {
  vi.restoreAllMocks();
});

describe('the safety net on a stack that has run for a while', () => {
  it('sweeps with a whole deadline 16 minutes after the stack started', async () => {
    const outcomes: string[] = [];
    const stack = await startLocalStack({
      voiceApi: { url: f.emu.url, apiKey: TEST_KEY },
      clock: f.emu.core.clock,
      settings: { DEFAULT_COUNTRY: 'US' },
      wrapSweep:
        (invoke: LambdaInvoke): LambdaInvoke =>
        async (event, context) => {
          const remaining = context.getRemainingTimeInMillis();
          try {
            const out = await invoke(event, context);
            outcomes.push(`swept with ${Math.round(remaining / 60_000)} min left`);
            return out;
          } catch (err) {
            outcomes.push(`failed: ${(err as Error).message}`);
            throw err;
          }
        },
    });
    const scheduler = stack.scheduler;
    if (!scheduler) throw new Error('simulated run expected');
    // A quarter of an hour and more of the computer's time has passed since the stack started.
    const realNow = Date.now.bind(Date);
    vi.spyOn(Date, 'now').mockImplementation(() => realNow() + 16 * 60_000);
    try {
      scheduler.join('waiter');
      scheduler.sleep('waiter', scheduler.now() + 86_400_000);
      void scheduler.gate('waiter');
      for (let i = 0; i < 200 && outcomes.length === 0; i++) await turns(1);
      await stack.guardIdle();
      expect(outcomes[0]).toBe('swept with 15 min left');
    } finally {
      scheduler.leave('waiter');
      await stack.close();
    }
  });
});
