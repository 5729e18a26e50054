import { describe, expect, it } from 'vitest';
import { pollPlanOf } from '#commons/api-budget/poll-roll.ts';
import { DEFAULT_LIMITS } from '#commons/api-budget/shared-budget.ts';
import { parseWindowRules } from '#commons/calling-window.ts';
import type { CampaignPlan } from '#commons/campaign-plan.ts';
import { DEFAULT_LEGAL_HOURS } from '#commons/legal-hours.ts';
import type { CampaignStats } from '#commons/voice-api/types.ts';
import { type PartWindow, partWindow } from '#commons/window-plan.ts';
import {
  afterStep,
  checkedStats,
  type DecideSettings,
  decideReconcile,
  decideStep,
  type EffectResult,
  needsStats,
  type Observation,
  pauseToBook,
  quietOf,
} from '#lifecycle/decide-step.ts';
import { CARRY_SCHEMA, type ReconcilingCarry, type RunningCarry, upgradeCarry } from '#lifecycle/lifecycle-state.ts';
import { plannedBounds } from '#lifecycle/poll-interval.ts';

const MIN = 60_000;
const settings: DecideSettings = {
  closingMarginMs: 5 * MIN,
  pauseLeadMs: 2 * MIN,
  brakeLeadMs: 30_000,
  secureRetryMs: 20_000,
  poll: { minSeconds: 30, maxSeconds: 900 },
  continueAfterSteps: 1000,
};

function windowOf(spec: string | null, zones: string[], country: string, holidays: string[] = []): PartWindow {
  const plan = {
    part: { index: 1, of: 1, key: 'k', rows: 1, timeZone: zones[0], zones, country },
    window: { rules: spec ? parseWindowRules(spec) : null, holidays },
  } as unknown as CampaignPlan;
  const result = partWindow(plan, DEFAULT_LEGAL_HOURS, Date.parse('2026-12-01T00:00Z'));
  if (!result.ok) throw new Error(result.message);
  return result.window;
}

// Monday 2026-12-07 in New York (EST, UTC-5): the window is 09:00-17:00 there.
const NY = windowOf('Mon-Fri 09:00-17:00', ['America/New_York'], 'US');
const at = (local: string) => Date.parse(`${local}-05:00`);
const iso = (ms: number) => new Date(ms).toISOString();
/** Paused at Monday's close with a resume in doubt since 16:40, and braked for it at 16:53. */
const brakedInDoubt: Partial<RunningCarry> = {
  paused: 'window',
  resumeInDoubt: iso(at('2026-12-07T16:40')),
  brake: { since: iso(at('2026-12-07T16:53')) },
};
/** Braked at Monday's close while the pause answered 500: only the brake keeps the campaign from dialling. */
const brakeAlone = {
  paused: 'window',
  brake: { since: iso(at('2026-12-07T16:59')) },
  pauseFailedSince: iso(at('2026-12-07T16:59')),
} satisfies Partial<RunningCarry>;

function running(over: Partial<RunningCarry> = {}): RunningCarry {
  return {
    schema: CARRY_SCHEMA,
    phase: 'running',
    agentId: 'agt_1',
    window: NY,
    steps: 1,
    generation: 0,
    transitionsBefore: 0,
    campaignId: 'cmp_1',
    startsAt: '2026-12-07T14:00:00.000Z',
    paused: null,
    securingSince: null,
    brake: null,
    poll: null,
    stats: null,
    ...over,
  };
}

const stats = (status: string, pending = 500, inProgress = 5): CampaignStats =>
  ({ status, pending, in_progress: inProgress, completed: 100, failed: 0, total: 605 }) as CampaignStats;
const ok = (status: string, pending?: number, inProgress?: number): Observation['stats'] => ({
  kind: 'ok',
  stats: stats(status, pending, inProgress),
});
const unavailable: Observation['stats'] = { kind: 'unavailable', message: '500 injected' };

describe('decideStep: what a look at a running campaign does', () => {
  const table: {
    name: string;
    now: number;
    state?: Partial<RunningCarry>;
    seen: Observation;
    expected: ReturnType<typeof decideStep>;
  }[] = [
    {
      name: 'open window, dialling: keep watching',
      now: at('2026-12-07T11:00'),
      seen: { control: null, stats: ok('active') },
      expected: { kind: 'watch' },
    },
    {
      name: 'two minutes before the closing margin, dialling: secure, no brake yet',
      now: at('2026-12-07T16:53'),
      seen: { control: null, stats: ok('active') },
      expected: { kind: 'secure', reason: 'window', brakeOnFailure: false },
    },
    {
      name: 'within the brake lead of the margin, still dialling: secure, and brake if the pause fails',
      now: at('2026-12-07T16:54:40'),
      seen: { control: null, stats: ok('active') },
      expected: { kind: 'secure', reason: 'window', brakeOnFailure: true },
    },
    {
      name: 'closed window, paused, a resume in doubt: pause and brake (it could land after the pause)',
      now: at('2026-12-07T16:53'),
      state: { paused: 'window', resumeInDoubt: iso(at('2026-12-07T16:40')) },
      seen: { control: null, stats: ok('paused') },
      expected: { kind: 'secure', reason: 'window', brakeOnFailure: true, brakeAnyway: true },
    },
    {
      name: 'closed window, the in-doubt resume seen taken: pause and brake all the same',
      now: at('2026-12-07T18:00'),
      state: { resumeInDoubt: iso(at('2026-12-07T16:40')) },
      seen: { control: null, stats: ok('active') },
      expected: { kind: 'secure', reason: 'window', brakeOnFailure: true, brakeAnyway: true },
    },
    {
      name: 'a cancel with a resume in doubt: brake as well, though the campaign is paused (never finish and release)',
      now: at('2026-12-07T18:00'),
      state: brakedInDoubt,
      seen: { control: 'cancel', stats: ok('paused') },
      expected: { kind: 'secure', reason: 'cancel', brakeOnFailure: true, brakeAnyway: true },
    },
    {
      name: 'closed window, a resume in doubt, the brake already held: nothing more',
      now: at('2026-12-07T18:00'),
      state: brakedInDoubt,
      seen: { control: null, stats: ok('paused') },
      expected: { kind: 'watch' },
    },
    {
      name: 'open window, a resume in doubt: no brake while calls are allowed',
      now: at('2026-12-07T16:00'),
      state: { resumeInDoubt: iso(at('2026-12-07T15:40')) },
      seen: { control: null, stats: ok('active') },
      expected: { kind: 'watch' },
    },
    {
      name: 'closed window and the stats do not answer: pause blind',
      now: at('2026-12-07T18:00'),
      seen: { control: null, stats: unavailable },
      expected: { kind: 'secure', reason: 'window', brakeOnFailure: true },
    },
    {
      name: 'closed window, scheduled for the opening, not asked for want of budget: still scheduled, no pause',
      now: at('2026-12-07T08:30'),
      state: { stats: stats('scheduled', 605, 0) },
      seen: { control: null, stats: { ...unavailable, retryAt: at('2026-12-07T09:00') } },
      expected: { kind: 'watch' },
    },
    {
      name: 'closed window, scheduled, but the API failed (not the budget): pause blind',
      now: at('2026-12-07T08:30'),
      state: { stats: stats('scheduled', 605, 0) },
      seen: { control: null, stats: unavailable },
      expected: { kind: 'secure', reason: 'window', brakeOnFailure: true },
    },
    {
      name: 'closed window, last seen scheduled but its start has passed, not asked: pause blind',
      now: at('2026-12-07T18:00'),
      state: { stats: stats('scheduled', 605, 0) },
      seen: { control: null, stats: { ...unavailable, retryAt: at('2026-12-07T19:00') } },
      expected: { kind: 'secure', reason: 'window', brakeOnFailure: true },
    },
    {
      name: 'closed window, already paused: nothing to do',
      now: at('2026-12-07T18:00'),
      state: { paused: 'window' },
      seen: { control: null, stats: ok('paused') },
      expected: { kind: 'watch' },
    },
    {
      name: 'open window, paused by the window: resume',
      now: at('2026-12-08T09:00'),
      state: { paused: 'window' },
      seen: { control: null, stats: ok('paused') },
      expected: { kind: 'resume' },
    },
    {
      name: 'open window with the brake held: resume (the brake is released first)',
      now: at('2026-12-08T09:00'),
      state: { brake: { since: '2026-12-07T21:58:00Z' } },
      seen: { control: null, stats: ok('active') },
      expected: { kind: 'resume' },
    },
    {
      name: 'open window, stats unavailable: watch (no blind resume)',
      now: at('2026-12-08T10:00'),
      seen: { control: null, stats: unavailable },
      expected: { kind: 'watch' },
    },
    {
      name: 'manual pause in an open window: secure without the brake',
      now: at('2026-12-07T11:00'),
      seen: { control: 'pause', stats: ok('active') },
      expected: { kind: 'secure', reason: 'manual', brakeOnFailure: false },
    },
    {
      name: 'manual pause the operator already made (the CLI pauses at once): watch, and record it as theirs',
      now: at('2026-12-07T11:00'),
      seen: { control: 'pause', stats: ok('paused') },
      expected: { kind: 'watch', pausedByOperator: true },
    },
    {
      name: 'manual pause already recorded: watch',
      now: at('2026-12-07T11:00'),
      state: { paused: 'manual' },
      seen: { control: 'pause', stats: ok('paused') },
      expected: { kind: 'watch' },
    },
    {
      name: 'closed window, paused for it, and an operator asks for a pause: from here the pause is theirs',
      now: at('2026-12-07T20:00'),
      state: { paused: 'window' },
      seen: { control: 'pause', stats: ok('paused') },
      expected: { kind: 'watch', pausedByOperator: true },
    },
    {
      name: 'closed window, found paused without an operator: watch',
      now: at('2026-12-07T20:00'),
      seen: { control: null, stats: ok('paused') },
      expected: { kind: 'watch' },
    },
    {
      name: 'manual resume never opens a closed window',
      now: at('2026-12-07T20:00'),
      state: { paused: 'window' },
      seen: { control: 'resume', stats: ok('paused') },
      expected: { kind: 'watch' },
    },
    {
      name: 'cancel while dialling: secure first',
      now: at('2026-12-07T11:00'),
      seen: { control: 'cancel', stats: ok('active') },
      expected: { kind: 'secure', reason: 'cancel', brakeOnFailure: false },
    },
    {
      name: 'cancel once paused: finish cancelled',
      now: at('2026-12-07T11:00'),
      seen: { control: 'cancel', stats: ok('paused') },
      expected: { kind: 'finish', outcome: 'cancelled' },
    },
    {
      name: 'the campaign was deleted: fail with the reason',
      now: at('2026-12-07T11:00'),
      seen: { control: null, stats: { kind: 'gone' } },
      expected: {
        kind: 'fail',
        failure: { code: 'campaign_deleted', message: 'campaign cmp_1 no longer exists in the Voice API' },
      },
    },
    {
      name: 'nobody left to call: finish',
      now: at('2026-12-07T11:00'),
      seen: { control: null, stats: ok('active', 0, 0) },
      expected: { kind: 'finish', outcome: 'completed' },
    },
    {
      name: "closed window, last seen dialling (so not asked), a brake held and an earlier night's pauseFailedSince: pause",
      now: at('2026-12-07T16:56'),
      state: {
        stats: stats('active'),
        brake: { since: iso(at('2026-12-07T16:55')) },
        pauseFailedSince: iso(at('2026-12-04T16:59')),
      },
      seen: {
        control: null,
        stats: { kind: 'unavailable', message: 'not asked at the close: the campaign is paused first' },
      },
      expected: { kind: 'secure', reason: 'window', brakeOnFailure: true },
    },
    {
      name: 'scheduled, window closed: it starts by itself at the opening chosen at create time',
      now: at('2026-12-07T07:00'),
      seen: { control: null, stats: ok('scheduled', 605, 0) },
      expected: { kind: 'watch' },
    },
    {
      name: 'an operator pause while scheduled, two hours before the start: nothing yet (the API pauses no scheduled one)',
      now: at('2026-12-07T07:00'),
      seen: { control: 'pause', stats: ok('scheduled', 605, 0) },
      expected: { kind: 'watch' },
    },
    {
      name: 'an operator pause while scheduled, within the pause lead of the start: the brake, before it dials',
      now: at('2026-12-07T08:58'),
      seen: { control: 'pause', stats: ok('scheduled', 605, 0) },
      expected: { kind: 'secure', reason: 'manual', brakeOnFailure: true, forStart: true },
    },
    {
      name: 'an operator pause, the start passed and the API still says scheduled: the brake',
      now: at('2026-12-07T09:00:10'),
      seen: { control: 'pause', stats: ok('scheduled', 605, 0) },
      expected: { kind: 'secure', reason: 'manual', brakeOnFailure: true, forStart: true },
    },
    {
      name: 'an operator pause, braked for the start, still scheduled: wait for it to start',
      now: at('2026-12-07T08:59'),
      state: { paused: 'manual', brake: { since: iso(at('2026-12-07T08:58')), forStart: true } },
      seen: { control: 'pause', stats: ok('scheduled', 605, 0) },
      expected: { kind: 'watch' },
    },
    {
      name: 'an operator pause, braked for the start, now started: pause it',
      now: at('2026-12-07T09:00:30'),
      state: { paused: 'manual', brake: { since: iso(at('2026-12-07T08:58')), forStart: true } },
      seen: { control: 'pause', stats: ok('active', 605, 0) },
      expected: { kind: 'secure', reason: 'manual', brakeOnFailure: false },
    },
  ];
  for (const row of table)
    it(row.name, () => {
      expect(decideStep(running(row.state), row.seen, row.now, settings)).toEqual(row.expected);
    });
});

describe('checkedStats: a stats answer without its counts is no answer', () => {
  const stats = (extra: Record<string, unknown>) =>
    ({ kind: 'ok', stats: { campaign_id: 'c', status: 'active', ...extra } }) as const;
  it.each([
    ['both counts', { pending: 0, in_progress: 0 }, true],
    ['counts with more', { pending: 3, in_progress: 1, completed: 5 }, true],
    ['null counts (null + null is 0)', { pending: null, in_progress: null }, false],
    ['no counts', {}, false],
    ['one count', { pending: 0 }, false],
    ['counts as text', { pending: '0', in_progress: '0' }, false],
    ['a negative count', { pending: -1, in_progress: 1 }, false],
    ['a fraction', { pending: 0.5, in_progress: 0 }, false],
  ])('%s: read %s', (_, extra, read) => {
    const seen = stats(extra) as unknown as Parameters<typeof checkedStats>[0];
    const checked = checkedStats(seen);
    if (read) expect(checked).toBe(seen);
    else
      expect(checked).toEqual({
        kind: 'unavailable',
        message: expect.stringMatching(/^the stats answer carried no pending and in_progress counts: \{/),
      });
  });

  it('a campaign whose stats come back without counts is never finished on them: dialling at the close, it is paused', () => {
    const seen = checkedStats({
      kind: 'ok',
      stats: { campaign_id: 'c', status: 'active', pending: null, in_progress: null } as never,
    });
    expect(decideStep(running(), { control: null, stats: seen }, at('2026-12-07T11:00'), settings).kind).not.toBe(
      'finish',
    );
    expect(decideStep(running(), { control: null, stats: seen }, at('2026-12-07T16:53'), settings)).toMatchObject({
      kind: 'secure',
    });
  });
  it('passes gone and unavailable through', () => {
    expect(checkedStats({ kind: 'gone' })).toEqual({ kind: 'gone' });
    expect(checkedStats({ kind: 'unavailable', message: 'x' })).toEqual({ kind: 'unavailable', message: 'x' });
  });
});

describe('afterStep: when to look again', () => {
  const table: {
    name: string;
    now: number;
    state?: Partial<RunningCarry>;
    seen: Observation;
    effect: EffectResult;
    expect: (next: ReturnType<typeof afterStep>) => void;
  }[] = [
    {
      name: 'dialling: the next look is never after the pause lead before the margin',
      now: at('2026-12-07T16:52:30'),
      seen: { control: null, stats: ok('active') },
      effect: { kind: 'none' },
      expect: (next) => expect(next.wakeAt).toBe(iso(at('2026-12-07T16:53'))),
    },
    {
      name: 'an unconfirmed pause is tried again in seconds and remembered',
      now: at('2026-12-07T16:53'),
      seen: { control: null, stats: ok('active') },
      effect: { kind: 'unconfirmed', message: '500' },
      expect: (next) => {
        expect(next).toMatchObject({ phase: 'running', paused: null, securingSince: iso(at('2026-12-07T16:53')) });
        expect(next.wakeAt).toBe(iso(at('2026-12-07T16:53') + 20_000));
      },
    },
    {
      name: 'a confirmed pause sleeps until the next opening',
      now: at('2026-12-07T16:53'),
      seen: { control: null, stats: ok('active') },
      effect: { kind: 'secured', how: 'paused' },
      expect: (next) => {
        expect(next).toMatchObject({ paused: 'window', securingSince: null });
        expect(next.wakeAt).toBe(iso(at('2026-12-08T09:00')));
      },
    },
    {
      name: 'found paused as an operator asked: the pause is theirs, so the opening does not resume it',
      now: at('2026-12-07T11:00'),
      seen: { control: 'pause', stats: ok('paused') },
      effect: { kind: 'none' },
      expect: (next) => expect(next).toMatchObject({ phase: 'running', paused: 'manual', securingSince: null }),
    },
    {
      name: "a closed window's pause becomes the operator's when they ask for one",
      now: at('2026-12-07T20:00'),
      state: { paused: 'window' },
      seen: { control: 'pause', stats: ok('paused') },
      effect: { kind: 'none' },
      expect: (next) => expect(next).toMatchObject({ paused: 'manual' }),
    },
    {
      name: 'a brake over a paused campaign keeps its holder until the opening',
      now: at('2026-12-07T16:59'),
      seen: { control: null, stats: unavailable },
      effect: { kind: 'secured', how: 'braked', pauseHeld: true },
      expect: (next) => {
        expect(next).toMatchObject({ paused: 'window', brake: { since: iso(at('2026-12-07T16:59')) } });
        expect(next).not.toHaveProperty('pauseFailedSince');
        expect(next.wakeAt).toBe(iso(at('2026-12-08T09:00')));
      },
    },
    {
      name: 'a brake alone (the pause did not hold): the pause is tried again in five minutes, not at the opening',
      now: at('2026-12-07T16:59'),
      seen: { control: null, stats: unavailable },
      effect: { kind: 'secured', how: 'braked', pauseHeld: false },
      expect: (next) => {
        expect(next).toMatchObject({
          paused: 'window',
          brake: { since: iso(at('2026-12-07T16:59')) },
          pauseFailedSince: iso(at('2026-12-07T16:59')),
        });
        expect(next.wakeAt).toBe(iso(at('2026-12-07T17:04')));
      },
    },
    {
      name: 'held by the brake alone, the stats unavailable: nothing sent, looked at again in five minutes',
      now: at('2026-12-07T17:04'),
      state: brakeAlone,
      seen: { control: null, stats: unavailable },
      effect: { kind: 'none' },
      expect: (next) => {
        expect(next).toMatchObject({ pauseFailedSince: iso(at('2026-12-07T16:59')), brake: brakeAlone.brake });
        expect(next.wakeAt).toBe(iso(at('2026-12-07T17:09')));
      },
    },
    {
      name: 'held by the brake alone, seen active: paused again, and once it holds the part sleeps to the opening',
      now: at('2026-12-07T17:44'),
      state: brakeAlone,
      seen: { control: null, stats: ok('active') },
      effect: { kind: 'secured', how: 'paused' },
      expect: (next) => {
        expect(next).not.toHaveProperty('pauseFailedSince');
        expect(next).toMatchObject({ paused: 'window', brake: brakeAlone.brake });
        expect(next.wakeAt).toBe(iso(at('2026-12-08T09:00')));
      },
    },
    {
      name: 'held by the brake alone, seen active, the pause failing still: the brake checked, tried again',
      now: at('2026-12-07T17:09'),
      state: brakeAlone,
      seen: { control: null, stats: ok('active') },
      effect: { kind: 'secured', how: 'braked', pauseHeld: false },
      expect: (next) => {
        expect(next).toMatchObject({ pauseFailedSince: iso(at('2026-12-07T16:59')), brake: brakeAlone.brake });
        expect(next.wakeAt).toBe(iso(at('2026-12-07T17:14')));
      },
    },
    {
      name: 'held by the brake alone, seen paused (a pause that landed late): sleeps to the opening',
      now: at('2026-12-07T17:09'),
      state: brakeAlone,
      seen: { control: null, stats: ok('paused') },
      effect: { kind: 'none' },
      expect: (next) => {
        expect(next).not.toHaveProperty('pauseFailedSince');
        expect(next.wakeAt).toBe(iso(at('2026-12-08T09:00')));
      },
    },
    {
      name: 'stats unavailable in an open window: look again soon, before the close',
      now: at('2026-12-07T16:52'),
      seen: { control: null, stats: unavailable },
      effect: { kind: 'none' },
      expect: (next) => expect(next.wakeAt).toBe(iso(at('2026-12-07T16:53'))),
    },
    {
      name: 'stats refused for want of budget until the next hour: look again then, not before',
      now: at('2026-12-07T10:20'),
      seen: { control: null, stats: { ...unavailable, retryAt: at('2026-12-07T11:00') } },
      effect: { kind: 'none' },
      expect: (next) => expect(next.wakeAt).toBe(iso(at('2026-12-07T11:00'))),
    },
    {
      name: 'stats refused for want of budget past the close: still awake at the pause point',
      now: at('2026-12-07T16:40'),
      seen: { control: null, stats: { ...unavailable, retryAt: at('2026-12-07T17:00') } },
      effect: { kind: 'none' },
      expect: (next) => expect(next.wakeAt).toBe(iso(at('2026-12-07T16:53'))),
    },
    {
      name: 'a paused campaign seen paused confirms an unanswered pause',
      now: at('2026-12-07T17:10'),
      state: { securingSince: iso(at('2026-12-07T16:55')) },
      seen: { control: null, stats: ok('paused') },
      effect: { kind: 'none' },
      expect: (next) => expect(next).toMatchObject({ paused: 'window', securingSince: null }),
    },
    {
      name: 'a failed resume is tried again in seconds',
      now: at('2026-12-08T09:00'),
      state: { paused: 'window' },
      seen: { control: null, stats: ok('paused') },
      effect: { kind: 'resume_failed', message: '409', inDoubt: false, brakeReleased: false },
      expect: (next) => {
        expect(next).toMatchObject({ paused: 'window' });
        expect(next).not.toHaveProperty('resumeInDoubt');
        expect(next.wakeAt).toBe(iso(at('2026-12-08T09:00') + 20_000));
      },
    },
    {
      name: 'a resume whose answer was lost is in doubt from then on, and tried again in seconds',
      now: at('2026-12-08T09:00'),
      state: { paused: 'window' },
      seen: { control: null, stats: ok('paused') },
      effect: { kind: 'resume_failed', message: 'timed out', inDoubt: true, brakeReleased: false },
      expect: (next) => {
        expect(next).toMatchObject({ paused: 'window', resumeInDoubt: iso(at('2026-12-08T09:00')) });
        expect(next.wakeAt).toBe(iso(at('2026-12-08T09:00') + 20_000));
      },
    },
    {
      name: 'a resume lost after the brake was let go: the part holds no brake any more, and the doubt is new',
      now: at('2026-12-08T09:00'),
      state: { paused: 'window', brake: { since: iso(at('2026-12-07T16:53')) } },
      seen: { control: null, stats: ok('paused') },
      effect: { kind: 'resume_failed', message: 'timed out', inDoubt: true, brakeReleased: true },
      expect: (next) => expect(next).toMatchObject({ brake: null, resumeInDoubt: iso(at('2026-12-08T09:00')) }),
    },
    {
      name: 'a brake that could not be let go is still held',
      now: at('2026-12-08T09:00'),
      state: { paused: 'window', brake: { since: iso(at('2026-12-07T16:53')) } },
      seen: { control: null, stats: ok('paused') },
      effect: { kind: 'resume_failed', message: 'toggle failed', inDoubt: false, brakeReleased: false },
      expect: (next) => expect(next).toMatchObject({ brake: { since: iso(at('2026-12-07T16:53')) } }),
    },
    {
      name: "a second lost resume keeps the first one's time",
      now: at('2026-12-08T09:01'),
      state: { paused: 'window', resumeInDoubt: iso(at('2026-12-08T09:00')) },
      seen: { control: null, stats: ok('paused') },
      effect: { kind: 'resume_failed', message: 'timed out', inDoubt: true, brakeReleased: false },
      expect: (next) => expect(next).toMatchObject({ resumeInDoubt: iso(at('2026-12-08T09:00')) }),
    },
    {
      name: 'a later resume that is answered leaves the doubt for the close',
      now: at('2026-12-08T09:01'),
      state: { paused: 'window', resumeInDoubt: iso(at('2026-12-08T09:00')) },
      seen: { control: null, stats: ok('paused') },
      effect: { kind: 'resumed' },
      expect: (next) => expect(next).toMatchObject({ paused: null, resumeInDoubt: iso(at('2026-12-08T09:00')) }),
    },
    {
      name: 'the close braked for a resume in doubt: the doubt stays with the brake until the opening',
      now: at('2026-12-07T16:53'),
      state: { paused: 'window', resumeInDoubt: iso(at('2026-12-07T16:40')) },
      seen: { control: null, stats: ok('paused') },
      effect: { kind: 'secured', how: 'braked', pauseHeld: true },
      expect: (next) => {
        expect(next).toMatchObject({
          paused: 'window',
          brake: { since: iso(at('2026-12-07T16:53')), forDoubt: true },
          resumeInDoubt: iso(at('2026-12-07T16:40')),
        });
        expect(next.wakeAt).toBe(iso(at('2026-12-08T09:00')));
      },
    },
    {
      name: 'the opening lets the brake go and resumes: the doubt ends there',
      now: at('2026-12-08T09:00'),
      state: { ...brakedInDoubt, brake: { since: iso(at('2026-12-07T16:53')), forDoubt: true } },
      seen: { control: null, stats: ok('paused') },
      effect: { kind: 'resumed' },
      expect: (next) => {
        expect(next).not.toHaveProperty('resumeInDoubt');
        expect(next).toMatchObject({ paused: null, brake: null });
      },
    },
    {
      name: 'a brake the sweeper pulled in the open window, let go: the doubt stays for the close',
      now: at('2026-12-08T11:00'),
      state: { resumeInDoubt: iso(at('2026-12-08T09:00')), brake: { since: iso(at('2026-12-08T10:40')) } },
      seen: { control: null, stats: ok('paused') },
      effect: { kind: 'resumed' },
      expect: (next) => expect(next).toMatchObject({ brake: null, resumeInDoubt: iso(at('2026-12-08T09:00')) }),
    },
    {
      name: 'the close could not brake for a resume in doubt: tried again in seconds, the doubt kept',
      now: at('2026-12-07T16:53'),
      state: { paused: 'window', resumeInDoubt: iso(at('2026-12-07T16:40')) },
      seen: { control: null, stats: ok('paused') },
      effect: { kind: 'unconfirmed', message: 'the agent is still active' },
      expect: (next) => {
        expect(next).toMatchObject({ brake: null, resumeInDoubt: iso(at('2026-12-07T16:40')) });
        expect(next.wakeAt).toBe(iso(at('2026-12-07T16:53') + 20_000));
      },
    },
    {
      name: 'a resume that fails after the brake was let go: the part is no longer held by the brake alone',
      now: at('2026-12-08T09:00'),
      state: brakeAlone,
      seen: { control: null, stats: ok('paused') },
      effect: { kind: 'resume_failed', message: '500', inDoubt: false, brakeReleased: true },
      expect: (next) => {
        expect(next).toMatchObject({ brake: null });
        expect(next).not.toHaveProperty('pauseFailedSince');
      },
    },
    {
      name: 'a cancel with a resume in doubt ends the part braked',
      now: at('2026-12-07T18:00'),
      state: brakedInDoubt,
      seen: { control: 'cancel', stats: ok('paused') },
      effect: { kind: 'secured', how: 'braked', pauseHeld: true },
      expect: (next) => expect(next).toMatchObject({ phase: 'ended', outcome: 'cancelled', next: 'finish' }),
    },
    {
      name: 'an operator pause while scheduled: looked at again the pause lead before the start, to brake',
      now: at('2026-12-07T07:00'),
      seen: { control: 'pause', stats: ok('scheduled', 605, 0) },
      effect: { kind: 'none' },
      expect: (next) => expect(next.wakeAt).toBe(iso(at('2026-12-07T08:58'))),
    },
    {
      name: 'braked for the start: the brake is remembered as such, the next look at the start',
      now: at('2026-12-07T08:58'),
      seen: { control: 'pause', stats: ok('scheduled', 605, 0) },
      effect: { kind: 'secured', how: 'braked', pauseHeld: false },
      expect: (next) => {
        expect(next).toMatchObject({ paused: 'manual', brake: { since: iso(at('2026-12-07T08:58')), forStart: true } });
        expect(next.wakeAt).toBe(iso(at('2026-12-07T09:00')));
      },
    },
    {
      name: 'paused once started, the brake for the start let go: no brake in the carry',
      now: at('2026-12-07T09:00:30'),
      state: { paused: 'manual', brake: { since: iso(at('2026-12-07T08:58')), forStart: true } },
      seen: { control: 'pause', stats: ok('active', 605, 0) },
      effect: { kind: 'secured', how: 'paused', brakeReleased: true },
      expect: (next) => expect(next).toMatchObject({ phase: 'running', paused: 'manual', brake: null }),
    },
  ];
  for (const row of table)
    it(row.name, () => {
      const state = running(row.state);
      const decision = decideStep(state, row.seen, row.now, settings);
      row.expect(afterStep(state, row.seen, decision, row.effect, row.now, settings));
    });

  it('a window that never opens again after it was secured ends the part, campaign left paused', () => {
    // One date only: once Monday is over, nothing opens within the horizon.
    const w = windowOf('Mon 09:00-17:00', ['America/New_York'], 'US', [
      ...Array.from({ length: 60 }, (_, i) => new Date(Date.UTC(2026, 11, 8 + i)).toISOString().slice(0, 10)),
    ]);
    const state = running({ window: w });
    const now = at('2026-12-07T16:53');
    const seen: Observation = { control: null, stats: ok('active') };
    const next = afterStep(
      state,
      seen,
      decideStep(state, seen, now, settings),
      { kind: 'secured', how: 'paused' },
      now,
      settings,
    );
    expect(next).toMatchObject({ phase: 'ended', next: 'fail', failure: { code: 'window_never_opens' } });
  });

  it('continues as new after the configured number of looks', () => {
    const state = running({ steps: 1000 });
    const now = at('2026-12-07T11:00');
    const seen: Observation = { control: null, stats: ok('active') };
    expect(afterStep(state, seen, { kind: 'watch' }, { kind: 'none' }, now, settings).next).toBe('continue');
  });
});

describe('polls across parts: one API plan shared by every running part', () => {
  const plan = pollPlanOf(DEFAULT_LIMITS);
  const planned: DecideSettings = { ...settings, pollPlan: plan };

  it('plans half of what the plan leaves after the safety and lifecycle reserves', () => {
    expect(plan).toEqual({ perMinute: 45, perHour: 375 });
    const small = { ...DEFAULT_LIMITS, perMinute: 10, perHour: 0, lifecycleReserve: { perMinute: 2, perHour: 0 } };
    expect(pollPlanOf({ ...small, safetyReserve: { perMinute: 2, perHour: 0 } })).toEqual({ perMinute: 3, perHour: 0 });
  });

  it.each([
    { pollers: 0, plan: plan, expected: { minSeconds: 30, maxSeconds: 900 } },
    { pollers: 1, plan: plan, expected: { minSeconds: 30, maxSeconds: 900 } },
    { pollers: 10, plan: plan, expected: { minSeconds: 96, maxSeconds: 900 } },
    { pollers: 100, plan: plan, expected: { minSeconds: 960, maxSeconds: 960 } },
    { pollers: 100, plan: null, expected: { minSeconds: 30, maxSeconds: 900 } },
    { pollers: 100, plan: { perMinute: 45, perHour: 0 }, expected: { minSeconds: 134, maxSeconds: 900 } },
  ])('$pollers parts on plan $plan poll within $expected', ({ pollers, plan, expected }) => {
    expect(plannedBounds({ minSeconds: 30, maxSeconds: 900 }, pollers, plan)).toEqual(expected);
  });

  const table: { name: string; now: number; pollers?: number; state?: Partial<RunningCarry>; wake: string }[] = [
    {
      name: 'alone on the plan: the first look after a minute',
      now: at('2026-12-07T10:00'),
      pollers: 1,
      wake: '2026-12-07T10:01',
    },
    { name: 'one of 100 parts: every 16 minutes', now: at('2026-12-07T10:00'), pollers: 100, wake: '2026-12-07T10:16' },
    {
      name: 'one of 100 parts, near the close: at the pause point',
      now: at('2026-12-07T16:40'),
      pollers: 100,
      wake: '2026-12-07T16:53',
    },
    {
      name: 'one of 100 parts, paused by hand in an open window: every 16 minutes',
      now: at('2026-12-07T10:00'),
      pollers: 100,
      state: { paused: 'manual' },
      wake: '2026-12-07T10:16',
    },
    {
      name: 'a look that did not poll (no roll): as the bounds say',
      now: at('2026-12-07T10:00'),
      wake: '2026-12-07T10:01',
    },
  ];
  for (const row of table)
    it(row.name, () => {
      const state = running(row.state);
      const status = row.state?.paused ? 'paused' : 'active';
      const seen: Observation = {
        control: row.state?.paused ? 'pause' : null,
        stats: ok(status),
        ...(row.pollers !== undefined ? { pollers: row.pollers } : {}),
      };
      const decision = decideStep(state, seen, row.now, planned);
      expect(afterStep(state, seen, decision, { kind: 'none' }, row.now, planned).wakeAt).toBe(iso(at(row.wake)));
    });

  it.each([
    { name: 'dialling, before the pause point', now: '2026-12-07T16:52:59', state: {}, asks: true },
    { name: 'dialling, at the pause point', now: '2026-12-07T16:53', state: {}, asks: false },
    { name: 'dialling, after the close', now: '2026-12-07T18:00', state: {}, asks: false },
    { name: 'paused, at the pause point', now: '2026-12-07T16:53', state: { paused: 'window' as const }, asks: true },
    { name: 'last seen scheduled', now: '2026-12-07T16:53', state: { status: 'scheduled' }, asks: true },
    { name: 'never seen', now: '2026-12-07T16:53', state: { status: null }, asks: true },
  ])('stats asked at each look: $name → $asks', ({ now, state, asks }) => {
    const { status = 'active', ...rest } = state as { status?: string | null; paused?: 'window' };
    const carry = running({ ...rest, stats: status === null ? null : stats(status) });
    expect(needsStats(carry, at(now), settings)).toBe(asks);
  });

  it.each([
    { name: 'dialling, an hour before the pause point', now: '2026-12-07T15:53', state: {}, book: '2026-12-07T16:53' },
    { name: 'dialling, 61 minutes before it', now: '2026-12-07T15:52', state: {}, book: null },
    { name: 'dialling, at it (the window is closing)', now: '2026-12-07T16:53', state: {}, book: null },
    { name: 'paused by hand', now: '2026-12-07T16:40', state: { paused: 'manual' as const }, book: null },
    { name: 'scheduled, not dialling', now: '2026-12-07T16:40', state: { status: 'scheduled' }, book: null },
  ])('the pause booked with the budget: $name → $book', ({ now, state, book }) => {
    const { status = 'active', ...rest } = state as { status?: string; paused?: 'manual' };
    const carry = running({ ...rest, stats: stats(status) });
    expect(pauseToBook(carry, at(now), settings)).toBe(book === null ? null : at(book));
  });

  it('a dialling campaign not asked at the close is paused, and sleeps until the opening once paused', () => {
    const state = running({ stats: stats('active') });
    const seen: Observation = { control: null, stats: { kind: 'unavailable', message: 'not asked at the close' } };
    const now = at('2026-12-07T16:53');
    const decision = decideStep(state, seen, now, planned);
    expect(decision).toEqual({ kind: 'secure', reason: 'window', brakeOnFailure: false });
    const next = afterStep(state, seen, decision, { kind: 'secured', how: 'paused' }, now, planned);
    expect(next).toMatchObject({ paused: 'window', wakeAt: iso(at('2026-12-08T09:00')) });
  });
});

describe('decideReconcile: a create whose answer was lost', () => {
  const reconciling = (over: Partial<ReconcilingCarry> = {}): ReconcilingCarry => ({
    schema: CARRY_SCHEMA,
    phase: 'reconciling',
    agentId: 'agt_1',
    window: NY,
    steps: 1,
    generation: 0,
    transitionsBefore: 0,
    startsAt: '2026-12-07T14:00:00.000Z',
    reconcileUntil: '2026-12-07T14:30:00.000Z',
    brake: null,
    ...over,
  });
  it.each([
    ['found by its calls', at('2026-12-07T09:10'), {}, 'cmp_9', { kind: 'found', campaignId: 'cmp_9' }],
    [
      'not found, window closing: brake the agent',
      at('2026-12-07T16:56'),
      { reconcileUntil: '2026-12-08T00:00:00Z' },
      null,
      { kind: 'brake' },
    ],
    [
      'not found, braked, window open again: release',
      at('2026-12-08T09:00'),
      { brake: { since: 'x' }, reconcileUntil: '2026-12-09T00:00:00Z' },
      null,
      { kind: 'release' },
    ],
    ['not found in time: give up', at('2026-12-07T09:31'), {}, null, { kind: 'give_up' }],
  ] as const)('%s', (_name, now, over, found, expected) => {
    expect(decideReconcile(reconciling(over), found, now, settings)).toEqual(expected);
  });

  it('looks again within two minutes, never after the pause lead before the margin', () => {
    const d = decideReconcile(
      reconciling({ reconcileUntil: '2026-12-08T00:00:00Z' }),
      null,
      at('2026-12-07T16:52'),
      settings,
    );
    expect(d).toEqual({ kind: 'look_again', wakeAt: at('2026-12-07T16:53') });
  });
});

describe('quietOf: whether a look leaves the campaign confirmed not dialling, and until when', () => {
  const STARTS = '2026-12-07T14:00:00.000Z';
  const reconcilingCarry = (brake: ReconcilingCarry['brake']): ReconcilingCarry => ({
    ...(running() as unknown as ReconcilingCarry),
    phase: 'reconciling',
    reconcileUntil: '2026-12-07T14:30:00.000Z',
    brake,
  });
  it.each([
    ['dialling', running({ stats: stats('active') }), { quiet: false }],
    ['paused for the window', running({ paused: 'window', stats: stats('paused') }), { quiet: true }],
    ['paused, its pause still being secured', running({ paused: 'window', securingSince: STARTS }), { quiet: false }],
    ['scheduled: quiet until its start', running({ stats: stats('scheduled') }), { quiet: true, quietUntil: STARTS }],
    [
      'counted paused while the API says scheduled: quiet until its start',
      running({ paused: 'manual', stats: stats('scheduled') }),
      { quiet: true, quietUntil: STARTS },
    ],
    ['scheduled, its agent braked', running({ stats: stats('scheduled'), brake: { since: STARTS } }), { quiet: true }],
    ['a resume in doubt, no brake', running({ paused: 'window', resumeInDoubt: STARTS }), { quiet: false }],
    ['a resume in doubt, braked', running(brakedInDoubt), { quiet: true }],
    ['reconciling, braked', reconcilingCarry({ since: STARTS }), { quiet: true }],
    ['reconciling, no brake', reconcilingCarry(null), { quiet: false }],
  ] as const)('%s', (_name, carry, expected) => {
    expect(quietOf(carry as RunningCarry | ReconcilingCarry)).toEqual(expected);
  });
});

describe('upgradeCarry: a continuation started by the previous version', () => {
  it('reads a schema-1 running carry and asks for its window to be rebuilt', () => {
    const v1 = {
      phase: 'running',
      next: 'continue',
      agentId: 'agt_1',
      campaignId: 'cmp_1',
      window: { rules: [], holidays: [], timeZone: 'America/New_York', source: 'upload', description: 'x' },
      startsAt: '2026-12-07T14:00:00.000Z',
      paused: 'window',
      steps: 0,
      generation: 3,
      transitionsBefore: 9000,
    };
    const { carry, windowStale } = upgradeCarry(v1);
    expect(windowStale).toBe(true);
    expect(carry).toMatchObject({
      schema: CARRY_SCHEMA,
      phase: 'running',
      campaignId: 'cmp_1',
      paused: 'window',
      generation: 3,
      transitionsBefore: 9000,
      brake: null,
      securingSince: null,
    });
  });

  it('keeps a current carry as it is', () => {
    const state = running();
    expect(upgradeCarry(state)).toEqual({ carry: state, windowStale: false });
  });
});

describe('windows of zone-spanning parts (intersection over zones)', () => {
  it('opens only where every candidate zone is within its hours', () => {
    // 09:00-17:00 in New York and in Los Angeles: both open only from 12:00 to 17:00 New York time.
    const w = windowOf('Mon-Fri 09:00-17:00', ['America/New_York', 'America/Los_Angeles'], 'US');
    const state = running({ window: w });
    expect(decideStep(state, { control: null, stats: ok('active') }, at('2026-12-07T10:00'), settings)).toMatchObject({
      kind: 'secure',
    });
    expect(decideStep(state, { control: null, stats: ok('active') }, at('2026-12-07T12:30'), settings)).toEqual({
      kind: 'watch',
    });
  });
});
