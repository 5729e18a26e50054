import { describe, expect, it } from 'vitest';
import type { LambdaInvoke } from '#local/stack/lifecycle-machine.ts';
import { startLocalStack } from '#local/stack/local-stack.ts';
import { TEST_KEY, useEmulator } from '../helpers/emulator.ts';

/**
 * `callsheet run` reads what the safety net did to each part once it is at rest. A sweep under way may still secure
 * a part its guard left unconfirmed (seen under load: the run printed "unconfirmed", the record then said
 * "braked"), so being at rest includes no sweep running.
 */
const f = useEmulator();

const turns = async (n: number) => {
  for (let i = 0; i < n; i++) await new Promise((resolve) => setImmediate(resolve));
};

describe('the safety net at rest (guardIdle)', () => {
  it('waits for a sweep under way', async () => {
    let sweeps = 0;
    let finish: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      finish = resolve;
    });
    const stack = await startLocalStack({
      voiceApi: { url: f.emu.url, apiKey: TEST_KEY },
      clock: f.emu.core.clock,
      settings: { DEFAULT_COUNTRY: 'US' },
      wrapSweep:
        (invoke: LambdaInvoke): LambdaInvoke =>
        async (event, context) => {
          sweeps++;
          await held;
          return invoke(event, context);
        },
    });
    const scheduler = stack.scheduler;
    if (!scheduler) throw new Error('simulated run expected');
    try {
      // Someone waits a day: the sweeper's first round comes due on the way, and is held.
      scheduler.join('waiter');
      scheduler.sleep('waiter', scheduler.now() + 86_400_000);
      void scheduler.gate('waiter');
      for (let i = 0; i < 100 && sweeps === 0; i++) await turns(1);
      expect(sweeps).toBe(1);
      let idle = false;
      const atRest = stack.guardIdle().then(() => {
        idle = true;
      });
      await turns(20);
      expect(idle).toBe(false);
      finish();
      await atRest;
      expect(idle).toBe(true);
    } finally {
      finish();
      scheduler.leave('waiter');
      await stack.close();
    }
  });
});
