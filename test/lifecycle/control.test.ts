import { describe, expect, it } from 'vitest';
import { documentClient } from '#commons/aws/clients.ts';
import { partKeyOfExecution } from '#commons/campaign-plan.ts';
import { CampaignControl } from '#lifecycle/campaign-control.ts';
import { CampaignStore } from '#lifecycle/campaign-store.ts';
import type { PartReport } from '#lifecycle/part-report.ts';
import { holdForOperators } from '#local/cli/operator-hold.ts';
import { LOCAL_CREDENTIALS } from '#local/stack/local-aws.ts';
import type { LocalExecution } from '#local/stack/step-functions.ts';
import { fewerLines, readJson, toLegalMorning, uploadAndRun, uploadOnly, usePipeline } from '../helpers/pipeline.ts';
import { contactSheet, phones, xlsx } from '../helpers/sheets.ts';

// Three lines: the campaigns upload `numbers(n)`, as long to dial as n numbers on the emulator's default ten.
const { settings, numbers } = fewerLines(3);
const p = usePipeline({ VOICE_API_TIMEOUT_SECONDS: '1' }, { emulator: { settings } });

// Cut to US legal hours (08:00-21:00 local); each test starts at 10:00 in Los Angeles.
const ALWAYS = { 'calling-window': 'daily 00:00-24:00' };
const MIN = 60_000;

function store() {
  const db = documentClient({
    region: 'us-east-1',
    endpoints: { dynamodb: p.stack.dynamo.endpoint },
    credentials: LOCAL_CREDENTIALS,
  });
  return new CampaignStore(db, p.stack.dynamo.tables.campaigns);
}

async function reportOf(execution: LocalExecution | undefined): Promise<PartReport> {
  const plan = JSON.parse(execution?.input ?? '{}').plan;
  return readJson<PartReport>(p, `${plan.reportPrefix}part-${plan.part.index}.json`);
}

const partKeyOf = (e: LocalExecution) => partKeyOfExecution(e.name);

/**
 * A sheet uploaded at 10:00 in Los Angeles for a new agent, with an operator acting on the stack's clock: `ask` has
 * the campaign paused, resumed or cancelled at an instant; `dialled` lists when the agent's calls were created.
 */
async function operated(name: string, numbers: string[], metadata: Record<string, string>) {
  const agent = await p.f.api.agents.create({ name });
  const t0 = await toLegalMorning(p);
  const file = `${name.toLowerCase().replace(/\W+/g, '-')}.xlsx`;
  const started = await uploadOnly(p, `incoming/${agent.id}/${file}`, await xlsx(contactSheet(numbers)), metadata);
  const [execution] = started();
  const scheduler = p.stack.scheduler;
  if (!scheduler || !execution) throw new Error('simulated run expected');
  const control = new CampaignControl(store(), () => new Date(p.f.emu.core.clock.now()));
  const idOf = async () => (await store().get(partKeyOf(execution)))?.campaignId as string;
  const ask = (at: number, wish: 'pause' | 'resume' | 'cancel') =>
    scheduler.at(at, async () => void (await control.request(await idOf(), wish)));
  const dialled = async () => {
    const times: number[] = [];
    for await (const c of p.f.api.calls.listAll())
      if (c.agent_id === agent.id) times.push(Date.parse(c.created_at ?? ''));
    return times;
  };
  return { agent, t0, execution, scheduler, control, ask, dialled };
}

describe('manual control and failures', () => {
  it('an operator pauses and later resumes a running campaign; nobody is dialled in between', async () => {
    const { t0, execution, ask, dialled } = await operated('Paused by hand', phones(numbers(300), '+1415573'), ALWAYS);
    const pausing = ask(t0 + 10 * MIN, 'pause');
    const resuming = ask(t0 + 180 * MIN, 'resume');
    await p.stack.sfn.settled();
    await Promise.all([pausing, resuming]);

    const report = await reportOf(execution);
    expect(report.status).toBe('completed');
    expect(report.pauses.map((x) => x.reason)).toEqual(['manual']);
    const pausedAt = Date.parse(report.pauses[0]?.at ?? '');
    const resumedAt = Date.parse(report.resumes[0]?.at ?? '');
    expect(pausedAt).toBeGreaterThanOrEqual(t0 + 10 * MIN);
    expect(resumedAt).toBeGreaterThanOrEqual(t0 + 180 * MIN);
    expect((await dialled()).filter((t) => t > pausedAt && t < resumedAt)).toEqual([]);
  });

  it('under callsheet run, simulated time stands still while only an operator can move the run on', async () => {
    const { t0, execution, scheduler, control, ask, dialled } = await operated(
      'Held for the operator',
      phones(numbers(300), '+1415574'),
      ALWAYS,
    );
    const said: string[] = [];
    const hold = holdForOperators({
      scheduler,
      store: store(),
      partKeys: () => [partKeyOf(execution)],
      say: (line) => said.push(line),
      stopped: () => false,
      everyMs: 0,
    });
    const pausing = ask(t0 + 10 * MIN, 'pause');
    // By 40 minutes the workflow has looked and recorded the pause (its looks are at most 15 minutes apart).
    const heldAt = t0 + 40 * MIN;
    await scheduler.at(heldAt, () => hold.look());
    expect(said).toEqual([
      expect.stringMatching(/^campaign cmp_\w+ is paused by an operator: simulated time stands still/),
    ]);
    // The operator answers from another terminal: whatever real time that takes, no simulated time passed.
    const id = (await store().get(partKeyOf(execution)))?.campaignId as string;
    const clockWhenAsked = p.f.emu.core.clock.now();
    await control.request(id, 'resume');
    await hold.look();
    await p.stack.sfn.settled();
    await pausing;
    hold.stop();

    expect(clockWhenAsked).toBe(heldAt);
    expect(said.at(-1)).toBe('an operator moved the run on; simulated time runs again.');
    const report = await reportOf(execution);
    expect(report.status).toBe('completed');
    expect(report.pauses.map((x) => x.reason)).toEqual(['manual']);
    // Resumed at the workflow's next look after the hold, not days of simulated time later.
    const resumedAt = Date.parse(report.resumes[0]?.at ?? '');
    expect(resumedAt).toBeGreaterThanOrEqual(heldAt);
    expect(resumedAt).toBeLessThanOrEqual(heldAt + 15 * MIN);
    const pausedAt = Date.parse(report.pauses[0]?.at ?? '');
    expect((await dialled()).filter((t) => t > pausedAt && t < resumedAt)).toEqual([]);
  });

  it('an operator pauses a campaign waiting for its start: the agent is off before it, nobody dialled until the resume', async () => {
    // 10:00 in Los Angeles: the window opens at 12:00, so the campaign is created scheduled for then.
    const { agent, t0, execution, scheduler, ask, dialled } = await operated(
      'Paused before its start',
      phones(60, '+1415579'),
      { 'calling-window': 'daily 12:00-20:00' },
    );
    const opens = t0 + 120 * MIN;
    const pausing = ask(t0 + 10 * MIN, 'pause');
    // Just before the start the agent is off: the campaign, started by the API, can dial nobody until paused.
    let activeBeforeStart: boolean | undefined;
    const beforeStart = scheduler.at(opens - 30_000, async () => {
      activeBeforeStart = p.f.emu.core.account.agents.get(agent.id)?.is_active;
    });
    const resuming = ask(opens + 60 * MIN, 'resume');
    await p.stack.sfn.settled();
    await Promise.all([pausing, beforeStart, resuming]);

    expect(activeBeforeStart).toBe(false);
    const report = await reportOf(execution);
    expect(report.status).toBe('completed');
    expect(report.pauses.map((x) => x.reason)).toEqual(['manual']);
    // The brake went on before the start and was let go once the started campaign was paused.
    expect(report.brakes.map((b) => [b.event, b.reason])).toEqual([
      ['brake', 'manual'],
      ['brake released', 'manual'],
    ]);
    expect(Date.parse(report.brakes[0]?.at ?? '')).toBeLessThan(opens);
    expect(Date.parse(report.pauses[0]?.at ?? '')).toBeGreaterThanOrEqual(opens);
    const times = await dialled();
    expect(times.length).toBeGreaterThanOrEqual(60);
    expect(times.filter((t) => t < opens + 60 * MIN)).toEqual([]);
    expect(p.f.emu.core.account.agents.get(agent.id)?.is_active).toBe(true);
  });

  it('an operator cancels: the campaign is paused for good and the part ends cancelled', async () => {
    const { t0, execution, control, ask } = await operated('Cancelled', phones(numbers(300), '+1415574'), ALWAYS);
    const cancelling = ask(t0 + 15 * MIN, 'cancel');
    await p.stack.sfn.settled();
    await cancelling;
    expect(execution.status).toBe('SUCCEEDED');
    const report = await reportOf(execution);
    expect(report.status).toBe('cancelled');
    expect(report.stats?.pending).toBeGreaterThan(0);
    expect((await p.f.api.campaigns.get(report.campaignId as string)).status).toBe('paused');
    await expect(control.request(report.campaignId as string, 'resume')).rejects.toThrow(/already ended \(cancelled\)/);
  });

  it('a cancel is final: a resume asked with it or after it is refused, and the part ends cancelled', async () => {
    const { t0, execution, control, scheduler } = await operated('Final', phones(numbers(300), '+1415577'), ALWAYS);
    const key = partKeyOf(execution);
    let after: unknown = null;
    const asking = scheduler.at(t0 + 15 * MIN, async () => {
      const id = (await store().get(key))?.campaignId as string;
      // Two operators at once, one cancelling, one resuming by the part's key (as \`campaign show\` takes it):
      // whichever lands first, the cancel stands.
      await Promise.allSettled([control.request(id, 'cancel'), control.request(key, 'resume')]);
      after = await control.request(id, 'resume').catch((err: Error) => err);
    });
    await p.stack.sfn.settled();
    await asking;
    expect(String(after)).toMatch(/is being cancelled \(asked at .*\): a cancel is final, so it is not resumed/);
    expect(execution.status).toBe('SUCCEEDED');
    const report = await reportOf(execution);
    expect(report.status).toBe('cancelled');
    expect(report.stats?.pending).toBeGreaterThan(0);
    expect((await store().get(key))?.control?.wanted).toBe('cancel');
  });

  it('takes a part key where a campaign id is asked, and refuses a key no part has', async () => {
    const { t0, execution, control, scheduler } = await operated('ByKey', phones(numbers(300), '+1415578'), ALWAYS);
    const key = partKeyOf(execution);
    let asked: unknown = null;
    const asking = scheduler.at(t0 + 15 * MIN, async () => {
      asked = await control.request(key, 'cancel');
    });
    await p.stack.sfn.settled();
    await asking;
    const report = await reportOf(execution);
    expect(asked).toEqual({ partKey: key, campaignId: report.campaignId, status: 'running' });
    expect(report.status).toBe('cancelled');
    await expect(control.request(`${key}x`, 'pause')).rejects.toThrow(/callsheet has no campaign .*x \(check the id/);
  });

  it('creates one campaign when the create answer times out after the API made it', async () => {
    const agent = await p.f.api.agents.create({ name: 'Once only' });
    await toLegalMorning(p);
    await p.f.admin.fault({ path: '/api/developer/v1/campaigns', method: 'POST', delayMs: 1500, count: 1 });
    const [execution] = await uploadAndRun(
      p,
      `incoming/${agent.id}/once.xlsx`,
      await xlsx(contactSheet(phones(20, '+1415575'))),
      ALWAYS,
    );
    expect([execution?.status, execution?.cause]).toEqual(['SUCCEEDED', null]);
    const report = await reportOf(execution);
    expect(report.status).toBe('completed');
    await p.f.emu.traffic.settled(); // the held answer is logged when it is finally sent
    const posts = (await p.f.admin.requests<{ method: string; path: string }[]>()).filter(
      (r) => r.method === 'POST' && r.path.endsWith('/campaigns'),
    );
    expect(posts).toHaveLength(1);
    const state = await p.f.admin.state<{ campaigns: { id: string; agent_id: string }[] }>();
    expect(state.campaigns.filter((c) => c.agent_id === agent.id).map((c) => c.id)).toEqual([report.campaignId]);
  });

  it('looks again after transient API errors and goes on', async () => {
    const agent = await p.f.api.agents.create({ name: 'Flaky stats' });
    await toLegalMorning(p);
    await p.f.admin.fault({ path: '/api/developer/v1/campaigns/', method: 'GET', status: 503, count: 8 });
    const [execution] = await uploadAndRun(
      p,
      `incoming/${agent.id}/flaky.xlsx`,
      await xlsx(contactSheet(phones(5, '+1415576'))),
      ALWAYS,
    );
    expect([execution?.status, execution?.cause]).toEqual(['SUCCEEDED', null]);
    // The step's client gave up after one retry; the step read that as "stats unavailable" and looked again soon.
    const faulted = (await p.f.admin.requests<{ status: number; fault: boolean }[]>()).filter(
      (r) => r.fault && r.status === 503,
    );
    expect(faulted).toHaveLength(8);
    expect((await reportOf(execution)).status).toBe('completed');
  });

  it('notices a campaign deleted in the API and fails with the reason instead of polling forever', async () => {
    const agent = await p.f.api.agents.create({ name: 'Deleted' });
    const t0 = await toLegalMorning(p);
    const started = await uploadOnly(
      p,
      `incoming/${agent.id}/deleted.xlsx`,
      await xlsx(contactSheet(phones(numbers(300), '+1415577'))),
      ALWAYS,
    );
    const [execution] = started();
    if (!execution || !p.stack.scheduler) throw new Error('simulated run expected');
    const deleting = p.stack.scheduler.at(t0 + 20 * MIN, async () => {
      const id = (await store().get(partKeyOf(execution)))?.campaignId as string;
      await p.f.api.campaigns.pause(id);
      await p.f.api.campaigns.delete(id);
    });
    await p.stack.sfn.settled();
    await deleting;
    expect(execution.status).toBe('FAILED');
    const report = await reportOf(execution);
    expect(report.status).toBe('failed');
    expect(report.failure?.code).toBe('campaign_deleted');
    const failed = p.stack.events.events.filter((e) => e.DetailType === 'Campaign Failed');
    expect(failed.map((e) => (e.Detail as { failure: { code: string } }).failure.code)).toContain('campaign_deleted');
  });
});
