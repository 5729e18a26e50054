import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { documentClient } from '#commons/aws/clients.ts';
import { parseWindowRules } from '#commons/calling-window.ts';
import type { CampaignPlan } from '#commons/campaign-plan.ts';
import { DEFAULT_LEGAL_HOURS } from '#commons/legal-hours.ts';
import { type PartWindow, partWindow } from '#commons/window-plan.ts';
import type { CampaignSafety } from '#lifecycle/campaign-safety.ts';
import { CampaignStore, type Watch } from '#lifecycle/campaign-store.ts';
import { CampaignGuard } from '#lifecycle/safety-net/campaign-guard.ts';
import { type LocalDynamo, startDynamo } from '#local/stack/dynamo.ts';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '#local/stack/local-aws.ts';

/**
 * Writers that read, decide and write back while another writes the same item: on dynalite, which checks
 * ConditionExpression as DynamoDB does. Each test interleaves the two writers at the worst moment.
 */
let dynamo: LocalDynamo;
let store: CampaignStore;
beforeAll(async () => {
  dynamo = await startDynamo({ prefix: 'concurrent' });
  const db = documentClient({
    region: LOCAL_REGION,
    endpoints: { dynamodb: dynamo.endpoint },
    credentials: LOCAL_CREDENTIALS,
  });
  store = new CampaignStore(db, dynamo.tables.campaigns);
});
afterAll(async () => {
  await dynamo.close();
});

const MIN = 60_000;
// Monday 2026-12-07 in New York (EST, UTC-5): the window is 09:00-17:00 there.
const at = (local: string) => Date.parse(`2026-12-07T${local}-05:00`);
const iso = (ms: number) => new Date(ms).toISOString();

function newYorkWindow(): PartWindow {
  const plan = {
    part: {
      index: 1,
      of: 1,
      key: 'k',
      rows: 1,
      timeZone: 'America/New_York',
      zones: ['America/New_York'],
      country: 'US',
    },
    window: { rules: parseWindowRules('Mon-Fri 09:00-17:00'), holidays: [] },
  } as unknown as CampaignPlan;
  const result = partWindow(plan, DEFAULT_LEGAL_HOURS, Date.parse('2026-12-01T00:00Z'));
  if (!result.ok) throw new Error(result.message);
  return result.window;
}

let parts = 0;
/** A running part as the workflow left it at a look at `observedAt`. */
async function runningPart(observedAt: number, nextLookAt: number): Promise<{ partKey: string; watch: Watch }> {
  const partKey = `upload-${++parts}-p1`;
  await store.beginCreate(partKey, `upload-${parts}`, 1, new Date(observedAt - 10 * MIN));
  await store.created(partKey, `cmp_${parts}`);
  const watch: Watch = {
    execution: `arn:aws:states:us-east-1:123456789012:execution:callsheet-lifecycle:${partKey}`,
    agentId: 'agt_1',
    campaignId: `cmp_${parts}`,
    window: newYorkWindow(),
    observedAt: iso(observedAt),
    nextLookAt: iso(nextLookAt),
    quiet: false,
  };
  await store.observe(partKey, watch);
  return { partKey, watch };
}

const secured = (ms: number) => ({ at: iso(ms), by: 'sweeper', outcome: 'paused', reason: 'test' });

describe('markSecured’s quiet flag', () => {
  it('marks the look the action was decided on as quiet', async () => {
    const { partKey, watch } = await runningPart(at('16:50'), at('17:30'));
    await store.markSecured(partKey, secured(at('17:10')), watch);
    const record = await store.get(partKey);
    expect(record?.watch).toEqual({ ...watch, quiet: true });
    expect(record?.secured).toEqual(secured(at('17:10')));
  });

  it('leaves a look the workflow made meanwhile as the workflow wrote it', async () => {
    const { partKey, watch: seen } = await runningPart(at('16:50'), at('17:30'));
    // While the sweeper pauses, the workflow looks and finds the campaign dialling (say, it resumed it).
    const newer: Watch = { ...seen, observedAt: iso(at('17:09')), nextLookAt: iso(at('17:40')), quiet: false };
    await store.observe(partKey, newer);
    await store.markSecured(partKey, secured(at('17:10')), seen);
    const record = await store.get(partKey);
    expect(record?.watch).toEqual(newer);
    expect(record?.secured).toEqual(secured(at('17:10')));
  });

  it('keeps the sweeper checking a part whose workflow looked while it was being secured', async () => {
    const { partKey, watch } = await runningPart(at('16:50'), at('17:30'));
    let now = at('17:10');
    let secures = 0;
    // The interleaving is the point, so the Voice API side of securing is a stand-in: while it "pauses", the
    // workflow makes a look of its own, which finds the campaign still dialling.
    const safety = {
      secure: async (target: { holder: string }) => {
        if (target.holder !== partKey) return { outcome: 'paused' as const, message: 'paused' };
        secures++;
        if (secures === 1)
          await store.observe(partKey, { ...watch, observedAt: iso(now), nextLookAt: iso(at('18:00')), quiet: false });
        return { outcome: 'paused' as const, message: 'paused' };
      },
    } as unknown as CampaignSafety;
    const guard = new CampaignGuard({
      campaigns: store,
      safety,
      executions: { describe: async () => ({ status: 'RUNNING', input: '{}' }) },
      now: () => new Date(now),
      settings: { closingMarginMs: 5 * MIN, sweepIntervalMs: 5 * MIN, overdueGraceMs: 10 * MIN },
    });
    const mine = <A extends { partKey: string }>(actions: A[]) => actions.filter((a) => a.partKey === partKey);
    expect(mine((await guard.sweep()).actions)).toHaveLength(1);
    // The next sweep still finds a closed window and a campaign nobody confirmed paused since that look.
    now = at('17:15');
    const next = mine((await guard.sweep()).actions);
    expect(next).toHaveLength(1);
    expect(next[0]?.reasons).toContain('the calling window is closed and the campaign was not confirmed paused');
    expect(secures).toBe(2);
  });
});
