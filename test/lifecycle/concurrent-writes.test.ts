import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { documentClient, s3Client } from '#commons/aws/clients.ts';
import { ObjectStore } from '#commons/aws/object-store.ts';
import { parseWindowRules } from '#commons/calling-window.ts';
import { type CampaignPlan, followUpKey, partKey as partKeyOf } from '#commons/campaign-plan.ts';
import { DEFAULT_LEGAL_HOURS } from '#commons/legal-hours.ts';
import { silentLog } from '#commons/log.ts';
import type { FollowUpStarted } from '#commons/part-outcomes.ts';
import { partReportKey } from '#commons/report-keys.ts';
import { NotFoundError } from '#commons/voice-api/errors.ts';
import type { Call } from '#commons/voice-api/types.ts';
import { type PartWindow, partWindow } from '#commons/window-plan.ts';
import { CampaignControl, letGoOfBrake } from '#lifecycle/campaign-control.ts';
import { CampaignSafety } from '#lifecycle/campaign-safety.ts';
import { CampaignStore, quietAt, type Watch } from '#lifecycle/campaign-store.ts';
import { CARRY_SCHEMA, type ReconcilingCarry, type RunningCarry } from '#lifecycle/lifecycle-state.ts';
import { type LifecycleDeps, LifecycleSteps } from '#lifecycle/lifecycle-steps.ts';
import { RootReport } from '#lifecycle/part-end/root-report.ts';
import { CampaignGuard } from '#lifecycle/safety-net/campaign-guard.ts';
import { createTables, type LocalDynamo, startDynamo } from '#local/stack/dynamo.ts';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '#local/stack/local-aws.ts';
import { type LocalS3, startS3 } from '#local/stack/s3.ts';

/**
 * Writers that read, decide and write back while another writes the same item or object: on dynalite, which
 * checks ConditionExpression as DynamoDB does, and s3rver. Each test interleaves two writers at the worst moment.
 */
const BUCKET = 'callsheet-concurrent';
let dynamo: LocalDynamo;
let s3: LocalS3;
let store: CampaignStore;
let objects: ObjectStore;
let aws: { region: string; endpoints: Record<string, string>; credentials: typeof LOCAL_CREDENTIALS };
beforeAll(async () => {
  dynamo = await startDynamo({ prefix: 'concurrent' });
  s3 = await startS3([BUCKET]);
  aws = {
    region: LOCAL_REGION,
    endpoints: { dynamodb: dynamo.endpoint, s3: s3.endpoint },
    credentials: LOCAL_CREDENTIALS,
  };
  store = new CampaignStore(documentClient(aws), dynamo.tables.campaigns);
  objects = new ObjectStore(s3Client(aws));
});
afterAll(async () => {
  await dynamo.close();
  await s3.close();
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

/** The lifecycle's settings and the safety net's, as these tests run them. */
const STEP_SETTINGS = {
  closingMarginMs: 5 * MIN,
  pauseLeadMs: MIN,
  brakeLeadMs: 2 * MIN,
  secureRetryMs: MIN,
  poll: { minSeconds: 30, maxSeconds: 900 },
  continueAfterSteps: 100,
  legalHours: DEFAULT_LEGAL_HOURS,
  holdHorizonMs: 7 * 24 * 60 * MIN,
  reconcileMinutes: 120,
};
const GUARD_SETTINGS = { closingMarginMs: 5 * MIN, sweepIntervalMs: 5 * MIN, overdueGraceMs: 10 * MIN };
/** Every execution as Step Functions describes it to the guard: in this status, or not answering. */
type Describe = () => Promise<{ status: string; input: string }>;
const described =
  (status: string): Describe =>
  async () => ({ status, input: '{}' });
/**
 * The guard and sweeper on this file's store, writing no report of their own; `safety` is the Voice API side, `calls`
 * the account's calls list (empty unless given: no campaign of these parts dials while paused).
 */
const guardOn = (
  safety: CampaignSafety,
  now: () => number,
  describe: Describe,
  campaigns = store,
  calls: Call[] = [],
) =>
  new CampaignGuard({
    campaigns,
    safety,
    executions: { describe },
    reports: { writeIfMissing: async () => false },
    calls: {
      listAll: async function* () {
        yield* calls;
      },
    },
    now: () => new Date(now()),
    settings: GUARD_SETTINGS,
  });
/** A Voice API side whose every securing pauses, and the parts (holders) it secured, in order. */
function pausingSafety(): { safety: CampaignSafety; secured: string[] } {
  const secured: string[] = [];
  const safety = {
    secure: async (target: { holder: string }) => {
      secured.push(target.holder);
      return { outcome: 'paused' as const, message: 'paused', pauseHeld: true };
    },
  } as unknown as CampaignSafety;
  return { safety, secured };
}
/** The lifecycle's steps on this file's store (or `campaigns`), with `safety` and `api` standing in for the API. */
const stepsOn = (deps: {
  safety: CampaignSafety;
  now: () => number;
  api?: unknown;
  polls?: unknown;
  campaigns?: CampaignStore;
}) =>
  new LifecycleSteps({
    campaigns: deps.campaigns ?? store,
    safety: deps.safety,
    objects,
    ...(deps.api ? { api: deps.api } : {}),
    ...(deps.polls ? { polls: deps.polls } : {}),
    now: () => new Date(deps.now()),
    settings: STEP_SETTINGS,
    outcomes: null,
  } as unknown as LifecycleDeps);
/** A part checked and ready to create, in New York. */
const readyCarry = () => ({
  schema: CARRY_SCHEMA,
  phase: 'ready' as const,
  agentId: 'agt_1',
  window: newYorkWindow(),
  steps: 0,
  generation: 0,
  transitionsBefore: 0,
});

let parts = 0;
/** A new part ready to create: its plan, and its part file in the bucket. */
async function partToCreate(name: string): Promise<{ key: string; plan: CampaignPlan }> {
  const key = `upload-${++parts}-p1`;
  const plan = {
    uploadId: `upload-${parts}`,
    bucket: BUCKET,
    agentId: 'agt_1',
    part: { index: 1, of: 1, key: `parts/${key}.xlsx` },
    campaign: { name, retries: 0 },
  } as unknown as CampaignPlan;
  await objects.put(BUCKET, plan.part.key, Buffer.from('part file'), 'application/octet-stream');
  return { key, plan };
}
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

/** A part the guard ended at 10:02 after its pause failed, its brake holding (the agent's, `agentId`). */
async function endedBrakeAlone(agentId = 'agt_1'): Promise<{ partKey: string; watch: Watch }> {
  const { partKey, watch } = await runningPart(at('10:00'), at('10:01'));
  if (agentId !== watch.agentId) await store.observe(partKey, { ...watch, agentId });
  await store.finish(partKey, 'failed', new Date(at('10:02')), { code: 'workflow_aborted', message: 'stopped' });
  const secured = { at: iso(at('10:02')), by: 'guard', outcome: 'braked', reason: 'x', pauseHeld: false };
  await store.markSecured(partKey, secured);
  return { partKey, watch };
}

/** A look at a part `runningPart` recorded: its campaign paused for the window since Monday 08:00 unless `over` says. */
const lookAt = (partKey: string, watch: Watch, over: Partial<RunningCarry> = {}) => ({
  action: 'step' as const,
  plan: {
    uploadId: partKey.replace(/-p1$/, ''),
    bucket: BUCKET,
    agentId: 'agt_1',
    part: { index: 1, of: 1, key: `parts/${partKey}.xlsx` },
  } as unknown as CampaignPlan,
  carry: {
    schema: CARRY_SCHEMA,
    phase: 'running',
    agentId: 'agt_1',
    window: newYorkWindow(),
    steps: 3,
    generation: 0,
    transitionsBefore: 0,
    campaignId: watch.campaignId as string,
    startsAt: iso(at('08:00')),
    paused: 'window',
    securingSince: null,
    brake: null,
    poll: null,
    stats: null,
    next: 'wait',
    wakeAt: iso(at('09:00')),
    ...over,
  } as RunningCarry,
  execution: watch.execution,
});

const secured = (ms: number) => ({ at: iso(ms), by: 'sweeper', outcome: 'paused', reason: 'test' });

describe('markSecured’s quiet flag', () => {
  it('marks the look the action was decided on as quiet', async () => {
    const { partKey, watch } = await runningPart(at('16:50'), at('17:30'));
    await store.markSecured(partKey, secured(at('17:10')), watch);
    const record = await store.get(partKey);
    expect(record?.watch).toEqual({ ...watch, quiet: true, quietUntil: null });
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
    const guard = guardOn(safety, () => now, described('RUNNING'));
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

describe('a stopped workflow’s last look, racing the guard', () => {
  it('brakes again when the release of a reconciling part lands after the guard ended it and braked', async () => {
    const key = `upload-${++parts}-p1`;
    await store.beginCreate(key, `upload-${parts}`, 1, new Date(at('08:00')));
    await store.markCreate(key, 'ambiguous');
    const now = at('09:05');
    const secured: { campaignId: string | null; agentId: string; holder: string }[] = [];
    // The guard ends the part and brakes the agent (the part's own holder) while the look's release is under way;
    // the release lands after, lets go of that brake too and reactivates the agent.
    const safety = {
      releaseBrake: async () => {
        await store.finish(key, 'failed', new Date(now), { code: 'workflow_aborted', message: 'stopped' });
        return { ok: true, message: 'agent reactivated' };
      },
      secure: async (target: { campaignId: string | null; agentId: string; holder: string }) => {
        secured.push(target);
        return { outcome: 'braked' as const, message: 'agent deactivated' };
      },
    } as unknown as CampaignSafety;
    const steps = stepsOn({ safety, now: () => now });
    // The create answer was lost; braked at last night's close, the look at the opening lets go.
    const carry: ReconcilingCarry = {
      schema: CARRY_SCHEMA,
      phase: 'reconciling',
      agentId: 'agt_1',
      window: newYorkWindow(),
      steps: 3,
      generation: 0,
      transitionsBefore: 0,
      startsAt: iso(at('08:00')),
      reconcileUntil: iso(at('10:00')),
      brake: { since: iso(at('08:00')) },
      next: 'wait',
      wakeAt: iso(now),
    };
    const plan = {
      uploadId: `upload-${parts}`,
      bucket: BUCKET,
      agentId: 'agt_1',
      // No part file: the call log is not searched, so nothing is found.
      part: { index: 1, of: 1, key: `parts/${key}-gone.xlsx` },
    } as unknown as CampaignPlan;
    const look = steps.step({ action: 'step', plan, carry, execution: `arn:aws:states:::execution:lc:${key}` });
    await expect(look).rejects.toThrow(/^part_ended: /);
    expect(secured).toEqual([{ campaignId: null, agentId: 'agt_1', holder: key }]);
  });
});

describe('a workflow that dies between its create and its first look', () => {
  it('is found by the sweeper: the create step leaves a look to check, and the agent is braked', async () => {
    const { key, plan } = await partToCreate('dies');
    let now = at('10:00');
    const secured: unknown[] = [];
    const safety = {
      secure: async (target: object, _by: string, options: { brakeOnFailure: boolean }) => {
        secured.push({ ...target, brakeOnFailure: options.brakeOnFailure });
        return { outcome: 'braked' as const, message: 'agent deactivated' };
      },
    } as unknown as CampaignSafety;
    // The create request goes out and the workflow dies with it: no answer, no first look, and no event for the
    // guard (EventBridge lost it).
    const steps = stepsOn({ safety, now: () => now, api: { campaigns: { create: () => new Promise(() => {}) } } });
    const carry = readyCarry();
    const execution = `arn:aws:states:us-east-1:123456789012:execution:callsheet-lifecycle:${key}`;
    void steps.createCampaign({ action: 'createCampaign', plan, carry, execution });
    await until(async () => (await store.get(key))?.create?.state === 'sent');
    const guard = guardOn(safety, () => now, described('ABORTED'));
    now = at('10:05');
    const actions = (await guard.sweep()).actions.filter((a) => a.partKey === key);
    expect(actions).toHaveLength(1);
    expect(actions[0]?.reasons).toContain('its workflow is not running');
    // A create sent and no id known: only the brake can help.
    expect(secured.filter((t) => (t as { holder: string }).holder === key)).toEqual([
      { campaignId: null, agentId: 'agt_1', holder: key, brakeOnFailure: true },
    ]);
    expect((await store.get(key))?.status).toBe('failed');
  });
});

describe('a workflow stopped while a resume it sent is in doubt', () => {
  it.each([
    ['in doubt: the guard brakes as well as pausing', true],
    ['none in doubt: a pause is enough', false],
  ])('%s', async (_name, inDoubt) => {
    const { partKey, watch } = await runningPart(at('10:00'), at('10:20'));
    if (inDoubt) await store.observe(partKey, { ...watch, resumeInDoubt: iso(at('09:59')) });
    const options: { brakeAnyway?: boolean; reason: string }[] = [];
    const safety = {
      secure: async (_target: object, _by: string, o: { brakeAnyway?: boolean; reason: string }) => {
        options.push(o);
        return { outcome: o.brakeAnyway ? ('braked' as const) : ('paused' as const), message: 'done' };
      },
    } as unknown as CampaignSafety;
    const guard = guardOn(safety, () => at('10:05'), described('ABORTED'));
    const action = await guard.executionEnded({ executionArn: watch.execution, name: partKey, status: 'ABORTED' });
    expect(options).toHaveLength(1);
    expect(options[0]?.brakeAnyway).toBe(inDoubt);
    expect(action.outcome).toBe(inDoubt ? 'braked' : 'paused');
    if (inDoubt) expect(options[0]?.reason).toContain(`a resume sent at ${iso(at('09:59'))} is in doubt`);
  });
});

describe('a look retried after its resume went out', () => {
  it('finds the resume in doubt in the record, and the close brakes as well as pausing', async () => {
    const { partKey, watch } = await runningPart(at('08:50'), at('09:00'));
    const options: { brakeAnyway?: boolean }[] = [];
    const safety = {
      secure: async (_target: object, _by: string, o: { brakeAnyway?: boolean }) => {
        options.push(o);
        return { outcome: 'braked' as const, message: 'agent deactivated' };
      },
    } as unknown as CampaignSafety;
    const paused = { campaigns: { stats: async () => ({ status: 'paused', pending: 5, in_progress: 0, total: 5 }) } };
    const stepsAt = (now: number, resume: () => Promise<unknown>) =>
      stepsOn({ safety, now: () => now, api: { campaigns: { ...paused.campaigns, resume } }, polls: paused });
    const input = lookAt(partKey, watch);
    // The opening's look sends the resume and dies there (a Lambda timeout): its answer never comes.
    void stepsAt(at('09:00'), () => new Promise(() => {})).step(input);
    await until(async () => (await store.get(partKey))?.watch?.resumeInDoubt !== undefined);
    expect((await store.get(partKey))?.watch).toMatchObject({ quiet: false, resumeInDoubt: iso(at('09:00')) });
    // The state machine retries the look with the carry from before it; by then the window has closed.
    const next = await stepsAt(at('16:55'), async () => ({})).step(input);
    expect(options).toEqual([expect.objectContaining({ brakeAnyway: true })]);
    expect(next).toMatchObject({ brake: { since: iso(at('16:55')) }, resumeInDoubt: iso(at('09:00')) });
  });
});

describe('a part that finishes holding its brake', () => {
  it('lets go of it and says so on its timeline', async () => {
    const { partKey, watch } = await runningPart(at('08:50'), at('09:00'));
    const released: string[] = [];
    const safety = {
      releaseBrake: async (_agent: string, holder: string) => {
        released.push(holder);
        return { ok: true, message: 'agent reactivated' };
      },
    } as unknown as CampaignSafety;
    const done = { campaigns: { stats: async () => ({ status: 'completed', pending: 0, in_progress: 0, total: 5 }) } };
    const steps = stepsOn({ safety, now: () => at('09:00'), api: done, polls: done });
    const next = await steps.step(lookAt(partKey, watch, { brake: { since: iso(at('08:00')), forDoubt: true } }));
    expect(next).toMatchObject({ phase: 'ended', outcome: 'completed' });
    expect(released).toEqual([partKey]);
    expect((await store.get(partKey))?.timeline?.at(-1)).toMatchObject({ event: 'brake released', reason: 'finish' });
  });
});

describe('an operator lets go of the brake an ended part holds', () => {
  it('refuses a running part, lets go in the register without an API, and says when nothing is held', async () => {
    const { partKey, watch } = await runningPart(at('10:00'), at('10:20'));
    const id = watch.campaignId as string;
    await store.hold('agt_1', partKey, new Date(at('10:05')));
    expect(await store.holdersOf('agt_1')).toContain(partKey);
    await expect(letGoOfBrake(store, id, null)).rejects.toThrow(/is still running: its workflow lets go/);
    await store.finish(partKey, 'failed', new Date(at('10:06')), { code: 'workflow_aborted', message: 'stopped' });
    const others = await store.holders('agt_1');
    expect(await letGoOfBrake(store, id, null)).toMatchObject({ held: true, agent: null, othersHolding: others - 1 });
    expect(await store.isHeldBy('agt_1', partKey)).toBe(false);
    expect(await store.holdersOf('agt_1')).not.toContain(partKey);
    // On the part's timeline, so what shows the part no longer reads as braked.
    expect((await store.get(partKey))?.timeline?.at(-1)).toMatchObject({ event: 'brake released', reason: 'operator' });
    expect(await letGoOfBrake(store, partKey, null)).toMatchObject({ held: false });
    await expect(letGoOfBrake(store, 'cmp_nobody', null)).rejects.toThrow(/has no campaign cmp_nobody/);
  });
});

describe('an operator asks a part whose campaign is not created yet', () => {
  it('is told to ask again once the id shows, by part key or by the - campaign list shows', async () => {
    const key = `upload-${++parts}-p1`;
    await store.beginCreate(key, `upload-${parts}`, 1, new Date(at('08:00')));
    const control = new CampaignControl(store, () => new Date(at('08:01')));
    for (const asked of [key, '-'])
      await expect(control.request(asked, 'pause')).rejects.toThrow(
        /has no campaign on the Voice API yet \(it is being created\): ask again once `callsheet campaign list` shows its campaign id/,
      );
    await expect(control.request('cmp_nobody', 'pause')).rejects.toThrow(/callsheet has no campaign cmp_nobody/);
    expect((await store.get(key))?.control).toBeUndefined();
  });

  it('is told a part held before its campaign was created has ended, not to wait for an id', async () => {
    const key = `upload-${++parts}-p1`;
    await store.beginCreate(key, `upload-${parts}`, 1, new Date(at('08:00')));
    await store.finish(key, 'held', new Date(at('08:01')), { code: 'window_too_short', message: 'too short' });
    const control = new CampaignControl(store, () => new Date(at('08:02')));
    await expect(control.request(key, 'pause')).rejects.toThrow(
      `part ${key} has ended (held) without a campaign on the Voice API: nothing dials for it`,
    );
  });
});

describe('a workflow stopped before its first step, with Step Functions not answering', () => {
  it('ends its part under the upload and part its name gives', async () => {
    const { key } = await partToCreate('stopped, no plan');
    const guard = guardOn(
      { secure: async () => ({ outcome: 'paused', message: 'paused' }) } as unknown as CampaignSafety,
      () => at('10:02'),
      () => Promise.reject(new Error('ThrottlingException')),
    );
    const action = await guard.executionEnded({
      executionArn: `arn:aws:states:us-east-1:123456789012:execution:callsheet-lifecycle:${key}`,
      name: key,
      status: 'ABORTED',
    });
    expect(action.outcome).toBe('none');
    const record = await store.get(key);
    expect(record).toMatchObject({ status: 'failed', uploadId: key.replace(/-p1$/, ''), part: 1 });
  });
});

describe('an ended part whose securing was not confirmed', () => {
  it('is secured again by each sweep until it is confirmed', async () => {
    const { partKey } = await runningPart(at('10:00'), at('10:01'));
    // The workflow was stopped; the guard ended the part but neither its pause nor its brake was confirmed.
    await store.finish(partKey, 'failed', new Date(at('10:02')), { code: 'workflow_aborted', message: 'stopped' });
    await store.markSecured(partKey, { at: iso(at('10:02')), by: 'guard', outcome: 'unconfirmed', reason: 'x' });
    const outcomes: ('unconfirmed' | 'paused')[] = ['unconfirmed', 'paused'];
    const tried: boolean[] = [];
    const safety = {
      secure: async (target: { holder: string }, _by: string, options: { brakeOnFailure: boolean }) => {
        if (target.holder !== partKey) return { outcome: 'paused' as const, message: 'paused' };
        tried.push(options.brakeOnFailure);
        return { outcome: outcomes.shift() ?? 'paused', message: 'answered' };
      },
    } as unknown as CampaignSafety;
    let now = at('10:05');
    const guard = guardOn(safety, () => now, described('ABORTED'));
    const mine = async () => (await guard.sweep()).actions.filter((a) => a.partKey === partKey);
    expect((await mine()).map((a) => a.outcome)).toEqual(['unconfirmed']);
    now = at('10:10');
    expect((await mine()).map((a) => a.outcome)).toEqual(['paused']);
    now = at('10:15');
    expect(await mine()).toEqual([]);
    expect(tried).toEqual([true, true]);
    expect((await store.get(partKey))?.status).toBe('failed');
  });
});

describe('an ended part held by the brake alone', () => {
  it('has its pause tried again by each sweep, the brake checked when it fails, until the pause holds', async () => {
    const { partKey } = await endedBrakeAlone();
    await store.hold('agt_1', partKey, new Date(at('10:02')));
    const answers = [false, true];
    const tried: { brakeOnFailure: boolean; brakeAnyway?: boolean }[] = [];
    const safety = {
      secure: async (target: { holder: string }, _by: string, options: { brakeOnFailure: boolean }) => {
        if (target.holder !== partKey) return { outcome: 'paused' as const, message: 'paused', pauseHeld: true };
        tried.push(options);
        return { outcome: 'braked' as const, message: 'answered', pauseHeld: answers.shift() ?? true };
      },
    } as unknown as CampaignSafety;
    let now = at('10:05');
    const guard = guardOn(safety, () => now, described('ABORTED'));
    const mine = async () => (await guard.sweep()).actions.filter((a) => a.partKey === partKey);
    // The brake holds: the pause is tried every third sweep (15 minutes), not at each.
    expect(await mine()).toEqual([]);
    now = at('10:17');
    expect((await mine()).map((a) => a.reasons)).toEqual([
      ['the part ended (failed) held by the brake alone: its pause is tried again'],
    ]);
    now = at('10:27');
    expect(await mine()).toEqual([]);
    now = at('10:32');
    expect((await mine()).map((a) => a.outcome)).toEqual(['braked']);
    now = at('10:50');
    expect(await mine()).toEqual([]);
    expect(tried.map((o) => [o.brakeOnFailure, o.brakeAnyway])).toEqual([
      [true, false],
      [true, false],
    ]);
    expect((await store.get(partKey))?.secured).toMatchObject({ by: 'sweeper', outcome: 'braked', pauseHeld: true });
    await store.release('agt_1', partKey);
  });

  it('let go of in the register by an operator: its pause tried again, holding, pulls no brake', async () => {
    const { partKey } = await endedBrakeAlone();
    const tried: { brakeOnFailure: boolean; brakeAnyway?: boolean }[] = [];
    const safety = {
      secure: async (target: { holder: string }, _by: string, options: { brakeOnFailure: boolean }) => {
        if (target.holder === partKey) tried.push(options);
        return { outcome: 'paused' as const, message: 'paused', pauseHeld: true };
      },
    } as unknown as CampaignSafety;
    const guard = guardOn(safety, () => at('10:17'), described('ABORTED'));
    expect((await guard.sweep()).actions.filter((a) => a.partKey === partKey).map((a) => a.outcome)).toEqual([
      'paused',
    ]);
    expect(tried.map((o) => [o.brakeOnFailure, o.brakeAnyway])).toEqual([[true, false]]);
  });
});

describe('review: an ended part held by the brake alone, across other writers', () => {
  const failing = (tried: { brakeOnFailure: boolean; brakeAnyway?: boolean }[], partKey: string) =>
    ({
      secure: async (target: { holder: string }, _by: string, options: { brakeOnFailure: boolean }) => {
        if (target.holder !== partKey) return { outcome: 'paused' as const, message: 'paused', pauseHeld: true };
        tried.push(options);
        return options.brakeOnFailure
          ? { outcome: 'braked' as const, message: 'pause 500; agent deactivated', pauseHeld: false }
          : { outcome: 'unconfirmed' as const, message: 'pause 500', pauseHeld: false };
      },
      releaseBrake: async () => ({ ok: true, message: 'agent reactivated' }),
    }) as unknown as CampaignSafety;

  it("a stopped workflow's last look that secures it again leaves it to the sweeper's pause retries", async () => {
    const { partKey, watch } = await endedBrakeAlone();
    const tried: { brakeOnFailure: boolean }[] = [];
    const safety = failing(tried, partKey);
    const paused = { campaigns: { stats: async () => ({ status: 'paused', pending: 5, in_progress: 0, total: 5 }) } };
    // The look the guard stopped was resuming at the opening; it lands after the guard ended the part.
    const steps = stepsOn({
      safety,
      now: () => at('10:02'),
      api: { campaigns: { ...paused.campaigns, resume: async () => ({}) } },
      polls: paused,
    });
    await expect(steps.step(lookAt(partKey, watch, { brake: { since: iso(at('08:00')) } }))).rejects.toThrow(
      /^part_ended: /,
    );
    expect(tried).toHaveLength(1);
    const guard = guardOn(safety, () => at('10:17'), described('ABORTED'));
    expect((await guard.sweep()).actions.filter((a) => a.partKey === partKey)).toHaveLength(1);
  });

  it('a part cancelled near the close whose pause failed (ended braked) has its pause tried again', async () => {
    const { partKey, watch } = await runningPart(at('16:50'), at('16:56'));
    await store.setControl(partKey, 'cancel', new Date(at('16:55')));
    const tried: { brakeOnFailure: boolean }[] = [];
    const safety = failing(tried, partKey);
    const steps = stepsOn({ safety, now: () => at('16:56') });
    const active = { status: 'active', pending: 5, in_progress: 1, total: 9, completed: 3, failed: 0 };
    const next = await steps.step(lookAt(partKey, watch, { paused: null, stats: active as RunningCarry['stats'] }));
    expect(next).toMatchObject({ phase: 'ended', outcome: 'cancelled', next: 'finish' });
    expect(tried).toEqual([expect.objectContaining({ brakeOnFailure: true })]);
    // The document's Finish state.
    await store.finish(partKey, 'cancelled', new Date(at('16:56')));
    const guard = guardOn(safety, () => at('17:11'), described('SUCCEEDED'));
    expect((await guard.sweep()).actions.filter((a) => a.partKey === partKey)).toHaveLength(1);
  });

  it('let go of in the register, its pause failing: each retry pauses, and brakes only if that fails', async () => {
    const { partKey } = await endedBrakeAlone();
    const tried: { brakeOnFailure: boolean; brakeAnyway?: boolean }[] = [];
    let now = at('10:17');
    const guard = guardOn(failing(tried, partKey), () => now, described('ABORTED'));
    await guard.sweep();
    now = at('10:32');
    await guard.sweep();
    expect(tried.map((o) => [o.brakeOnFailure, Boolean(o.brakeAnyway)])).toEqual([
      [true, false],
      [true, false],
    ]);
  });

  it("an operator's release that lands while a sweep checks the brake stays released", async () => {
    const { partKey, watch } = await endedBrakeAlone('agt_race');
    await store.hold('agt_race', partKey, new Date(at('10:02')));
    const agent = { is_active: false };
    const agents = {
      get: async () => ({ ...agent }),
      toggle: async () => {
        agent.is_active = !agent.is_active;
      },
    };
    let released: unknown = null;
    const campaigns = {
      // The sweeper's pause goes out; the operator's `campaign release` runs to its end before it is answered.
      pause: async (campaignId: string) => {
        if (campaignId === watch.campaignId && released === null) {
          released = 'running';
          released = await letGoOfBrake(store, partKey, operator, new Date(at('10:05')));
        }
        return {};
      },
      stats: async () => ({ status: 'paused', pending: 5, in_progress: 0, total: 5, completed: 0, failed: 0 }),
    };
    const signals = { action: () => undefined };
    const safetyAt = () => new CampaignSafety(campaigns, agents, store, signals, () => new Date(at('10:05')));
    const operator = safetyAt();
    const guard = guardOn(safetyAt(), () => at('10:17'), described('ABORTED'));
    await guard.sweep();
    expect(released).toMatchObject({ held: true, agent: 'reactivated' });
    expect(await store.isHeldBy('agt_race', partKey)).toBe(false);
    expect(agent.is_active).toBe(true);
  });
});

describe('letting go of a brake on an agent the API no longer has', () => {
  it('lets go in the register and says there is nothing to switch on', async () => {
    const { partKey } = await endedBrakeAlone('agt_gone');
    await store.hold('agt_gone', partKey, new Date(at('10:02')));
    const gone = () => {
      throw new NotFoundError('Agent not found', {
        status: 404,
        method: 'GET',
        path: '/agents/agt_gone',
        requestId: null,
        body: null,
      });
    };
    const agents = { get: async () => gone(), toggle: async () => gone() };
    // The campaign went with it (a restarted local emulator): gone is not dialling.
    const campaigns = {
      pause: async () => gone(),
      stats: async () => gone(),
    };
    const safety = new CampaignSafety(
      campaigns,
      agents,
      store,
      { action: () => undefined },
      () => new Date(at('10:05')),
    );
    const done = await letGoOfBrake(store, partKey, safety, new Date(at('10:05')));
    expect(done).toMatchObject({ held: true, othersHolding: 0, agent: 'gone' });
    expect(done.message).toContain('404');
    expect(await store.isHeldBy('agt_gone', partKey)).toBe(false);
  });
});

describe('a create whose answer lands after the guard ended the part', () => {
  it('keeps the create recorded as made, and pauses the campaign', async () => {
    const { key, plan } = await partToCreate('late answer');
    const held: { answer?: (c: { id: string }) => void } = {};
    let asked: () => void = () => {};
    const sent = new Promise<void>((resolve) => (asked = resolve));
    const secured: unknown[] = [];
    const steps = stepsOn({
      safety: {
        secure: async (target: object) => {
          secured.push(target);
          return { outcome: 'paused' as const, message: 'paused' };
        },
      } as unknown as CampaignSafety,
      now: () => at('10:00'),
      api: {
        campaigns: {
          create: () =>
            new Promise((resolve) => {
              held.answer = resolve;
              asked();
            }),
        },
      },
    });
    const carry = readyCarry();
    const execution = `arn:aws:states:us-east-1:123456789012:execution:callsheet-lifecycle:${key}`;
    const create = steps.createCampaign({ action: 'createCampaign', plan, carry, execution });
    // The request is out; the guard ends the part before its answer lands.
    await sent;
    await store.finish(key, 'failed', new Date(at('10:01')), { code: 'workflow_aborted', message: 'stopped' });
    held.answer?.({ id: 'cmp_late' });
    await expect(create).rejects.toThrow(/^part_ended: /);
    expect(secured).toEqual([{ campaignId: 'cmp_late', agentId: 'agt_1', holder: key }]);
    const record = await store.get(key);
    expect(record?.campaignId).toBe('cmp_late');
    expect(record?.create?.state).toBe('created');
  });
});

describe('a create whose answer cannot be recorded', () => {
  it('is looked for at the retry, never made again', async () => {
    const { key, plan } = await partToCreate('unrecorded');
    // DynamoDB throttles the write of the id (an error dynalite cannot be made to answer).
    class Throttled extends CampaignStore {
      override async created(): Promise<boolean> {
        throw Object.assign(new Error('throttled'), { name: 'ProvisionedThroughputExceededException' });
      }
    }
    const made: string[] = [];
    const api = {
      campaigns: {
        create: async () => {
          made.push(key);
          return { id: `cmp_${made.length}` };
        },
      },
    };
    const stepsWith = (campaigns: CampaignStore) =>
      stepsOn({ campaigns, safety: {} as CampaignSafety, now: () => at('10:00'), api });
    const input = {
      action: 'createCampaign' as const,
      plan,
      carry: readyCarry(),
      execution: `arn:aws:states:us-east-1:123456789012:execution:callsheet-lifecycle:${key}`,
    };
    await expect(
      stepsWith(new Throttled(documentClient(aws), dynamo.tables.campaigns)).createCampaign(input),
    ).rejects.toThrow('throttled');
    // The document retries the step: the campaign made is looked for, not made again.
    const retried = await stepsWith(store).createCampaign(input);
    expect(retried.phase).toBe('reconciling');
    expect(made).toEqual([key]);
  });
});

describe('an ended part whose securing during its life was not confirmed', () => {
  const sweeper = (safety: CampaignSafety, now: () => number) => guardOn(safety, now, described('SUCCEEDED'));

  it.each(['completed', 'cancelled'] as const)('is left alone once its workflow ended it %s', async (status) => {
    const { partKey } = await runningPart(at('10:00'), at('10:01'));
    // A sweep while the API was down could not confirm its pause; the workflow recovered and ended the part.
    await store.markSecured(partKey, { at: iso(at('10:20')), by: 'sweeper', outcome: 'unconfirmed', reason: 'x' });
    await store.finish(partKey, status, new Date(at('11:00')));
    const tried: unknown[] = [];
    const safety = {
      secure: async (target: { holder: string }) => {
        if (target.holder === partKey) tried.push(target);
        // The API fails again: a retry would brake the agent for a part no workflow will ever release.
        return { outcome: 'braked' as const, message: 'agent deactivated' };
      },
    } as unknown as CampaignSafety;
    const actions = (await sweeper(safety, () => at('11:05')).sweep()).actions.filter((a) => a.partKey === partKey);
    expect(actions).toEqual([]);
    expect(tried).toEqual([]);
  });

  it('leaves the sweeps once no campaign can exist', async () => {
    const partKey = `upload-${++parts}-p1`;
    await store.beginCreate(partKey, `upload-${parts}`, 1, new Date(at('10:00')), {
      execution: `arn:aws:states:us-east-1:123456789012:execution:callsheet-lifecycle:${partKey}`,
      agentId: 'agt_1',
      campaignId: null,
      window: newYorkWindow(),
      observedAt: iso(at('10:00')),
      nextLookAt: iso(at('10:00')),
      quiet: false,
    });
    // The create was slow, so a sweep acted on the sent create and could not confirm; then the API refused it.
    await store.markSecured(partKey, { at: iso(at('10:11')), by: 'sweeper', outcome: 'unconfirmed', reason: 'x' });
    await store.markCreate(partKey, 'clear');
    await store.finish(partKey, 'failed', new Date(at('10:12')), { code: 'rejected_by_api', message: 'refused' });
    const safety = {
      secure: async () => ({ outcome: 'paused' as const, message: 'paused' }),
    } as unknown as CampaignSafety;
    let now = at('10:15');
    const guard = sweeper(safety, () => now);
    const mine = async () => (await guard.sweep()).actions.filter((a) => a.partKey === partKey);
    expect((await mine()).map((a) => a.outcome)).toEqual(['none']);
    now = at('10:20');
    expect(await mine()).toEqual([]);
  });
});

describe('the instant until which sweeps can find nothing new (the embedded stack skips the sweeps before it)', () => {
  const running = described('RUNNING');
  const safety = { secure: async () => ({ outcome: 'paused', message: 'paused' }) } as unknown as CampaignSafety;
  const watch = (key: string, w: Partial<Watch>): Watch => ({
    execution: `arn:aws:states:us-east-1:123456789012:execution:callsheet-lifecycle:${key}`,
    agentId: 'agt_1',
    campaignId: 'cmp_1',
    window: newYorkWindow(),
    observedAt: iso(at('10:00')),
    nextLookAt: iso(at('10:10')),
    quiet: false,
    ...w,
  });
  // Each row on a table of its own: the parts there, the sweep's time, and its answer.
  it.each([
    ['no part', [], '10:05', null],
    // Confirmed paused, its look long overdue: only its workflow (looking, or ending) changes what a sweep finds,
    // until its window closes: from then the sweeps watch its campaign's calls.
    ['a quiet part, its look overdue', [{ quiet: true, nextLookAt: iso(at('09:00')) }], '12:00', iso(at('16:55'))],
    ['a quiet part after its close: its calls watched', [{ quiet: true, nextLookAt: iso(at('09:00')) }], '18:00', null],
    ['a dialling part: its look overdue after the grace', [{}], '10:05', iso(at('10:20'))],
    ['a dialling part: the closing margin first', [{ nextLookAt: iso(at('16:50')) }], '16:40', iso(at('16:55'))],
    ['a quiet part and a dialling one', [{ quiet: true }, {}], '10:05', iso(at('10:20'))],
  ])('%s', async (_name, watches, time, quietUntil) => {
    const tables = await createTables(dynamo.endpoint, `quiet-${++parts}`);
    const own = new CampaignStore(documentClient(aws), tables.campaigns);
    for (const [i, w] of watches.entries()) {
      const key = `upload-${parts}-p${i + 1}`;
      await own.beginCreate(key, `upload-${parts}`, i + 1, new Date(at('09:00')), watch(key, w));
    }
    const out = await guardOn(safety, () => at(time), running, own).sweep();
    expect(out.actions).toEqual([]);
    expect(out.quietUntil === null ? null : iso(out.quietUntil)).toBe(quietUntil);
    // A quiet part whose window has closed is watched: each sweep reads the calls list.
    expect(out.watching).toEqual(time === '18:00' ? [{ campaignId: 'cmp_1', startsAt: null }] : []);
  });
});

/** Resolves once `check` answers true (polled on the event loop, no timers). */
async function until(check: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 1000; i++) {
    if (await check()) return;
    await new Promise((resolve) => setImmediate(resolve));
  }
  throw new Error('never happened');
}

/** An object store whose first put waits until `release()`; `read` resolves once its first get has answered. */
class HeldPut extends ObjectStore {
  read: Promise<void>;
  release!: () => void;
  private readDone!: () => void;
  private readonly released: Promise<void>;

  constructor() {
    super(s3Client(aws));
    this.read = new Promise((resolve) => {
      this.readDone = resolve;
    });
    this.released = new Promise((resolve) => {
      this.release = resolve;
    });
  }

  override async get(...args: Parameters<ObjectStore['get']>) {
    const out = await super.get(...args);
    this.readDone();
    return out;
  }

  override async put(...args: Parameters<ObjectStore['put']>) {
    await this.released;
    return super.put(...args);
  }
}

describe('the root report’s follow-up rounds', () => {
  const uploadId = 'upload-rounds';
  const rootKey = partKeyOf(uploadId, 1);
  const reportKey = partReportKey(`reports/${uploadId}/`, '1');
  const planOf = (round: number, key?: string) =>
    ({
      uploadId,
      bucket: BUCKET,
      part: { index: 1, of: 1, key: `parts/${uploadId}/part-1.xlsx` },
      reportPrefix: `reports/${uploadId}/`,
      followUp: { round, rootPartKey: rootKey, ...(key ? { partKey: key } : {}) },
    }) as unknown as CampaignPlan;
  const started = (round: number, key: string): FollowUpStarted => ({
    round,
    partKey: key,
    outcomes: ['no_answer', 'busy'],
    contacts: 2,
    notBefore: '2026-12-08T14:00:00.000Z',
    sheet: `s3://${BUCKET}/parts/${key}.xlsx`,
    report: `s3://${BUCKET}/reports/${key}.json`,
  });
  const listed = async () =>
    (
      JSON.parse((await objects.get(BUCKET, reportKey))?.bytes.toString('utf8') ?? '{}') as {
        followUpRounds?: FollowUpStarted[];
      }
    ).followUpRounds?.map((r) => r.partKey);

  it('keeps every round when two rounds that end at once each add theirs', async () => {
    await store.beginCreate(rootKey, uploadId, 1, new Date(at('09:00')));
    await store.created(rootKey, 'cmp_root');
    const [a, b] = [followUpKey(rootKey, 2, 0), followUpKey(rootKey, 2, 1)];
    const [a3, b3] = [followUpKey(a, 3, 0), followUpKey(b, 3, 0)];
    // The root's end starts rounds 2a and 2b, then writes its report listing them (as close() does).
    const rootStarted = [started(2, a), started(2, b)];
    await new RootReport({ objects, rounds: store, log: silentLog }).listRounds(planOf(1), rootStarted);
    await objects.put(
      BUCKET,
      reportKey,
      `${JSON.stringify({ status: 'completed', followUpRounds: rootStarted }, null, 2)}\n`,
      'application/json',
    );
    // 2a's end reads the report; 2b's end reads, adds and writes; then 2a writes what it read plus its own.
    const slow = new HeldPut();
    const first = new RootReport({ objects: slow, rounds: store, log: silentLog }).listRounds(planOf(2, a), [
      started(3, a3),
    ]);
    await slow.read;
    await new RootReport({ objects, rounds: store, log: silentLog }).listRounds(planOf(2, b), [started(3, b3)]);
    slow.release();
    await first;
    expect(await listed()).toEqual([a, a3, b, b3]);
    // The register on the root's record holds the same, each round once.
    expect((await store.followUpRounds(rootKey)).map((r) => r.partKey)).toEqual([a, a3, b, b3]);
    expect(await store.followUpRounds(rootKey)).toContainEqual(started(3, b3));
  });

  it('makes no record for a root part that has none', async () => {
    const round = started(2, 'upload-unknown-p1-r2a');
    expect(await store.addFollowUpRounds('upload-unknown-p1', [round])).toEqual([round]);
    expect(await store.get('upload-unknown-p1')).toBeNull();
  });
});

describe('a part the sweeper must still see', () => {
  const arnOf = (key: string) => `arn:aws:states:us-east-1:123456789012:execution:callsheet-lifecycle:${key}`;
  const pausing = {
    secure: async () => ({ outcome: 'paused' as const, message: 'paused', pauseHeld: true }),
  } as unknown as CampaignSafety;

  it('a campaign created for a later start is quiet only until it: a workflow wedged before its first look is caught', async () => {
    const { key, plan } = await partToCreate('scheduled-then-wedged');
    // 08:00 in New York: the window opens at 09:00, so the campaign is created scheduled for 09:00.
    const steps = stepsOn({
      safety: pausing,
      now: () => at('08:00'),
      api: { campaigns: { create: async () => ({ id: `cmp_sched_${parts}` }) } },
    });
    const carry = await steps.createCampaign({
      action: 'createCampaign',
      plan,
      carry: readyCarry(),
      execution: arnOf(key),
    });
    expect(carry).toMatchObject({ phase: 'running', startsAt: iso(at('09:00')) });
    // The create is the look the sweeper checks: quiet until the start, with the workflow's first look (the pause
    // lead before the start) as its next one.
    expect((await store.get(key))?.watch).toMatchObject({
      quiet: true,
      quietUntil: iso(at('09:00')),
      nextLookAt: iso(at('08:59')),
    });
    // The workflow wedges (still running, it never looks). Before the start nothing is due; the sweeper says when
    // to come back: at the start.
    let now = at('08:30');
    const guard = guardOn(pausing, () => now, described('RUNNING'));
    const before = await guard.sweep();
    // (Other parts of this file's table may bring it earlier, never later.)
    expect(before.actions.filter((a) => a.partKey === key)).toEqual([]);
    expect(before.quietUntil).not.toBeNull();
    expect(before.quietUntil).toBeLessThanOrEqual(at('09:00'));
    // From the start the campaign dials on its own: its look, due at 08:59, is overdue at 09:10, and it is secured.
    now = at('09:10');
    const overdue = (await guard.sweep()).actions.filter((a) => a.partKey === key);
    expect(overdue.map((a) => [a.outcome, a.reasons.some((r) => r.includes('has not looked at it since'))])).toEqual([
      ['paused', true],
    ]);
  });

  it('a look after the start whose stats fail does not record the part quiet on the stale "scheduled" stats', async () => {
    const { partKey, watch } = await runningPart(at('08:58'), at('09:00'));
    const failing = {
      campaigns: {
        stats: async () => {
          throw Object.assign(new Error('500 internal'), { status: 500 });
        },
      },
    };
    const steps = stepsOn({ safety: {} as CampaignSafety, now: () => at('09:01'), api: failing, polls: failing });
    // The last look that was answered (before the start) said scheduled; the campaign dials since 09:00.
    const input = lookAt(partKey, watch, {
      startsAt: iso(at('09:00')),
      paused: null,
      stats: { status: 'scheduled', total: 5, completed: 0, failed: 0, pending: 5, in_progress: 0 } as never,
    });
    await steps.step(input);
    const seen = (await store.get(partKey))?.watch as Watch;
    expect(seen).toMatchObject({ quiet: true, quietUntil: iso(at('09:00')) });
    expect(quietAt(seen, at('09:01'))).toBe(false);
  });

  it('the guard dying after it ended the part (three times) leaves it for the sweeper, which secures it', async () => {
    const { partKey, watch } = await runningPart(at('10:00'), at('10:20'));
    let attempts = 0;
    // The Voice API hangs: each guard invocation times out inside its securing (a Lambda timeout), after the end.
    const dying = {
      secure: async () => {
        attempts++;
        throw new Error('Task timed out after 95.00 seconds');
      },
    } as unknown as CampaignSafety;
    const guard = guardOn(dying, () => at('10:05'), described('ABORTED'));
    for (let i = 0; i < 3; i++)
      await expect(
        guard.executionEnded({ executionArn: watch.execution, name: partKey, status: 'ABORTED' }),
      ).rejects.toThrow(/timed out/);
    expect(attempts).toBe(3);
    expect(await store.get(partKey)).toMatchObject({
      status: 'failed',
      campaignId: watch.campaignId,
      secured: { by: 'guard', outcome: 'unconfirmed' },
    });
    // The API is back; the campaign is active and nobody has paused it. The sweeper finds it and secures it.
    const { safety: healthy, secured } = pausingSafety();
    const actions = (await guardOn(healthy, () => at('10:30'), described('ABORTED')).sweep()).actions;
    expect([actions.filter((a) => a.partKey === partKey).length, secured.filter((h) => h === partKey)]).toEqual([
      1,
      [partKey],
    ]);
    expect((await store.get(partKey))?.secured).toMatchObject({ by: 'sweeper', outcome: 'paused', pauseHeld: true });
  });

  it('a sweep dying after it ended a part whose workflow is gone leaves it for the next sweep', async () => {
    const { partKey } = await runningPart(at('10:00'), at('10:20'));
    const dying = {
      secure: async (t: { holder: string }) => {
        if (t.holder === partKey) throw new Error('Task timed out after 300.00 seconds');
        return { outcome: 'paused' as const, message: 'paused', pauseHeld: true };
      },
    } as unknown as CampaignSafety;
    // The guard's event was lost; the sweeper finds the workflow gone, ends the part and dies securing it.
    await expect(guardOn(dying, () => at('10:05'), described('ABORTED')).sweep()).rejects.toThrow(/timed out/);
    expect(await store.get(partKey)).toMatchObject({ status: 'failed', secured: { outcome: 'unconfirmed' } });
    const actions = (await guardOn(pausing, () => at('10:10'), described('ABORTED')).sweep()).actions;
    expect(actions.filter((a) => a.partKey === partKey).map((a) => a.outcome)).toEqual(['paused']);
  });

  it('an ended part marked unconfirmed whose campaign was never created is marked so, and left alone after', async () => {
    const partKey = `upload-${++parts}-p1`;
    // Stopped before its create: the guard ends the part and finds nothing to secure.
    const guard = guardOn(pausing, () => at('10:05'), described('ABORTED'));
    const action = await guard.executionEnded({ executionArn: arnOf(partKey), name: partKey, status: 'ABORTED' });
    expect(action.outcome).toBe('none');
    expect(await store.get(partKey)).toMatchObject({ status: 'failed', secured: { outcome: 'nothing' } });
    expect((await store.unfinished({ unconfirmed: true })).some((r) => r.partKey === partKey)).toBe(false);
    // Had that guard died before it marked so, the next sweep marks it, and lists it no more.
    const died = `upload-${++parts}-p1`;
    await store.finish(
      died,
      'failed',
      new Date(at('10:05')),
      { code: 'workflow_aborted', message: 'stopped' },
      undefined,
      {
        at: iso(at('10:05')),
        by: 'guard',
        outcome: 'unconfirmed',
        reason: 'the workflow aborted; its campaign is being secured',
      },
    );
    const swept = (await guardOn(pausing, () => at('10:10'), described('ABORTED')).sweep()).actions;
    expect(swept.filter((a) => a.partKey === died).map((a) => a.outcome)).toEqual(['none']);
    expect(await store.get(died)).toMatchObject({ secured: { by: 'sweeper', outcome: 'nothing' } });
  });
  it('campaign release keeps the brake while a resume in doubt may still land, and lets go once it cannot', async () => {
    const { partKey, watch } = await runningPart(at('10:00'), at('10:20'));
    // A resume sent at 10:00 lost its answer; the operator cancels at 10:05: the part ends paused and braked.
    await store.observe(partKey, { ...watch, resumeInDoubt: iso(at('10:00')), quiet: true });
    await store.hold('agt_1', partKey, new Date(at('10:05')));
    await store.markSecured(partKey, {
      at: iso(at('10:05')),
      by: 'workflow',
      outcome: 'braked',
      reason: 'cancel',
      pauseHeld: true,
    });
    await store.finish(partKey, 'cancelled', new Date(at('10:05')));
    const released: string[] = [];
    const api = (how: 'paused' | 'not_active') => ({
      confirmPaused: async () => ({ ok: true, how, message: how }),
      releaseBrake: async (_agent: string, holder: string) => {
        released.push(holder);
        return { ok: true, message: 'agent reactivated' };
      },
    });
    // 10:10 and Monday night: paused now, but the resume may still be carried out until Tuesday's opening.
    for (const when of [at('10:10'), at('23:00')])
      await expect(letGoOfBrake(store, watch.campaignId as string, api('paused'), new Date(when))).rejects.toThrow(
        `callsheet takes a resume not carried out by the next opening (${iso(Date.parse('2026-12-08T09:00:00-05:00'))}) never to be`,
      );
    expect([released, await store.isHeldBy('agt_1', partKey)]).toEqual([[], true]);
    // The campaign gone from the API (deleted in the dashboard): nothing can resume it.
    const gone = await letGoOfBrake(store, watch.campaignId as string, api('not_active'), new Date(at('10:15')));
    expect([gone.held, released]).toEqual([true, [partKey]]);
    // Another part, the same doubt: from Tuesday's opening the resume is taken never to be, and the brake goes.
    const other = await runningPart(at('10:00'), at('10:20'));
    await store.observe(other.partKey, { ...other.watch, resumeInDoubt: iso(at('10:00')), quiet: true });
    await store.hold('agt_1', other.partKey, new Date(at('10:05')));
    await store.finish(other.partKey, 'cancelled', new Date(at('10:05')));
    const later = await letGoOfBrake(
      store,
      other.watch.campaignId as string,
      api('paused'),
      new Date(Date.parse('2026-12-08T09:00:00-05:00')),
    );
    expect([later.held, released]).toEqual([true, [partKey, other.partKey]]);

    // A third: Monday's lost resume, then at Tuesday's opening another resume sent (noted before it goes out) whose
    // answer is lost too; the look after it keeps Monday's time, as the carry does. The release waits for Wednesday.
    const third = await runningPart(at('10:00'), at('10:20'));
    const tuesday = (local: string) => Date.parse(`2026-12-08T${local}-05:00`);
    await store.observe(third.partKey, { ...third.watch, resumeInDoubt: iso(at('10:00')), quiet: false });
    await store.noteResumeSent(third.partKey, iso(tuesday('09:00')));
    await store.observe(third.partKey, { ...third.watch, resumeInDoubt: iso(at('10:00')), quiet: false });
    await store.hold('agt_1', third.partKey, new Date(tuesday('09:05')));
    await store.finish(third.partKey, 'cancelled', new Date(tuesday('09:05')));
    await expect(
      letGoOfBrake(store, third.watch.campaignId as string, api('paused'), new Date(tuesday('10:00'))),
    ).rejects.toThrow(
      `, the last resume at ${iso(tuesday('09:00'))}) may still be carried out by the Voice API, which would have it dial with no workflow watching; so the brake stays on. callsheet takes a resume not carried out by the next opening (${iso(Date.parse('2026-12-09T09:00:00-05:00'))})`,
    );
    expect(await store.isHeldBy('agt_1', third.partKey)).toBe(true);
    // With no API to reach, nothing can show the campaign gone: the register keeps the brake until then too.
    await expect(letGoOfBrake(store, third.partKey, null, new Date(tuesday('10:00')))).rejects.toThrow(
      'then run this again with the Voice API reachable',
    );
    expect(await store.isHeldBy('agt_1', third.partKey)).toBe(true);
    const wednesday = new Date(Date.parse('2026-12-09T09:00:00-05:00'));
    expect(await letGoOfBrake(store, third.partKey, null, wednesday)).toMatchObject({ held: true, agent: null });
  });
});

describe('the campaigns the sweeper watches through the calls list', () => {
  /** A table of its own (the other tests' ended parts would be watched too), and a guard reading `calls`. */
  async function watching(calls: { id: string; campaign_id: string; at: string }[]) {
    const own = new CampaignStore(documentClient(aws), (await createTables(dynamo.endpoint, 'watched')).campaigns);
    const { safety, secured } = pausingSafety();
    const list = calls.map(
      (c): Call => ({ id: c.id, status: 'completed', campaign_id: c.campaign_id, created_at: c.at, started_at: c.at }),
    );
    const guardAt = (now: () => number, campaigns: CampaignStore = own) =>
      guardOn(safety, now, described('RUNNING'), campaigns, list);
    /** A part whose workflow looked at `observedAt` (quiet: paused for the window), ended at `ended` unless null. */
    const part = async (key: string, observedAt: number, ended: number | null) => {
      await own.beginCreate(key, key, 1, new Date(observedAt - 10 * MIN));
      await own.created(key, `cmp_${key}`);
      await own.observe(key, {
        execution: `arn:aws:states:us-east-1:123456789012:execution:callsheet-lifecycle:${key}`,
        agentId: 'agt_1',
        campaignId: `cmp_${key}`,
        window: newYorkWindow(),
        observedAt: iso(observedAt),
        nextLookAt: iso(at('09:00') + 24 * 60 * MIN),
        quiet: true,
      });
      if (ended !== null) await own.finish(key, 'cancelled', new Date(ended));
    };
    return { own, secured, guardAt, part };
  }

  it('pauses again a campaign that dialled after its part ended, for a week after the end, at any hour', async () => {
    const w = await watching([
      // Two minutes after the 10:00 cancel: begun before the pause landed.
      { id: 'c1', campaign_id: 'cmp_ended', at: iso(at('10:01')) },
      { id: 'c2', campaign_id: 'cmp_ended', at: iso(at('10:30')) },
      { id: 'c3', campaign_id: 'cmp_week-old', at: iso(at('10:30')) },
    ]);
    await w.part('ended', at('09:55'), at('10:00'));
    await w.part('week-old', at('09:55') - 8 * 24 * 60 * MIN, at('10:00') - 8 * 24 * 60 * MIN);
    let now = at('10:35');
    const guard = w.guardAt(() => now);
    const first = await guard.sweep();
    expect(first.actions.map((a) => [a.partKey, a.reasons])).toEqual([
      [
        'ended',
        [
          `its campaign placed call c2 at ${iso(at('10:30'))} after its part ended (cancelled): it was resumed outside callsheet`,
        ],
      ],
    ]);
    expect(first.watching).toEqual([{ campaignId: 'cmp_ended', startsAt: null }]);
    expect(w.secured).toEqual(['ended']);
    // Acted on once: the next round counts from that securing.
    now = at('10:40');
    expect((await guard.sweep()).actions).toEqual([]);
    expect((await w.own.get('ended'))?.status).toBe('cancelled');
  });

  it('still watches the parts held for the night when the ended ones cannot be listed, and says the sweep failed', async () => {
    const w = await watching([{ id: 'c1', campaign_id: 'cmp_night', at: iso(at('18:10')) }]);
    await w.part('night', at('16:55'), null);
    const broken = Object.assign(Object.create(Object.getPrototypeOf(w.own)), w.own, {
      endedAfter: async () => {
        throw new Error('ProvisionedThroughputExceededException');
      },
    }) as CampaignStore;
    await expect(w.guardAt(() => at('18:20'), broken).sweep()).rejects.toThrow(
      'ProvisionedThroughputExceededException',
    );
    expect(w.secured).toEqual(['night']);
    expect((await w.own.get('night'))?.secured?.reason).toMatch(/placed call c1 .* while callsheet held it paused/);
  });
});
