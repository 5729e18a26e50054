import { PutObjectCommand } from '@aws-sdk/client-s3';
import { describe, expect, it } from 'vitest';
import { documentClient } from '#commons/aws/clients.ts';
import { partKeyOfExecution } from '#commons/campaign-plan.ts';
import { CampaignControl, letGoOfBrake } from '#lifecycle/campaign-control.ts';
import { CampaignSafety } from '#lifecycle/campaign-safety.ts';
import { CampaignStore } from '#lifecycle/campaign-store.ts';
import type { PartReport } from '#lifecycle/part-report.ts';
import type { FaultInput } from '#local/emulator/fault-plan.ts';
import type { LambdaInvoke } from '#local/stack/lifecycle-machine.ts';
import { LOCAL_CREDENTIALS } from '#local/stack/local-aws.ts';
import type { LocalExecution } from '#local/stack/step-functions.ts';
import { auditCalls, type CallRule } from '../helpers/call-audit.ts';
import {
  auditRecords,
  fewerLines,
  placedCalls,
  readJson,
  settledRun,
  uploadOnly,
  usePipeline,
} from '../helpers/pipeline.ts';
import { contactSheet, phones, xlsx } from '../helpers/sheets.ts';

/**
 * The first rule, rehearsed: whatever fails, no call starts outside the legal window of the number it dials. Each
 * scenario breaks something on the embedded stack (the emulator's fault plans on simulated time, a Lambda error,
 * a stopped or wedged workflow) and then checks every call the emulator placed with the independent auditor.
 */

/** Rehearsal of Lambda-level failures: the wrapper makes chosen lifecycle actions fail or misbehave. */
const lambda: {
  throwOn: { action: string; times: number; name: string } | null;
  /** Runs before the first invocation of `action` by an execution whose name contains `name` (then forgets it). */
  before: { action: string; name: string; run: (execution: string) => Promise<void> } | null;
  /** Wedges the first look after this instant of an execution whose name starts with `wedgeName`. */
  wedgeAfter: number | null;
  wedgeName: string;
  now: () => number;
} = { throwOn: null, before: null, wedgeAfter: null, wedgeName: '', now: () => 0 };

const wrap =
  (invoke: LambdaInvoke): LambdaInvoke =>
  async (event, context) => {
    const action = (event as { action?: string }).action;
    const t = lambda.throwOn;
    if (t && t.action === action && t.times > 0) {
      t.times--;
      const err = new Error('Lambda was unable to run the function (rehearsal)');
      err.name = t.name;
      throw err;
    }
    const execution = String((event as { execution?: string }).execution ?? '');
    const before = lambda.before;
    if (before && before.action === action && execution.includes(`:${before.name}`)) {
      lambda.before = null;
      await before.run(execution);
    }
    const out = (await invoke(event, context)) as { wakeAt?: string; next?: string };
    // A wedged workflow: the first look after a given instant plans its next one three days later.
    const wedged =
      lambda.wedgeAfter !== null && lambda.now() >= lambda.wedgeAfter && execution.includes(`:${lambda.wedgeName}`);
    if (action === 'step' && wedged && out?.next === 'wait') {
      lambda.wedgeAfter = null;
      return { ...out, wakeAt: new Date(lambda.now() + 3 * 86_400_000).toISOString() };
    }
    return out;
  };

/** Rehearsal of a guard that fails: its next `throws` invocations throw, as Lambda failing to run it would. */
const guardFault = { throws: 0, at: [] as number[] };
const wrapGuard =
  (invoke: LambdaInvoke): LambdaInvoke =>
  async (event, context) => {
    guardFault.at.push(lambda.now());
    if (guardFault.throws > 0) {
      guardFault.throws--;
      const err = new Error('Lambda was unable to run the function (rehearsal)');
      err.name = 'Lambda.ServiceException';
      throw err;
    }
    return invoke(event, context);
  };

// Three lines: each scenario uploads `numbers(n)`, as long to dial as n numbers on the emulator's default ten.
const { settings: lines, numbers } = fewerLines(3);
// Great Britain without callsheet's conservative default: the London rehearsals test the upload's own windows
// (nights, DST gaps) as they are, with no legal hours of the country's to cut them.
const p = usePipeline(
  { LEGAL_HOURS: '{"GB": "off"}' },
  { wrapLifecycle: wrap, wrapGuard, heldAnswers: true, emulator: { settings: lines } },
);
lambda.now = () => p.f.emu.core.clock.now();

const campaignStore = () =>
  new CampaignStore(
    documentClient({
      region: 'us-east-1',
      endpoints: { dynamodb: p.stack.dynamo.endpoint },
      credentials: LOCAL_CREDENTIALS,
    }),
    p.stack.dynamo.tables.campaigns,
  );
const WINDOW = 'Mon-Fri 09:00-17:00';
const RULE: CallRule = { hours: WINDOW, closingMarginMinutes: 5 };

interface Scenario {
  name: string;
  /** Simulated start (ISO with offset). */
  at: string;
  count?: number;
  prefix?: string;
  metadata?: Record<string, string>;
  faults?: FaultInput[];
  /** Something to do at a simulated instant while the run plays out (stop the execution…). */
  during?: { at: string; action: (executions: () => LocalExecution[]) => Promise<void> };
  rule?: CallRule;
}

async function rehearse(s: Scenario) {
  await p.f.admin.setClock(s.at);
  await p.f.admin.faultPlan(s.faults ?? []);
  const agent = await p.f.api.agents.create({ name: s.name });
  const started = await uploadOnly(
    p,
    `incoming/${agent.id}/${s.name}.xlsx`,
    await xlsx(contactSheet(phones(s.count ?? numbers(400), s.prefix ?? '+1415579'))),
    { 'calling-window': WINDOW, ...s.metadata },
  );
  const scheduler = p.stack.scheduler;
  if (!scheduler) throw new Error('simulated run expected');
  const during = s.during
    ? scheduler.at(Date.parse(s.during.at), () => s.during?.action(started) ?? Promise.resolve())
    : null;
  await during;
  await settledRun(p);
  await p.f.admin.faultPlan([]);
  const executions = started();
  const plan = JSON.parse(executions[0]?.input ?? '{}').plan;
  const report = plan ? await readJson<PartReport>(p, `${plan.reportPrefix}part-1.json`).catch(() => null) : null;
  const calls = placedCalls(p, agent.id);
  // What the calls did, and what the campaigns could have done had a line been free at every instant.
  const violations = await auditRecords(p, agent.id, s.rule ?? RULE);
  const faulted = (await p.f.admin.requests<{ fault: boolean; method: string; path: string }[]>()).filter(
    (r) => r.fault,
  );
  const campaign = [...p.f.emu.core.account.campaigns.values()].find((c) => c.agent_id === agent.id);
  return { agent, executions, report, calls, violations, faulted, campaign };
}

/**
 * The emulator's clock only moves forward, so each scenario runs in a week of its own, in file order: `day(n)` is
 * the date of the Monday n weeks after 2027-01-04 (Los Angeles is on PST, UTC-8, all January and February).
 */
const day = (n: number, plusDays = 0) => new Date(Date.UTC(2027, 0, 4 + 7 * n + plusDays)).toISOString().slice(0, 10);
/** The first week whose Sunday is still ahead of the clock (a scenario may have run for days). */
const nextWeek = () => {
  let n = 0;
  while (Date.parse(`${day(n, -1)}T00:00:00Z`) <= p.f.emu.core.clock.now()) n++;
  return n;
};
/** A wall time in Los Angeles as an ISO instant (PST or PDT, whichever holds that day). */
function la(date: string, time: string): string {
  const guess = Date.parse(`${date}T${time}Z`);
  const shown = new Intl.DateTimeFormat('sv-SE', {
    timeZone: 'America/Los_Angeles',
    dateStyle: 'short',
    timeStyle: 'medium',
  }).format(guess);
  const offset = Date.parse(`${shown.replace(' ', 'T')}Z`) - guess;
  return new Date(guess - offset).toISOString();
}
/** An hour before Monday's 17:00 close in Los Angeles: `numbers(400)` do not finish by then. */
const beforeClose = (w: number) => la(day(w), '16:00:00');
/**
 * `numbers(1000)` uploaded at Monday 16:00 with a window that closes at 16:30: far more than half an hour dials, so
 * the campaign is still pending at Tuesday's opening. Each scenario gives its own prefix: the same list again for
 * the same agent would be refused as a repeated upload.
 */
const HALF_HOUR_LEFT = 'Mon-Fri 09:00-16:30';
const halfHourLeft = (w: number, name: string, prefix: string): Scenario => ({
  name,
  at: beforeClose(w),
  count: numbers(1000),
  prefix,
  metadata: { 'calling-window': HALF_HOUR_LEFT },
  rule: { hours: HALF_HOUR_LEFT, closingMarginMinutes: 5 },
});
/** Stops the scenario's first execution (or all of them) at a simulated instant, as an operator at the console. */
const stopping = (at: string, which: 'first' | 'all' = 'first'): Scenario['during'] => ({
  at,
  action: async (executions) => {
    for (const e of which === 'all' ? executions() : executions().slice(0, 1))
      p.stack.sfn.stop(e.executionArn, 'Operator', 'stopped from the console');
  },
});
/** From 10:00 on a week of its own, the first execution stopped by hand at 10:20, mid-window. */
async function stoppedMidWindow(name: string) {
  const w = nextWeek();
  const stopAt = la(day(w), '10:20:00');
  const r = await rehearse({ name, at: la(day(w), '10:00:00'), count: numbers(1000), during: stopping(stopAt) });
  return { ...r, stopAt };
}
/**
 * Ten minutes a day from Monday 08:00: the lifecycle resumes at Tuesday's 09:00 opening, and that resume is held
 * ten minutes before it takes effect (the client gave up after 10 s), so it lands at the 09:10 close.
 */
const resumeLandingLate = (w: number, name: string, prefix: string): Scenario => ({
  name,
  at: la(day(w), '08:00:00'),
  count: numbers(100),
  prefix,
  metadata: { 'calling-window': 'Mon-Fri 09:00-09:10' },
  rule: { hours: 'Mon-Fri 09:00-09:10', closingMarginMinutes: 5 },
  faults: [
    {
      method: 'PATCH',
      path: '/campaigns/*/resume',
      delayMs: 600_000,
      late: true,
      from: la(day(w, 1), '09:00:00'),
      minutes: 1,
      count: 1,
    },
  ],
});
/** The resume the emulator carried out late, as its request log has it. */
const lateResume = async () =>
  (await p.f.admin.requests<{ at: string; path: string; status: number; fault: boolean }[]>()).find(
    (q) => q.fault && q.path.endsWith('/resume'),
  );
const faultAcrossClose = (
  w: number,
  f: Omit<FaultInput, 'from' | 'minutes'>,
  from = '16:40',
  minutes = 60,
): FaultInput => ({ ...f, from: la(day(w), `${from}:00`), minutes });
/** Pauses answer 500 from 16:40 to 17:40 of week `w`'s Monday: across its 17:00 close. */
const pausesFail = (w: number) => faultAcrossClose(w, { method: 'PATCH', path: '/campaigns/*/pause', status: 500 });
/** What an operator's `campaign release` is given: the Voice API's campaigns and agents, on this machine's clock. */
function operatorSafety(store: ReturnType<typeof campaignStore>): CampaignSafety {
  const api = p.f.client();
  return new CampaignSafety(api.campaigns, api.agents, store, { action: () => undefined }, () => new Date());
}

describe('DST gaps and overlaps', () => {
  // In date order (the clock only moves forward); each runs across a change of offset.
  it.each([
    // New York springs forward on 2026-03-08 (and falls back on 2026-11-01, below); 08:00-08:20 each morning.
    ['new-york-spring', '+1212734', '2026-03-06T07:00:00-05:00', 'daily 08:00-08:20'],
    // London has no legal-hours entry: the upload's own window around 01:00-02:00, skipped on 2026-03-29.
    ['london-spring', '+44794602', '2026-03-27T23:00:00Z', 'daily 00:30-02:30'],
    // Sydney: AU legal hours (no Sunday) across the 2026-04-05 and 2026-10-04 changes.
    ['sydney-autumn', '+6129250', '2026-04-03T08:30:00+11:00', 'Mon-Sat 09:00-09:30'],
    ['sydney-spring', '+6129251', '2026-10-02T08:30:00+10:00', 'Mon-Sat 09:00-09:30'],
    // London repeats 01:00-02:00 on 2026-10-25.
    ['london-fall', '+44794603', '2026-10-23T23:00:00+01:00', 'daily 00:30-02:30'],
    ['new-york-fall', '+1212735', '2026-10-30T07:00:00-04:00', 'daily 08:00-08:20'],
  ])(
    '%s',
    async (name, prefix, at, window) => {
      const r = await rehearse({
        name,
        at,
        count: numbers(400),
        prefix,
        metadata: { 'calling-window': window },
        rule: { hours: window.replace('daily', 'Mon-Sun'), closingMarginMinutes: 5 },
      });
      expect(r.calls.length).toBeGreaterThanOrEqual(numbers(400));
      expect(r.report?.status).toBe('completed');
      expect(r.violations).toEqual([]);
    },
    90_000,
  );
});

describe('no call outside the window, whatever fails', () => {
  it('stats answer 500 for two hours across the close', async () => {
    const w = nextWeek();
    const r = await rehearse({
      name: 'stats-500',
      at: beforeClose(w),
      faults: [faultAcrossClose(w, { method: 'GET', path: '/campaigns/*/stats', status: 500 }, '16:30', 120)],
    });
    expect(r.faulted.length).toBeGreaterThan(0);
    expect(r.violations).toEqual([]);
    expect(r.report?.status).toBe('completed');
    expect(r.calls.length).toBeGreaterThanOrEqual(numbers(400));
  }, 90_000);

  it('stats answer without their counts for two hours across the close: never read as finished', async () => {
    const w = nextWeek();
    const partial = {
      method: 'GET',
      path: '/campaigns/*/stats',
      body: { status: 'active', pending: null, in_progress: null },
    };
    const r = await rehearse({
      name: 'stats-no-counts',
      at: beforeClose(w),
      faults: [faultAcrossClose(w, partial, '16:30', 120)],
    });
    expect(r.faulted.length).toBeGreaterThan(0);
    expect(r.violations).toEqual([]);
    expect(r.report?.pauses.length).toBeGreaterThan(0);
    expect(r.report?.status).toBe('completed');
    expect(r.calls.length).toBeGreaterThanOrEqual(numbers(400));
  }, 90_000);

  it('pause and resume answers cut short: carried out, asked again or reconciled, never a call out of hours', async () => {
    const w = nextWeek();
    const cut = { cut: true, count: 2 };
    const r = await rehearse({
      name: 'cut-pause-resume',
      at: beforeClose(w),
      faults: [
        faultAcrossClose(w, { method: 'PATCH', path: '/campaigns/*/pause', ...cut }),
        { method: 'PATCH', path: '/campaigns/*/resume', ...cut, from: la(day(w, 1), '08:50:00'), minutes: 60 },
      ],
    });
    expect(r.faulted.some((f) => f.path.endsWith('/pause'))).toBe(true);
    expect(r.faulted.some((f) => f.path.endsWith('/resume'))).toBe(true);
    expect(r.violations).toEqual([]);
    expect(r.report?.status).toBe('completed');
  }, 90_000);

  it('pause answers 500 for an hour across the close: the agent is braked, then released at the opening', async () => {
    const w = nextWeek();
    const r = await rehearse({
      name: 'pause-500',
      at: beforeClose(w),
      faults: [pausesFail(w)],
    });
    expect(r.faulted.some((f) => f.path.endsWith('/pause'))).toBe(true);
    expect(r.violations).toEqual([]);
    expect(r.report?.brakes.map((b) => b.event)).toEqual(['brake', 'brake released']);
    expect(p.f.emu.core.account.agents.get(r.agent.id)?.is_active).toBe(true);
    expect(r.report?.status).toBe('completed');
  }, 90_000);

  it('pause answers 500 for an hour across the close, the agent switched back on at night: the pause retried holds', async () => {
    const w = nextWeek();
    let switchedOn = false;
    const r = await rehearse({
      name: 'pause-500-agent-on',
      at: beforeClose(w),
      faults: [pausesFail(w)],
      // As an operator in the dashboard would (or a toggle that lands late): the brake alone would let it dial.
      during: {
        at: la(day(w), '20:00:00'),
        action: async (executions) => {
          const agentId = JSON.parse(executions()[0]?.input ?? '{}').plan.agentId as string;
          await p.f.api.agents.toggle(agentId);
          switchedOn = p.f.emu.core.account.agents.get(agentId)?.is_active === true;
        },
      },
    });
    expect(switchedOn).toBe(true);
    expect(r.faulted.some((f) => f.path.endsWith('/pause'))).toBe(true);
    expect(r.violations).toEqual([]);
    const record = await campaignStore().get(partKeyOfExecution(r.executions[0]?.name ?? ''));
    const night = (record?.timeline ?? []).filter(
      (t) => t.at > la(day(w), '17:40:00') && t.at < la(day(w), '20:00:00'),
    );
    // Paused once the API took pauses again, before the agent came back on.
    expect(night.map((t) => t.event)).toContain('pause');
    expect(r.report?.status).toBe('completed');
    expect(r.calls.length).toBeGreaterThanOrEqual(numbers(400));
  }, 90_000);

  it('pause answers 409 though the campaign is active: checked against the stats, then braked', async () => {
    const w = nextWeek();
    const r = await rehearse({
      name: 'pause-409',
      at: beforeClose(w),
      faults: [faultAcrossClose(w, { method: 'PATCH', path: '/campaigns/*/pause', status: 409 })],
    });
    expect(r.violations).toEqual([]);
    expect(r.report?.brakes.map((b) => b.event)).toContain('brake');
    expect(r.report?.status).toBe('completed');
  }, 90_000);

  it('pause and resume answers are lost (the API acted, the connection dropped)', async () => {
    const w = nextWeek();
    const r = await rehearse({
      name: 'lost-answers',
      at: beforeClose(w),
      faults: [
        faultAcrossClose(w, { method: 'PATCH', path: '/campaigns/*/pause', drop: true }),
        { method: 'PATCH', path: '/campaigns/*/resume', drop: true, from: la(day(w, 1), '08:55:00'), minutes: 30 },
      ],
    });
    expect(r.faulted.some((f) => f.path.endsWith('/pause'))).toBe(true);
    expect(r.faulted.some((f) => f.path.endsWith('/resume'))).toBe(true);
    expect(r.violations).toEqual([]);
    // The stats confirmed the lost pause: no brake was needed, and the report shows the pause at the first close.
    expect(r.report?.brakes).toEqual([]);
    const firstPause = Date.parse(r.report?.pauses[0]?.at ?? '');
    expect(firstPause).toBeGreaterThanOrEqual(Date.parse(la(day(w), '16:40:00')));
    expect(firstPause).toBeLessThan(Date.parse(la(day(w), '16:55:00')));
    expect(r.report?.status).toBe('completed');
  }, 90_000);

  it('a resume the API carries out ten minutes late, after the close: the close brakes the agent', async () => {
    const w = nextWeek();
    const r = await rehearse(resumeLandingLate(w, 'resume-landing-late', '+1415584'));
    const late = await lateResume();
    // It took effect at the close, on a paused campaign.
    expect(late?.status).toBe(200);
    expect(Date.parse(late?.at ?? '')).toBeGreaterThanOrEqual(Date.parse(la(day(w, 1), '09:10:00')));
    expect(r.violations).toEqual([]);
    expect(r.report?.brakes.map((b) => [b.event, b.reason])).toEqual([
      ['brake', 'resume_in_doubt'],
      ['brake released', 'window'],
    ]);
    expect(p.f.emu.core.account.agents.get(r.agent.id)?.is_active).toBe(true);
    expect(r.report?.status).toBe('completed');
  }, 90_000);

  it('the execution is stopped while a resume is in doubt: the guard brakes, and the late resume dials nobody', async () => {
    const w = nextWeek();
    const r = await rehearse({
      ...resumeLandingLate(w, 'stopped-in-doubt', '+1415585'),
      during: stopping(la(day(w, 1), '09:01:00')),
    });
    expect(r.violations).toEqual([]);
    const late = await lateResume();
    expect(Date.parse(late?.at ?? '')).toBeGreaterThanOrEqual(Date.parse(la(day(w, 1), '09:10:00')));
    const record = await campaignStore().get(partKeyOfExecution(r.executions[0]?.name ?? ''));
    expect(record?.secured).toMatchObject({ by: 'guard', outcome: 'braked' });
    expect(record?.secured?.reason).toContain('is in doubt');
    expect(p.f.emu.core.account.agents.get(r.agent.id)?.is_active).toBe(false);
    // The ended part keeps its brake until an operator lets go (`callsheet campaign release`), and the release
    // keeps it while the resume may still be carried out: until the next opening, as the workflow takes it.
    const store = campaignStore();
    const safety = operatorSafety(store);
    const id = record?.campaignId as string;
    const clock = async (at: string) => {
      await p.f.admin.setClock(at);
      return new Date(p.f.emu.core.clock.now());
    };
    const evening = await clock(la(day(w, 1), '18:00:00'));
    await expect(letGoOfBrake(store, id, safety, evening)).rejects.toThrow(
      /a resume whose answer was lost .* may still be carried out by the Voice API.*brake stays on/,
    );
    expect(p.f.emu.core.account.agents.get(r.agent.id)?.is_active).toBe(false);
    const opening = await clock(la(day(w, 2), '09:00:00'));
    expect(await letGoOfBrake(store, id, safety, opening)).toMatchObject({
      held: true,
      othersHolding: 0,
      agent: 'reactivated',
    });
    expect(p.f.emu.core.account.agents.get(r.agent.id)?.is_active).toBe(true);
    expect(await letGoOfBrake(store, id, safety, opening)).toMatchObject({ held: false });
  }, 90_000);

  it('a part ended held by the brake alone: letting go of it pauses the campaign first, or keeps the brake', async () => {
    const w = nextWeek();
    // Pauses answer 500 from 16:40 to 17:40; the workflow is stopped at 17:00, so the guard ends the part braked.
    const r = await rehearse({
      name: 'ended-brake-alone',
      at: beforeClose(w),
      faults: [pausesFail(w)],
      during: stopping(la(day(w), '17:00:00')),
    });
    await p.f.admin.faultPlan([pausesFail(w)]);
    const record = await campaignStore().get(partKeyOfExecution(r.executions[0]?.name ?? ''));
    expect(record?.secured).toMatchObject({ by: 'guard', outcome: 'braked' });
    const id = record?.campaignId as string;
    expect(p.f.emu.core.account.campaigns.get(id)?.status).toBe('active');
    const store = campaignStore();
    const safety = operatorSafety(store);
    // An operator lets go while pauses still fail: refused, the agent stays off.
    await p.f.admin.setClock(la(day(w), '17:20:00'));
    await expect(letGoOfBrake(store, id, safety)).rejects.toThrow(/could not be confirmed paused .* brake stays on/);
    expect(p.f.emu.core.account.agents.get(r.agent.id)?.is_active).toBe(false);
    // Once the API takes pauses again: paused first, then the agent back on.
    await p.f.admin.setClock(la(day(w), '18:00:00'));
    const at18 = new Date(p.f.emu.core.clock.now());
    expect(await letGoOfBrake(store, id, safety, at18)).toMatchObject({ held: true, agent: 'reactivated' });
    expect(p.f.emu.core.account.campaigns.get(id)?.status).toBe('paused');
    // Recorded, so the sweeper stops trying the pause of a part the brake alone held.
    expect((await store.get(record?.partKey ?? ''))?.secured).toMatchObject({ by: 'operator', pauseHeld: true });
    await p.f.admin.setClock(la(day(w), '20:00:00'));
    expect(await auditCalls(placedCalls(p, r.agent.id), RULE)).toEqual([]);
  }, 90_000);

  it.each([
    ['lost', 'lost-create', { drop: true }],
    ['cut short', 'cut-create', { cut: true }],
    ['without an id', 'nameless-create', { body: { status: 'scheduled' } }],
  ])(
    'the create answer is %s: the campaign is found by its calls to the part file numbers, and paused at the close',
    async (_, name, fault) => {
      const w = nextWeek();
      const r = await rehearse({
        name,
        at: beforeClose(w),
        faults: [{ method: 'POST', path: '/campaigns', ...fault, count: 1 }],
      });
      expect(r.faulted.filter((f) => f.method === 'POST' && f.path.endsWith('/campaigns'))).toHaveLength(1);
      // Found, not created again: one campaign dials the list, and the workflow watches that one.
      const created = [...p.f.emu.core.account.campaigns.values()].filter((c) => c.agent_id === r.agent.id);
      expect(created).toHaveLength(1);
      expect(r.report?.campaignId).toBe(created[0]?.id);
      expect(r.report?.pauses.length).toBeGreaterThan(0);
      expect(r.violations).toEqual([]);
      expect(r.report?.status).toBe('completed');
    },
    90_000,
  );

  it('a step throws Lambda.Unknown: the document retries it', async () => {
    const w = nextWeek();
    lambda.throwOn = { action: 'step', times: 3, name: 'Lambda.Unknown' };
    const r = await rehearse({ name: 'lambda-unknown', at: beforeClose(w) });
    lambda.throwOn = null;
    expect(r.executions[0]?.history.some((h) => h.type === 'StateRetried')).toBe(true);
    expect(r.violations).toEqual([]);
    expect(r.report?.status).toBe('completed');
  }, 90_000);

  it('a step keeps failing: SecureCampaign pauses the campaign before the execution fails', async () => {
    const w = nextWeek();
    lambda.throwOn = { action: 'step', times: 1000, name: 'Lambda.AWSLambdaException' };
    const r = await rehearse({ name: 'lambda-down', at: la(day(w), '11:00:00') });
    lambda.throwOn = null;
    expect(r.executions[0]?.status).toBe('FAILED');
    expect(r.executions[0]?.history.some((h) => h.stateName === 'SecureCampaign')).toBe(true);
    expect(r.campaign?.status).toBe('paused');
    expect(r.violations).toEqual([]);
  }, 90_000);

  it('the execution is stopped by hand mid-window: the guard pauses the campaign', async () => {
    const { stopAt, ...r } = await stoppedMidWindow('stopped');
    expect(r.executions[0]?.status).toBe('ABORTED');
    expect(r.campaign?.status).toBe('paused');
    expect(r.calls.filter((c) => Date.parse(c.started_at ?? '') > Date.parse(stopAt))).toEqual([]);
    expect(r.violations).toEqual([]);
  }, 90_000);

  it('the guard fails twice: Lambda runs it again a minute and then two minutes later, and it pauses the campaign', async () => {
    guardFault.throws = 2;
    guardFault.at = [];
    const { stopAt, ...r } = await stoppedMidWindow('guard-retried');
    expect(guardFault.throws).toBe(0);
    // Three attempts: at the stop, a minute on, and two minutes after that (Lambda's asynchronous retries).
    expect(guardFault.at.map((t) => Math.round((t - Date.parse(stopAt)) / 1000))).toEqual([0, 60, 180]);
    expect(r.executions[0]?.status).toBe('ABORTED');
    const record = await campaignStore().get(partKeyOfExecution(r.executions[0]?.name ?? ''));
    expect(record?.secured).toMatchObject({ by: 'guard', outcome: 'paused' });
    expect(r.campaign?.status).toBe('paused');
    // The window stayed open: calls went on until the third attempt paused the campaign, none after it.
    const secured = Date.parse(stopAt) + 180_000;
    expect(r.calls.filter((c) => Date.parse(c.started_at ?? '') > secured)).toEqual([]);
    expect(r.violations).toEqual([]);
  }, 90_000);

  it('the guard fails on every attempt: the sweeper pauses the campaign', async () => {
    guardFault.throws = 3;
    guardFault.at = [];
    const { stopAt, ...r } = await stoppedMidWindow('guard-down');
    guardFault.throws = 0;
    expect(guardFault.at).toHaveLength(3);
    const partKey = partKeyOfExecution(r.executions[0]?.name ?? '');
    // The workflow is gone: a round of the sweeper (every five minutes, maybe while the guard still retries)
    // secures what the guard could not.
    await p.stack.scheduler?.at(Date.parse(stopAt) + 10 * 60_000, async () => {});
    const record = await campaignStore().get(partKey);
    expect(record?.secured).toMatchObject({ by: 'sweeper', outcome: 'paused' });
    const secured = Date.parse(record?.secured?.at ?? '');
    expect(secured).toBeLessThanOrEqual(Date.parse(stopAt) + 180_000 + 5 * 60_000);
    expect(r.campaign?.status).toBe('paused');
    const calls = placedCalls(p, r.agent.id);
    expect(calls.filter((c) => Date.parse(c.started_at ?? '') > secured)).toEqual([]);
    expect(await auditRecords(p, r.agent.id, RULE)).toEqual([]);
  }, 90_000);

  it('two executions stopped at once while pause answers are slow: the guard secures both', async () => {
    const w = nextWeek();
    const stopAt = la(day(w), '10:20:00');
    // 1,200 numbers in one zone: two parts (parts hold at most 1,000, so not `numbers(1200)`). Each guard's pause is answered 6 s late, on the stack's clock.
    const r = await rehearse({
      name: 'stopped-both',
      at: la(day(w), '10:00:00'),
      count: 1200,
      faults: [{ method: 'PATCH', path: '/campaigns/*/pause', delayMs: 6_000, from: stopAt, minutes: 5, count: 2 }],
      during: stopping(stopAt, 'all'),
    });
    expect(r.executions.map((e) => e.status)).toEqual(['ABORTED', 'ABORTED']);
    for (const e of r.executions)
      expect((await campaignStore().get(partKeyOfExecution(e.name)))?.secured).toMatchObject({
        by: 'guard',
        outcome: 'paused',
      });
    expect(r.faulted.filter((f) => f.method === 'PATCH')).toHaveLength(2);
    expect(r.calls.filter((c) => Date.parse(c.started_at ?? '') > Date.parse(stopAt))).toEqual([]);
    expect(r.violations).toEqual([]);
  }, 90_000);

  it('the execution is stopped while its look waits on a slow answer: a resume it sends after the guard is undone', async () => {
    const w = nextWeek();
    // Paused at Monday's 16:30 close; Tuesday's first look asks the stats at the opening and waits 8 s for them (the
    // client's limit is 10 s). The execution is stopped meanwhile and the guard pauses the (paused) campaign; then
    // the answer comes, and the look, running on as Lambda does after StopExecution, resumes the campaign.
    const opening = la(day(w, 1), '09:00:00');
    const stopAt = la(day(w, 1), '09:00:04');
    const r = await rehearse({
      ...halfHourLeft(w, 'stopped-mid-look', '+1415581'),
      faults: [
        { method: 'GET', path: '/campaigns/*/stats', delayMs: 8_000, from: opening, minutes: 5, count: 1 },
        // The guard's pause takes effect at once but its answer comes after the look's resume: the part must be
        // ended before the pause goes out, or the look would find it still running.
        { method: 'PATCH', path: '/campaigns/*/pause', delayMs: 6_000, from: opening, minutes: 5, count: 1 },
      ],
      during: stopping(stopAt),
    });
    expect(r.faulted.map((f) => f.method).sort()).toEqual(['GET', 'PATCH']);
    expect(r.executions[0]?.status).toBe('ABORTED');
    const record = await campaignStore().get(partKeyOfExecution(r.executions[0]?.name ?? ''));
    // The look resumed after the guard's pause, found the part ended, and paused again.
    const after = (record?.timeline ?? []).filter((t) => Date.parse(t.at) >= Date.parse(opening));
    expect(after.map((t) => t.event)).toEqual(['resume', 'pause']);
    expect(after[1]?.reason).toBe('the part ended while its last step was running');
    expect(record?.status).toBe('failed');
    expect(r.campaign?.status).toBe('paused');
    expect(r.violations).toEqual([]);
  }, 90_000);

  it('an operator pauses while the look at the opening waits on its stats: that look does not resume it', async () => {
    const w = nextWeek();
    // Paused at Monday's 16:30 close. Tuesday's first look reads the record (no wish yet), then waits 8 s for the
    // stats; meanwhile an operator asks for a pause, as `callsheet campaign pause` does (the record first). The
    // stats say paused (the window's pause), which alone would make the look resume it.
    const opening = la(day(w, 1), '09:00:00');
    const resumeAt = la(day(w, 1), '11:00:00');
    const control = new CampaignControl(campaignStore(), () => new Date(p.f.emu.core.clock.now()));
    const idOf = async (executions: () => LocalExecution[]) =>
      (await campaignStore().get(partKeyOfExecution(executions()[0]?.name ?? '')))?.campaignId as string;
    let later: Promise<void> | null = null;
    const r = await rehearse({
      ...halfHourLeft(w, 'paused-mid-look', '+1415591'),
      faults: [{ method: 'GET', path: '/campaigns/*/stats', delayMs: 8_000, from: opening, minutes: 5, count: 1 }],
      during: {
        at: la(day(w, 1), '09:00:04'),
        action: async (executions) => {
          const id = await idOf(executions);
          await control.request(id, 'pause');
          // The operator lets it go on at 11:00, so the part ends.
          later =
            p.stack.scheduler?.at(Date.parse(resumeAt), async () => void (await control.request(id, 'resume'))) ?? null;
        },
      },
    });
    await later;
    expect(r.faulted.map((f) => f.method)).toEqual(['GET']);
    const record = await campaignStore().get(partKeyOfExecution(r.executions[0]?.name ?? ''));
    const after = (record?.timeline ?? []).filter((t) => Date.parse(t.at) >= Date.parse(opening));
    // No resume at the opening: the pause became the operator's, and only their resume lets it dial again.
    expect(after.map((t) => `${t.event} (${t.reason})`).slice(0, 2)).toEqual(['pause (manual)', 'resume (manual)']);
    expect(Date.parse(after[1]?.at ?? '')).toBeGreaterThanOrEqual(Date.parse(resumeAt));
    const resumed = Date.parse(after[1]?.at ?? '');
    expect(
      r.calls.filter(
        (c) => Date.parse(c.started_at ?? '') >= Date.parse(opening) && Date.parse(c.started_at ?? '') < resumed,
      ),
    ).toEqual([]);
    expect(r.report?.status).toBe('completed');
    expect(r.violations).toEqual([]);
  }, 90_000);

  it('the execution is stopped as its create step starts: the part is ended first and nothing is created', async () => {
    const w = nextWeek();
    // The step was invoked before the stop (Lambda runs on); the guard ends the part before the step goes on.
    lambda.before = {
      action: 'createCampaign',
      name: 'stopped-at-create-',
      run: async (execution) => {
        p.stack.sfn.stop(execution, 'Operator', 'stopped from the console');
        // The status change reaches the guard a turn later, as EventBridge's event would.
        await new Promise((resolve) => setImmediate(resolve));
        await p.stack.guardIdle();
      },
    };
    const r = await rehearse({ name: 'stopped-at-create', at: beforeClose(w), prefix: '+1415583' });
    lambda.before = null;
    expect(r.executions[0]?.status).toBe('ABORTED');
    expect(r.campaign).toBeUndefined();
    expect(r.calls).toEqual([]);
    const record = await campaignStore().get(partKeyOfExecution(r.executions[0]?.name ?? ''));
    expect(record?.status).toBe('failed');
    expect(record?.failure?.message).toMatch(/before it created a campaign; nobody was called/);
    expect(record?.create).toBeUndefined();
  }, 90_000);

  it('the execution is stopped while the create answer is held: the campaign it made is paused', async () => {
    const w = nextWeek();
    const start = beforeClose(w);
    const heldUntil = Date.parse(start) + 8_000;
    const r = await rehearse({
      name: 'stopped-mid-create',
      at: start,
      prefix: '+1415584',
      // The create takes effect at once; its answer comes 8 s later, after the stop and the guard.
      faults: [{ method: 'POST', path: '/campaigns', delayMs: 8_000, from: start, minutes: 5, count: 1 }],
      during: stopping(new Date(Date.parse(start) + 4_000).toISOString()),
    });
    expect(r.faulted.map((f) => f.method)).toEqual(['POST']);
    expect(r.executions[0]?.status).toBe('ABORTED');
    const record = await campaignStore().get(partKeyOfExecution(r.executions[0]?.name ?? ''));
    // The guard found a create sent and no id (and braked the agent); the step recorded the id and paused it.
    expect(record?.status).toBe('failed');
    expect(record?.campaignId).toBe(r.campaign?.id);
    expect(record?.timeline?.at(-1)).toMatchObject({
      event: 'pause',
      reason: 'the part ended while its last step was running',
    });
    expect(r.campaign?.status).toBe('paused');
    expect(r.calls.filter((c) => Date.parse(c.started_at ?? '') > heldUntil)).toEqual([]);
    expect(r.violations).toEqual([]);
  }, 90_000);

  it('a wedged workflow that sleeps through the close is caught by the sweeper', async () => {
    const w = nextWeek();
    lambda.wedgeAfter = Date.parse(la(day(w), '16:00:00'));
    lambda.wedgeName = 'wedged-';
    const r = await rehearse({ name: 'wedged', at: beforeClose(w) });
    lambda.wedgeAfter = null;
    expect(r.violations).toEqual([]);
    const record = await campaignStore().get(partKeyOfExecution(r.executions[0]?.name ?? ''));
    // The sweeper, not the workflow, paused the campaign: its look was overdue, well before the margin began.
    expect(record?.secured).toMatchObject({ by: 'sweeper', outcome: 'paused' });
    expect(record?.secured?.reason).toContain('has not looked at it since');
    expect(Date.parse(record?.secured?.at ?? '')).toBeLessThan(Date.parse(la(day(w), '16:55:00')));
    expect(r.report?.status).toBe('completed');
  }, 90_000);
  it('a part started while every other part is quiet is still swept: its wedged workflow is caught', async () => {
    const w = nextWeek();
    // The first part is paused at its 16:30 close, quiet until Tuesday's look: a sweep then has nothing to check
    // before Tuesday. A second upload at 17:30, with an evening window, is wedged at its first look.
    const lateAt = la(day(w), '17:30:00');
    lambda.wedgeAfter = Date.parse(lateAt);
    lambda.wedgeName = 'late-';
    const lateAgent = await p.f.api.agents.create({ name: 'late' });
    const lateSheet = await xlsx(contactSheet(phones(numbers(200), '+1415580')));
    const r = await rehearse({
      ...halfHourLeft(w, 'early', '+1415582'),
      during: {
        at: lateAt,
        action: async () => {
          await p.stack.s3Client.send(
            new PutObjectCommand({
              Bucket: p.stack.bucket,
              Key: `incoming/${lateAgent.id}/late.xlsx`,
              Body: lateSheet,
              Metadata: { 'calling-window': 'daily 17:00-20:00' },
            }),
          );
        },
      },
    });
    lambda.wedgeAfter = null;
    expect(r.violations).toEqual([]);
    const late = [...p.stack.sfn.executions.values()].find((e) => e.name.startsWith('late-'));
    const record = await campaignStore().get(partKeyOfExecution(late?.name ?? ''));
    expect(record?.secured).toMatchObject({ by: 'sweeper', outcome: 'paused' });
    expect(Date.parse(record?.secured?.at ?? '')).toBeLessThan(Date.parse(la(day(w), '17:50:00')));
    const lateCalls = placedCalls(p, lateAgent.id);
    expect(lateCalls.length).toBeGreaterThan(0);
    expect(await auditCalls(lateCalls, { hours: 'Mon-Sun 17:00-20:00', closingMarginMinutes: 5 })).toEqual([]);
  }, 90_000);
  /** In the emulator's log: the campaign resumed at `resumeAt`, and its first pause after that answered by `by`. */
  async function expectPausedAgain(campaignId: string, resumeAt: string, by: number) {
    const log = await p.f.admin.requests<{ at: string; method: string; path: string; status: number }[]>();
    const resumed = log.findIndex((q) => q.method === 'PATCH' && q.path.endsWith(`/campaigns/${campaignId}/resume`));
    expect(log[resumed]?.at).toBe(resumeAt);
    const again = log
      .slice(resumed)
      .find((q) => q.method === 'PATCH' && q.path.endsWith(`/campaigns/${campaignId}/pause`));
    expect(again?.status).toBe(200);
    expect(Date.parse(again?.at ?? '')).toBeLessThanOrEqual(by);
  }

  it('a campaign resumed outside callsheet at night is caught by the sweeper and paused again', async () => {
    const w = nextWeek();
    // Paused at Monday's 16:30 close; at 18:02 someone resumes it straight through the API (the vendor's dashboard),
    // between two of the sweeper's five-minute rounds.
    const resumeAt = la(day(w), '18:02:00');
    let campaignId = '';
    const r = await rehearse({
      ...halfHourLeft(w, 'resumed-outside', '+1415583'),
      during: {
        at: resumeAt,
        action: async (executions) => {
          const record = await campaignStore().get(partKeyOfExecution(executions()[0]?.name ?? ''));
          campaignId = record?.campaignId ?? '';
          await p.f.api.campaigns.resume(campaignId);
        },
      },
    });
    expect(campaignId).not.toBe('');
    // The calls it placed at night: some, as the resume took effect, and none after the sweeper's next round.
    const night = r.calls.filter((c) => {
      const at = Date.parse(c.started_at ?? '');
      return at >= Date.parse(resumeAt) && at < Date.parse(la(day(w, 1), '09:00:00'));
    });
    expect(night.length).toBeGreaterThan(0);
    const sweptBy = Date.parse(la(day(w), '18:05:00'));
    expect(night.filter((c) => Date.parse(c.started_at ?? '') > sweptBy)).toEqual([]);
    await expectPausedAgain(campaignId, resumeAt, sweptBy);
    const record = await campaignStore().get(partKeyOfExecution(r.executions[0]?.name ?? ''));
    expect(record?.timeline?.find((t) => t.event === 'secured')?.reason ?? record?.secured?.reason).toContain(
      'outside callsheet',
    );
    // The workflow resumes it at Tuesday's opening and finishes the list.
    expect(r.report?.status).toBe('completed');
  }, 90_000);

  it('a cancelled part whose campaign is resumed outside callsheet is paused again by the sweeper', async () => {
    const w = nextWeek();
    // Cancelled at 16:05 (the workflow pauses it and ends the part); at 18:02 someone resumes the paused campaign in
    // the vendor's dashboard, and no workflow would pause it at any close again.
    const resumeAt = la(day(w), '18:02:00');
    const control = new CampaignControl(campaignStore(), () => new Date(p.f.emu.core.clock.now()));
    let campaignId = '';
    let later: Promise<void> | null = null;
    const r = await rehearse({
      ...halfHourLeft(w, 'resumed-after-cancel', '+1415584'),
      during: {
        at: la(day(w), '16:05:00'),
        action: async (executions) => {
          campaignId = (await campaignStore().get(partKeyOfExecution(executions()[0]?.name ?? '')))
            ?.campaignId as string;
          await control.request(campaignId, 'cancel');
          later =
            p.stack.scheduler?.at(Date.parse(resumeAt), async () => {
              await p.f.api.campaigns.resume(campaignId);
            }) ?? null;
        },
      },
    });
    await later;
    // Nothing of callsheet's runs any more: the clock is moved on past the sweeper's next rounds.
    await p.stack.scheduler?.at(Date.parse(la(day(w), '18:20:00')), async () => undefined);
    await settledRun(p);
    expect(r.report?.status).toBe('cancelled');
    const calls = placedCalls(p, r.agent.id);
    const night = calls.filter((c) => Date.parse(c.started_at ?? '') >= Date.parse(resumeAt));
    expect(night.length).toBeGreaterThan(0);
    const sweptBy = Date.parse(la(day(w), '18:05:00'));
    expect(night.filter((c) => Date.parse(c.started_at ?? '') > sweptBy)).toEqual([]);
    await expectPausedAgain(campaignId, resumeAt, sweptBy);
    const record = await campaignStore().get(partKeyOfExecution(r.executions[0]?.name ?? ''));
    expect(record?.status).toBe('cancelled');
    expect(record?.secured?.reason).toMatch(/after its part ended \(cancelled\): it was resumed outside callsheet/);
  }, 90_000);
});

describe('windows that are easy to get wrong', () => {
  it('numbers whose prefix spans zones are called only when legal in all of them (Kiribati: +12, +13, +14)', async () => {
    const w = nextWeek();
    const r = await rehearse({
      name: 'kiribati',
      at: `${day(w)}T08:00:00+14:00`,
      count: numbers(300),
      prefix: '+6867300',
    });
    expect(r.report?.window?.zones.sort()).toEqual(['Pacific/Kanton', 'Pacific/Kiritimati', 'Pacific/Tarawa']);
    expect(r.calls.length).toBeGreaterThanOrEqual(numbers(300));
    expect(r.violations).toEqual([]);
  }, 90_000);

  it('Chatham (+13:45 in summer) and Auckland (+13) numbers', async () => {
    for (const [name, prefix] of [
      ['chatham', '+643305'],
      ['auckland', '+649307'],
    ] as const) {
      const w = nextWeek();
      const r = await rehearse({ name, at: `${day(w)}T08:30:00+13:00`, count: numbers(300), prefix });
      expect(r.calls.length).toBeGreaterThanOrEqual(numbers(300));
      expect(r.violations).toEqual([]);
    }
  }, 90_000);

  it('Lord Howe Island numbers (half an hour off Sydney in winter) are called only when legal on the island too', async () => {
    // 2027-06-07 is a Monday in the austral winter: Lord Howe UTC+10:30, Sydney UTC+10. AU legal hours apply.
    let w = nextWeek();
    while (day(w) < '2027-06-07') w++;
    const r = await rehearse({
      name: 'lord-howe',
      at: `${day(w)}T19:00:00+10:00`,
      count: numbers(300),
      prefix: '+6126563',
      metadata: { 'calling-window': 'Mon-Fri 09:00-20:00' },
      rule: { hours: 'Mon-Fri 09:00-20:00', closingMarginMinutes: 5 },
    });
    expect(r.report?.window?.zones).toEqual(['Australia/Lord_Howe', 'Australia/Sydney']);
    expect(r.calls.length).toBeGreaterThanOrEqual(numbers(300));
    // The independent auditor knows only the data's zone (Sydney); the island's clock is checked here directly.
    expect(r.violations).toEqual([]);
    const island = new Intl.DateTimeFormat('en-GB', {
      timeZone: 'Australia/Lord_Howe',
      weekday: 'short',
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
    });
    const outside = r.calls
      .map((c) => island.format(Date.parse(c.started_at ?? '')))
      .filter((t) => {
        const [weekday, clock] = t.split(' ');
        return ['Sat', 'Sun'].includes(weekday ?? '') || (clock ?? '') < '09:00' || (clock ?? '') >= '19:55';
      });
    expect(outside).toEqual([]);
  }, 90_000);

  it('a declared holiday: nobody is called on it', async () => {
    const w = nextWeek();
    const holiday = day(w, 1);
    const r = await rehearse({
      name: 'holiday',
      at: beforeClose(w),
      count: numbers(1000),
      metadata: { holidays: holiday },
      rule: { ...RULE, holidays: [holiday] },
    });
    expect(r.violations).toEqual([]);
    expect(r.calls.some((c) => (c.started_at ?? '').startsWith(day(w, 2)))).toBe(true);
  }, 90_000);

  it('a window that never opens in the next 14 days: held, no campaign, nobody called', async () => {
    const w = nextWeek();
    const saturdays = [day(w, 5), day(w, 12), day(w, 19)];
    const r = await rehearse({
      name: 'never',
      at: beforeClose(w),
      metadata: { 'calling-window': 'Sat 10:00-12:00', holidays: saturdays.join(',') },
    });
    expect(r.report?.status).toBe('held');
    expect(r.report?.failure?.code).toBe('window_never_opens');
    expect(r.report?.campaignId).toBeNull();
    expect(r.calls).toEqual([]);
  }, 90_000);

  it('a window of five minutes a weekday: held as too short to call in, no campaign, nobody called', async () => {
    const w = nextWeek();
    const r = await rehearse({
      name: 'five-minutes',
      at: beforeClose(w),
      metadata: { 'calling-window': 'Mon-Fri 10:00-10:05' },
    });
    expect(r.report?.status).toBe('held');
    expect(r.report?.failure?.code).toBe('window_too_short');
    expect(r.report?.failure?.message).toMatch(
      /is open at most 5 min at a time, and no call may start in the last 7 min/,
    );
    expect(r.report?.campaignId).toBeNull();
    expect(r.calls).toEqual([]);
  }, 90_000);

  it('a window that opens 30 seconds after the upload: scheduled, nobody called before it', async () => {
    const w = nextWeek();
    const r = await rehearse({ name: 'first-minute', at: la(day(w), '08:59:30'), count: numbers(50) });
    const campaign = r.campaign as { start_date_time: number | null } | undefined;
    expect(campaign?.start_date_time).toBeTruthy();
    expect(r.violations).toEqual([]);
    expect(Math.min(...r.calls.map((c) => Date.parse(c.started_at ?? '')))).toBeGreaterThanOrEqual(
      Date.parse(la(day(w), '09:00:00')),
    );
  }, 90_000);

  it('an upload window beyond the legal hours is clipped to them', async () => {
    const w = nextWeek();
    const r = await rehearse({
      name: 'clipped',
      at: la(day(w), '06:00:00'),
      count: numbers(200),
      metadata: { 'calling-window': 'Mon-Fri 05:00-23:00' },
      rule: { hours: 'Mon-Fri 08:00-21:00', closingMarginMinutes: 5 },
    });
    expect(r.report?.window?.clipped).toBe(true);
    expect(r.violations).toEqual([]);
  }, 90_000);
});
