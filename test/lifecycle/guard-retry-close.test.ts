import { PutObjectCommand } from '@aws-sdk/client-s3';
import { describe, expect, it } from 'vitest';
import type { LambdaInvoke } from '#local/stack/lifecycle-machine.ts';
import { startLocalStack } from '#local/stack/local-stack.ts';
import { TEST_KEY, useEmulator } from '../helpers/emulator.ts';
import { contactSheet, phones, xlsx } from '../helpers/sheets.ts';

/**
 * A stack closing while the guard waits to try again (Ctrl-C on `callsheet run` just after a workflow was stopped):
 * the retry runs at once rather than being dropped, so the stopped workflow's campaign is still paused before the
 * tables go.
 */
const f = useEmulator({ settings: { concurrency: 3 } });

describe('the guard when the stack closes', () => {
  it('runs a retry that was waiting at once, and pauses the campaign', async () => {
    await f.admin.setClock('2027-01-04T10:00:00-08:00');
    const attempts: number[] = [];
    let throws = 1;
    const stack = await startLocalStack({
      voiceApi: { url: f.emu.url, apiKey: TEST_KEY },
      clock: f.emu.core.clock,
      settings: { DEFAULT_COUNTRY: 'US' },
      wrapGuard:
        (invoke: LambdaInvoke): LambdaInvoke =>
        async (event, context) => {
          attempts.push(f.emu.core.clock.now());
          if (throws-- > 0) throw new Error('Lambda was unable to run the function (rehearsal)');
          return invoke(event, context);
        },
    });
    const scheduler = stack.scheduler;
    if (!scheduler) throw new Error('simulated run expected');
    let closing: Promise<void> | null = null;
    try {
      const agent = await f.api.agents.create({ name: 'closing' });
      await stack.s3Client.send(
        new PutObjectCommand({
          Bucket: stack.bucket,
          Key: `incoming/${agent.id}/closing.xlsx`,
          Body: await xlsx(contactSheet(phones(120, '+1415579'))),
          Metadata: { 'calling-window': 'Mon-Fri 09:00-17:00' },
        }),
      );
      await stack.intakeQueue.idle();
      const [execution] = [...stack.sfn.executions.values()];
      if (!execution) throw new Error('no execution started');
      const stopAt = Date.parse('2027-01-04T10:20:00-08:00');
      await scheduler.at(stopAt, async () => {
        // Time holds still from here (this actor stays awake): the guard's retry waits for a minute that never comes.
        scheduler.join('operator');
        stack.sfn.stop(execution.executionArn, 'Operator', 'stopped from the console');
      });
      // The first attempt fails and its retry goes to sleep within a few turns of the event loop (no real time).
      for (let turn = 0; turn < 50 || attempts.length < 1; turn++) await new Promise((r) => setImmediate(r));
      expect(attempts).toEqual([stopAt]);
      const campaign = [...f.emu.core.account.campaigns.values()].find((c) => c.agent_id === agent.id);
      expect(campaign?.status).toBe('active');
      closing = stack.close();
      await closing;
      // The second attempt ran as the stack closed, at the same simulated instant, and secured the campaign.
      expect(attempts).toEqual([stopAt, stopAt]);
      expect(campaign?.status).toBe('paused');
      scheduler.leave('operator');
    } finally {
      if (!closing) await stack.close();
    }
  });
});
