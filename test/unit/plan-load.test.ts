import { describe, expect, it } from 'vitest';
import { readBudgetConfig } from '#commons/api-budget/config.ts';
import { pollPlanOf } from '#commons/api-budget/poll-roll.ts';
import { DEFAULT_LIMITS } from '#commons/api-budget/shared-budget.ts';
import { EnvReader } from '#commons/config.ts';
import { type PartStretch, type PauseTimings, planLoad, readPauseTimings } from '#commons/plan-load.ts';

const at = (s: string) => Date.parse(s);
const hm = (t: number) => new Date(t).toISOString().slice(11, 19);

/** The plan as readBudgetConfig makes it from these settings (reserves scaled down on a small plan). */
const plan = (env: Record<string, string>) => readBudgetConfig(new EnvReader({ API_BUDGET_TABLE: 't', ...env })).limits;
const DEFAULT_TIMINGS = readPauseTimings(new EnvReader({}));

/** `n` parts, numbered from `first`, open from `opens` to `closes` (ISO). */
const parts = (n: number, opens: string, closes: string, first = 1): PartStretch[] =>
  Array.from({ length: n }, (_, i) => ({ part: first + i, opensAt: at(opens), closesAt: at(closes) }));

const LAUNCH = { at: at('2026-12-07T08:10Z'), parts: 0 };

describe('the polls’ share of the plan (as the lifecycle plans its polls)', () => {
  it.each([
    ['the default plan: half of 100 − 5 − 5, half of 1000 − 200 − 50', {}, { perMinute: 45, perHour: 375 }],
    ['a plan of 4 a minute: reserves of 1 each leave 2, half is 1', { API_BUDGET_PER_MINUTE: '4' }, { perMinute: 1 }],
    ['no minute limit: no share', { API_BUDGET_PER_MINUTE: '0' }, { perMinute: 0 }],
  ])('%s', (_, env, expected) => {
    expect(pollPlanOf(plan(env))).toMatchObject(expected);
  });
});

describe('closes with more pauses than the plan carries before the brake lead', () => {
  it.each<{
    name: string;
    stretches: PartStretch[];
    env?: Record<string, string>;
    timings?: Partial<PauseTimings>;
    crowded: { closes: string; parts: number; pausable: number; from?: string; brake?: string }[];
  }>([
    {
      name: '190 parts at 17:00: 95 a minute over 16:53 and 16:54 carry them all',
      stretches: parts(190, '2026-12-07T14:00Z', '2026-12-07T17:00Z'),
      crowded: [],
    },
    {
      name: '200 parts at 17:00: 190 paused from 16:53:00 before the brake at 16:54:30, 10 braked',
      stretches: parts(200, '2026-12-07T14:00Z', '2026-12-07T17:00Z'),
      crowded: [{ closes: '17:00:00', parts: 200, pausable: 190, from: '16:53:00', brake: '16:54:30' }],
    },
    {
      name: 'a plan of 4 a minute: 3 a minute after the safety reserve, 6 over two minutes; the 7th is braked',
      stretches: parts(7, '2026-12-07T14:00Z', '2026-12-07T17:00Z'),
      env: { API_BUDGET_PER_MINUTE: '4' },
      crowded: [{ closes: '17:00:00', parts: 7, pausable: 6 }],
    },
    {
      name: 'the same 6 on a plan of 4 a minute fit',
      stretches: parts(6, '2026-12-07T14:00Z', '2026-12-07T17:00Z'),
      env: { API_BUDGET_PER_MINUTE: '4' },
      crowded: [],
    },
    {
      name: 'no minute limit: never crowded',
      stretches: parts(500, '2026-12-07T14:00Z', '2026-12-07T17:00Z'),
      env: { API_BUDGET_PER_MINUTE: '0' },
      crowded: [],
    },
    {
      name: 'a pause lead of 60 s leaves one clock minute (16:54:00–16:54:30): 95 paused of 100',
      stretches: parts(100, '2026-12-07T14:00Z', '2026-12-07T17:00Z'),
      timings: { pauseLeadMs: 60_000 },
      crowded: [{ closes: '17:00:00', parts: 100, pausable: 95, from: '16:54:00', brake: '16:54:30' }],
    },
    {
      name: 'a close at 17:00:30 brakes at 16:55:00 sharp: still only two clock minutes (190 of 191)',
      stretches: parts(191, '2026-12-07T14:00Z', '2026-12-07T17:00:30Z'),
      crowded: [{ closes: '17:00:30', parts: 191, pausable: 190 }],
    },
    {
      name: 'closes a minute apart share 16:54: 60 + 60 fit in three minutes',
      stretches: [
        ...parts(60, '2026-12-07T14:00Z', '2026-12-07T17:00Z'),
        ...parts(60, '2026-12-07T14:00Z', '2026-12-07T17:01Z', 61),
      ],
      crowded: [],
    },
    {
      name: 'closes a minute apart, 150 + 150: the earlier brake goes first, the later close loses 15',
      stretches: [
        ...parts(150, '2026-12-07T14:00Z', '2026-12-07T17:00Z'),
        ...parts(150, '2026-12-07T14:00Z', '2026-12-07T17:01Z', 151),
      ],
      crowded: [{ closes: '17:01:00', parts: 150, pausable: 135 }],
    },
    {
      name: 'closes a day apart do not share minutes: 100 each day fit',
      stretches: [
        ...parts(100, '2026-12-07T14:00Z', '2026-12-07T17:00Z'),
        ...parts(100, '2026-12-08T14:00Z', '2026-12-08T17:00Z'),
      ],
      crowded: [],
    },
    {
      name: 'a stretch shorter than the closing margin never opens, so needs no pause',
      stretches: parts(200, '2026-12-07T16:57Z', '2026-12-07T17:00Z'),
      crowded: [],
    },
  ])('$name', ({ stretches, env = {}, timings = {}, crowded }) => {
    const load = planLoad(stretches, LAUNCH, plan(env), { ...DEFAULT_TIMINGS, ...timings });
    expect(
      load.crowded.map((c) => ({
        closes: hm(c.closesAt),
        parts: c.parts,
        pausable: c.pausable,
        from: hm(c.pausesFrom),
        brake: hm(c.brakeAt),
      })),
    ).toEqual(crowded.map((c) => expect.objectContaining(c)));
  });
});

describe('clock hours whose launches, resumes and pauses need more than the polls leave', () => {
  it.each<{
    name: string;
    stretches: PartStretch[];
    launch: { at: string; parts: number };
    env?: Record<string, string>;
    busy: { from: string; requests: number; room: number }[];
  }>([
    {
      name: '100 parts: 200 at launch, 100 resumes, 200 for pauses and confirms, each in its own hour',
      stretches: parts(100, '2026-12-07T09:00Z', '2026-12-07T17:00Z'),
      launch: { at: '2026-12-07T08:10Z', parts: 100 },
      busy: [],
    },
    {
      name: '250 parts launched at 08:10 and opening at 08:30: 500 + 250 in the 08:00 hour, over 625',
      stretches: parts(250, '2026-12-07T08:30Z', '2026-12-07T17:00Z'),
      launch: { at: '2026-12-07T08:10Z', parts: 250 },
      busy: [{ from: '08:00:00', requests: 750, room: 625 }],
    },
    {
      name: '250 parts opening in the hour after their launch: 500, then 250: neither over',
      stretches: parts(250, '2026-12-07T09:30Z', '2026-12-07T17:00Z'),
      launch: { at: '2026-12-07T08:10Z', parts: 250 },
      busy: [],
    },
    {
      name: 'pauses count in the hour they go out (16:53 for a 17:00 close), with what opens then',
      stretches: [
        ...parts(200, '2026-12-07T09:00Z', '2026-12-07T17:00Z'),
        ...parts(300, '2026-12-07T16:00Z', '2026-12-07T20:00Z', 201),
      ],
      launch: { at: '2026-12-07T08:10Z', parts: 0 },
      busy: [{ from: '16:00:00', requests: 700, room: 625 }],
    },
    {
      name: 'a plan of 100 an hour: reserves of 25 each, polls 25, 75 left; 26 parts need 78 to launch and open',
      stretches: parts(26, '2026-12-07T08:30Z', '2026-12-07T17:00Z'),
      launch: { at: '2026-12-07T08:10Z', parts: 26 },
      env: { API_BUDGET_PER_HOUR: '100' },
      busy: [{ from: '08:00:00', requests: 78, room: 75 }],
    },
    {
      name: 'no hour limit: never busy',
      stretches: parts(1000, '2026-12-07T08:30Z', '2026-12-07T17:00Z'),
      launch: { at: '2026-12-07T08:10Z', parts: 1000 },
      env: { API_BUDGET_PER_HOUR: '0' },
      busy: [],
    },
  ])('$name', ({ stretches, launch, env = {}, busy }) => {
    const load = planLoad(stretches, { at: at(launch.at), parts: launch.parts }, plan(env), DEFAULT_TIMINGS);
    expect(load.busy.map((b) => ({ from: hm(b.from), requests: b.requests, room: b.room }))).toEqual(busy);
  });

  it('reads the room the default plan leaves: 95 a minute and 625 an hour', () => {
    expect(planLoad([], LAUNCH, DEFAULT_LIMITS, DEFAULT_TIMINGS).room).toEqual({ perMinute: 95, perHour: 625 });
  });
});

describe('the closing margin', () => {
  // Several laws count the hour a call is received, which comes after the hour it was placed.
  it.each([
    ['0', 'CLOSING_MARGIN_MINUTES="0": a whole number from 1 to 120'],
    ['121', 'CLOSING_MARGIN_MINUTES="121": a whole number from 1 to 120'],
  ])('refuses %s minutes', (value, problem) => {
    const env = new EnvReader({ CLOSING_MARGIN_MINUTES: value });
    readPauseTimings(env);
    expect(() => env.done()).toThrow(problem);
  });

  it('takes 1 minute, and 5 when unset', () => {
    expect(readPauseTimings(new EnvReader({ CLOSING_MARGIN_MINUTES: '1' })).closingMarginMs).toBe(60_000);
    expect(DEFAULT_TIMINGS.closingMarginMs).toBe(300_000);
  });
});
