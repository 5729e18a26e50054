import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { parseWindowRules } from '#commons/calling-window.ts';
import { DEFAULT_LEGAL_HOURS } from '#commons/legal-hours.ts';
import { partWindow } from '#commons/window-plan.ts';
import { CampaignStore } from '#lifecycle/campaign-store.ts';
import { startDynamo } from '#local/stack/dynamo.ts';
import { startLocalStack } from '#local/stack/local-stack.ts';
import { dynaliteClient } from '../helpers/dynalite-client.ts';
import { TEST_KEY, useEmulator } from '../helpers/emulator.ts';

// Real stand-ins on a loaded 2-core machine: generous limits; no test measures time.
vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 });

const f = useEmulator();
let dir: string;
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

/**
 * A stack killed with its parts running (kill -9: no guard ran) leaves them recorded as running in its data
 * directory. The next stack on that directory has no workflow for them: its sweeper finds that, secures each
 * campaign and ends the part (README: "`callsheet local` or `run` there ends them").
 */
describe('a stack started on a data directory whose last stack was killed', () => {
  it('ends the parts it finds running with no workflow, by its first sweep', async () => {
    dir = await mkdtemp(join(tmpdir(), 'callsheet-orphans-'));
    const path = join(dir, 'dynamodb');
    const now = f.emu.core.clock.now();
    const made = partWindow(
      {
        part: { zones: ['America/New_York'], timeZone: 'America/New_York', country: 'US', regions: [] },
        window: { rules: parseWindowRules('daily 00:00-24:00'), holidays: [] },
      },
      DEFAULT_LEGAL_HOURS,
      now,
    );
    if (!made.ok) throw new Error(made.message);
    // What the killed stack left: a part running, its next look a day away, its workflow gone with that stack.
    const before = await startDynamo({ path });
    try {
      const store = new CampaignStore(dynaliteClient(before.endpoint), before.tables.campaigns);
      await store.beginCreate('u1-p1', 'u1', 1, new Date(now));
      await store.created('u1-p1', 'cmp_orphan');
      await store.observe('u1-p1', {
        execution: 'arn:aws:states:us-east-1:000000000000:execution:callsheet-lifecycle:u1-p1',
        agentId: 'agt_1',
        campaignId: 'cmp_orphan',
        window: made.window,
        observedAt: new Date(now).toISOString(),
        nextLookAt: new Date(now + 86_400_000).toISOString(),
        quiet: false,
      });
    } finally {
      await before.close();
    }

    const stack = await startLocalStack({
      voiceApi: { url: f.emu.url, apiKey: TEST_KEY },
      clock: f.emu.core.clock,
      dynamoPath: path,
      settings: { DEFAULT_COUNTRY: 'US' },
    });
    const scheduler = stack.scheduler;
    if (!scheduler) throw new Error('simulated run expected');
    try {
      // Someone waits ten minutes: the clock moves, and the sweeper's first round comes due on the way.
      scheduler.join('waiter');
      scheduler.sleep('waiter', scheduler.now() + 10 * 60_000);
      await scheduler.gate('waiter');
      await stack.guardIdle();
      const store = new CampaignStore(dynaliteClient(stack.dynamo.endpoint), stack.dynamo.tables.campaigns);
      const part = await store.get('u1-p1');
      expect(part?.status).toBe('failed');
      expect(part?.failure?.code).toBe('workflow_stopped');
      expect(part?.secured).toMatchObject({ by: 'sweeper' });
    } finally {
      scheduler.leave('waiter');
      await stack.close();
    }
  });
});
