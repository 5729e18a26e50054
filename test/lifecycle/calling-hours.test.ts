import parsePhoneNumberFromString from 'libphonenumber-js/max';
import { describe, expect, it } from 'vitest';
import { type AppliedRule, appliedRule, DEFAULT_LEGAL_HOURS } from '#commons/legal-hours.ts';
import type { PartReport } from '#lifecycle/part-report.ts';
import type { FaultInput } from '#local/emulator/fault-plan.ts';
import { type AuditedCall, auditCalls, type CallRule, candidateZones, type ExtraZones } from '../helpers/call-audit.ts';
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
 * Calling hours by scope, rehearsed on the embedded stack: area codes split by a time-zone boundary, a state's own
 * hours, a country's public holidays, and pause faults at a close. Every call the emulator placed is checked by the
 * independent auditor (test/helpers/call-audit.ts). Where an outcome depends on hours, the upload sets an explicit
 * window inside every plausible rule, so the expectations hold as the tables grow.
 *
 * The emulator's clock only moves forward: the scenarios run in date order, each in a week of its own.
 */

// Three lines: each run uploads `lines.numbers(150)`, as long to dial as 150 numbers on the emulator's default ten.
const lines = fewerLines(3);
const p = usePipeline({}, { emulator: { settings: lines.settings } });

/** `count` numbers under the prefix, each valid by libphonenumber's full metadata (or the run is about nothing). */
function validPhones(count: number, prefix: string): string[] {
  const numbers = phones(count, prefix);
  expect(numbers.filter((n) => !parsePhoneNumberFromString(n)?.isValid())).toEqual([]);
  return numbers;
}

/** Uploads the numbers, plays the run out on simulated time, and answers the part's report and the placed calls. */
async function run(name: string, numbers: string[], metadata: Record<string, string>, faults: FaultInput[] = []) {
  await p.f.admin.faultPlan(faults);
  const agent = await p.f.api.agents.create({ name });
  const started = await uploadOnly(p, `incoming/${agent.id}/${name}.xlsx`, await xlsx(contactSheet(numbers)), metadata);
  await settledRun(p);
  await p.f.admin.faultPlan([]);
  const [execution, ...more] = started();
  expect(more).toEqual([]);
  expect([execution?.status, execution?.cause]).toEqual(['SUCCEEDED', null]);
  const plan = JSON.parse(execution?.input ?? '{}').plan;
  const report = await readJson<PartReport>(p, `${plan.reportPrefix}part-1.json`);
  const calls = placedCalls(p, agent.id).filter((c) => c.started_at !== null);
  expect(new Set(calls.map((c) => c.phone_number)).size).toBe(numbers.length);
  const requests = await p.f.admin.requests<{ fault: boolean; method: string; path: string }[]>();
  // The calls, and when the campaign could have dialled had a line been free, from the emulator's records.
  const audit = (rule: CallRule, extraZones?: ExtraZones) => auditRecords(p, agent.id, rule, extraZones);
  return { report, calls, audit, faulted: requests.filter((r) => r.fault) };
}

const HOUR = 3_600_000;
const at = (c: AuditedCall) => Date.parse(c.started_at ?? '');
const shift = (calls: AuditedCall[], ms: number): AuditedCall[] =>
  calls.map((c) => ({ ...c, started_at: new Date(at(c) + ms).toISOString() }));
const earliest = (calls: AuditedCall[]) => new Date(Math.min(...calls.map(at))).toISOString();
const nextDay = (date: string) => new Date(Date.parse(`${date}T00:00:00Z`) + 24 * HOUR).toISOString().slice(0, 10);
const builtIn = (scope: string): AppliedRule => {
  const rule = DEFAULT_LEGAL_HOURS[scope];
  if (!rule) throw new Error(`the built-in table has no ${scope} rule`);
  return appliedRule(rule);
};

/**
 * Idaho's 208 spans the Mountain/Pacific boundary (49 CFR § 71.10: the panhandle keeps Pacific time), whatever the
 * exchange; libphonenumber names only Mountain time for Boise's 208-343. Written from the boundary, not from
 * callsheet's split-area-code table.
 */
const IDAHO: ExtraZones = { '+1208': ['America/Boise', 'America/Los_Angeles'] };
/** A weekday window inside the federal 08:00-21:00 and any state's hours, so only the zones decide. */
const MORNING = 'Mon-Fri 10:00-11:30';
const MORNING_RULE: CallRule = { hours: MORNING, closingMarginMinutes: 5 };

describe('area codes split by a time-zone boundary', () => {
  it('Idaho 208: dialled only while the window is open in Mountain AND Pacific time', async () => {
    // Tue 2026-03-03, 09:30 MST (UTC-7) / 08:30 PST (UTC-8). 10:00-11:30 is 17:00-18:30Z in Boise and
    // 18:00-19:30Z in Los Angeles: open in both only 18:00-18:30Z.
    await p.f.admin.setClock('2026-03-03T16:30:00Z');
    const numbers = validPhones(lines.numbers(150), '+1208343');
    expect(await candidateZones(numbers[0] as string)).toEqual(['America/Denver']);
    const { report, calls, audit } = await run('idaho', numbers, { 'calling-window': MORNING });

    expect(report.status).toBe('completed');
    expect(await audit(MORNING_RULE, IDAHO)).toEqual([]);
    // Both clocks are named (Boise keeps Denver's clock: either name stands for Mountain time).
    expect(report.window?.zones).toHaveLength(2);
    expect(report.window?.zones).toContain('America/Los_Angeles');
    expect(['America/Boise', 'America/Denver']).toContain(report.window?.zones.find((z) => !z.includes('Los_')));
    expect(report.window?.regions).toEqual(['US-ID']);

    // Mountain time opened at 17:00Z, but the first call waited for Pacific's opening at 18:00Z, and so did the
    // resume on Wednesday; the first pause came before Mountain's close (18:30Z, less margin and lead).
    expect(earliest(calls).slice(0, 16)).toBe('2026-03-03T18:00');
    expect(report.pauses[0]).toEqual({ at: expect.stringMatching(/^2026-03-03T18:23/), reason: 'window' });
    expect(report.resumes[0]?.at.slice(0, 16)).toBe('2026-03-04T18:00');

    // The same calls as a dialler that checked Mountain time alone would have placed them (each stretch an hour
    // earlier): every one is caught in Pacific time, and only by an auditor that knows 208 rings there too.
    const mountainOnly = shift(calls, -HOUR);
    expect(await auditCalls(mountainOnly, MORNING_RULE)).toEqual([]);
    const caught = await auditCalls(mountainOnly, MORNING_RULE, IDAHO);
    expect(caught).toHaveLength(calls.length);
    expect(new Set(caught.map((v) => `${v.zone} ${v.reason}`))).toEqual(new Set(['America/Los_Angeles outside_hours']));
  }, 90_000);

  it('Alaska 907: dialled only while the window is open in Alaska AND Hawaii-Aleutian time', async () => {
    // Mon 2026-03-16, 09:30 AKDT (UTC-8) / 08:30 HDT (UTC-9). 10:00-11:30 is 18:00-19:30Z in Anchorage and
    // 19:00-20:30Z on Adak: open in both only 19:00-19:30Z. The phone data names both zones for 907.
    await p.f.admin.setClock('2026-03-16T17:30:00Z');
    const numbers = validPhones(lines.numbers(150), '+1907263');
    expect(await candidateZones(numbers[0] as string)).toEqual(['America/Adak', 'America/Anchorage']);
    const { report, calls, audit } = await run('alaska', numbers, { 'calling-window': MORNING });

    expect(report.status).toBe('completed');
    expect(await audit(MORNING_RULE)).toEqual([]);
    expect(report.window?.zones).toHaveLength(2);
    expect(report.window?.zones).toContain('America/Adak');
    expect(report.window?.zones.find((z) => z !== 'America/Adak')).toMatch(/^America\/(Anchorage|Juneau|Sitka|Nome)$/);

    // Anchorage opened at 18:00Z; the first call and Tuesday's resume waited for Adak's opening at 19:00Z, and the
    // first pause came before Anchorage's close (19:30Z, less margin and lead).
    expect(earliest(calls).slice(0, 16)).toBe('2026-03-16T19:00');
    expect(report.pauses[0]).toEqual({ at: expect.stringMatching(/^2026-03-16T19:23/), reason: 'window' });
    expect(report.resumes[0]?.at.slice(0, 16)).toBe('2026-03-17T19:00');

    // A dialler that checked Anchorage alone would have started each stretch an hour earlier: all caught on Adak.
    const caught = await auditCalls(shift(calls, -HOUR), MORNING_RULE);
    expect(caught).toHaveLength(calls.length);
    expect(new Set(caught.map((v) => `${v.zone} ${v.reason}`))).toEqual(new Set(['America/Adak outside_hours']));
  }, 90_000);
});

describe('a state rule', () => {
  it('Florida 305 without an upload window: US and US-FL rules, no call from 20:00 local', async () => {
    // Mon 2026-03-23, 19:30 EDT (UTC-4). The federal rule allows 08:00-21:00, Florida's 08:00-20:00.
    await p.f.admin.setClock('2026-03-23T23:30:00Z');
    const { report, calls, audit } = await run('florida', validPhones(lines.numbers(150), '+1305372'), {});

    expect(report.status).toBe('completed');
    expect(await audit({ hours: 'daily 08:00-20:00', closingMarginMinutes: 5 })).toEqual([]);
    expect(report.window).toMatchObject({ zones: ['America/New_York'], source: 'legal hours', regions: ['US-FL'] });
    // Each rule as the built-in table has it, with its source.
    expect(report.window?.rules).toEqual([builtIn('US'), builtIn('US-FL')]);
    expect(report.window?.rules[0]?.source).toContain('64.1200');
    expect(report.window?.rules[1]?.source).toContain('501.616(6)(a)');

    // Dialling ran up to Florida's close and stopped there, though the federal rule kept the window open another
    // hour: the pause came at 19:53 EDT, and nobody was called again before 08:00 on Tuesday.
    expect(report.pauses[0]).toEqual({ at: expect.stringMatching(/^2026-03-23T23:53/), reason: 'window' });
    const between = (from: string, to: string) =>
      calls.filter((c) => at(c) >= Date.parse(from) && at(c) < Date.parse(to));
    expect(between('2026-03-23T23:45:00Z', '2026-03-23T23:55:00Z').length).toBeGreaterThan(0);
    expect(between('2026-03-23T23:55:00Z', '2026-03-24T12:00:00Z')).toEqual([]);
    expect(report.resumes[0]?.at.slice(0, 16)).toBe('2026-03-24T12:00');
  }, 90_000);
});

describe('public holidays', () => {
  it('Sydney across Easter: no call on Good Friday or Easter Monday, by local date', async () => {
    // Thu 2026-04-02, 08:30 AEDT (UTC+11). Good Friday (04-03) and Easter Monday (04-06) are national public
    // holidays, closed by the AU rule; Sydney leaves daylight time on Sunday 04-05, so Tuesday 09:00 AEST is 23:00Z
    // on Monday.
    await p.f.admin.setClock('2026-04-01T21:30:00Z');
    const window = 'Mon-Fri 09:00-09:30';
    const { report, calls, audit } = await run('sydney-easter', validPhones(lines.numbers(150), '+6129123'), {
      'calling-window': window,
    });

    expect(report.status).toBe('completed');
    const rule: CallRule = { hours: window, holidays: ['2026-04-03', '2026-04-06'], closingMarginMinutes: 5 };
    expect(await audit(rule)).toEqual([]);
    expect(report.window).toMatchObject({ zones: ['Australia/Sydney'], holidayScopes: ['AU'] });
    // Thursday's stretch ran out, and the next was Tuesday's, not Friday's or Monday's.
    expect(report.pauses[0]?.at.slice(0, 16)).toBe('2026-04-01T22:23');
    expect(report.resumes[0]?.at.slice(0, 16)).toBe('2026-04-06T23:00');
    const tuesday = calls.filter((c) => at(c) >= Date.parse('2026-04-06T23:00:00Z'));
    expect(tuesday.length).toBeGreaterThan(0);
    // Had Tuesday's calls gone out a day earlier, each would have started on Easter Monday in Sydney (though on the
    // 5th in UTC): the auditor checks the local date.
    const monday = await auditCalls(shift(tuesday, -24 * HOUR), rule);
    expect(monday).toHaveLength(tuesday.length);
    expect(new Set(monday.map((v) => v.reason))).toEqual(new Set(['holiday']));
  }, 90_000);
});

describe("faults at a split area code's close", () => {
  // Idaho again, in later weeks (MDT UTC-6, PDT UTC-7): 10:00-11:30 is open in both zones 17:00-17:30Z; the first
  // pause is due at 17:23Z.
  async function rehearse(date: string, faults: FaultInput[]) {
    await p.f.admin.setClock(`${date}T15:30:00Z`);
    const r = await run(
      `idaho-${date}`,
      validPhones(lines.numbers(150), '+1208343'),
      { 'calling-window': MORNING },
      faults,
    );
    expect(r.report.status).toBe('completed');
    expect(await r.audit(MORNING_RULE, IDAHO)).toEqual([]);
    expect(earliest(r.calls).slice(0, 16)).toBe(`${date}T17:00`);
    expect(r.faulted.some((f) => f.method === 'PATCH' && f.path.endsWith('/pause'))).toBe(true);
    return r;
  }

  it('pause answers 500 for an hour across the close: braked, released at the next opening in both zones', async () => {
    const date = '2026-04-14';
    const { report } = await rehearse(date, [
      { method: 'PATCH', path: '/campaigns/*/pause', status: 500, from: `${date}T17:20:00Z`, minutes: 60 },
    ]);
    expect(report.brakes.map((b) => b.event)).toEqual(['brake', 'brake released']);
    // Released at Pacific's opening (17:00Z), not Mountain's an hour before.
    expect(report.brakes[1]?.at.slice(0, 16)).toBe(`${nextDay(date)}T17:00`);
  }, 90_000);

  it('pause and resume answers lost: the stats confirm the pause, the resume waits for both zones', async () => {
    const date = '2026-04-21';
    const { report, faulted } = await rehearse(date, [
      { method: 'PATCH', path: '/campaigns/*/pause', drop: true, from: `${date}T17:20:00Z`, minutes: 60, count: 2 },
      { method: 'PATCH', path: '/campaigns/*/resume', drop: true, from: `${nextDay(date)}T16:55:00Z`, minutes: 30 },
    ]);
    expect(faulted.some((f) => f.method === 'PATCH' && f.path.endsWith('/resume'))).toBe(true);
    expect(report.brakes).toEqual([]);
    expect(report.resumes[0]?.at.slice(0, 16)).toBe(`${nextDay(date)}T17:00`);
  }, 90_000);
});
