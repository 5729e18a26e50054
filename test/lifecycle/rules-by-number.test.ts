import { describe, expect, it } from 'vitest';
import type { PartReport } from '#lifecycle/part-report.ts';
import { auditCalls } from '../helpers/call-audit.ts';
import { placedCalls, readJson, uploadAndRun, usePipeline } from '../helpers/pipeline.ts';
import { contactSheet, phones, xlsx } from '../helpers/sheets.ts';

/**
 * The calling-hours rules by number, rehearsed on the embedded stack and checked from the emulator's own call records
 * by the independent auditor: an area code that spans zones, a state's stricter hours, a holiday a country bans.
 */
const p = usePipeline();

async function run(name: string, numbers: string[], metadata: Record<string, string> = {}) {
  const agent = await p.f.api.agents.create({ name });
  const [execution] = await uploadAndRun(
    p,
    `incoming/${agent.id}/${name}.xlsx`,
    await xlsx(contactSheet(numbers)),
    metadata,
  );
  expect([execution?.status, execution?.cause]).toEqual(['SUCCEEDED', null]);
  const plan = JSON.parse(execution?.input ?? '{}').plan;
  const report = await readJson<PartReport>(p, `${plan.reportPrefix}part-1.json`);
  const calls = placedCalls(p, agent.id);
  const starts = calls
    .map((c) => c.started_at)
    .filter((t): t is string => t !== null)
    .sort();
  return { report, calls, first: starts[0], last: starts.at(-1) };
}

describe('rules by number on the embedded stack (in the order of the simulated clock)', () => {
  it('calls nobody in Sydney on Good Friday, the Easter weekend or Easter Monday', async () => {
    // Thursday 2026-04-02, 08:00 in Sydney (AEDT, UTC+11); a short window spreads the calls over days.
    await p.f.admin.setClock('2026-04-01T21:00:00Z');
    const spec = 'Mon-Fri 09:00-09:20; Sat 09:00-09:20';
    const { report, calls } = await run('Easter', phones(120, '+6129374'), { 'calling-window': spec });
    expect(report.status).toBe('completed');
    expect(report.window?.holidayScopes).toEqual(['AU']);
    const days = new Set(calls.flatMap((c) => (c.started_at ? [c.started_at.slice(0, 10)] : [])));
    // Sydney's 09:00-09:20 is the previous UTC evening: Thursday the 2nd, then Tuesday the 7th.
    expect([...days].sort()[0]).toBe('2026-04-01');
    expect([...days]).toContain('2026-04-06');
    const rule = { hours: spec, holidays: ['2026-04-03', '2026-04-04', '2026-04-06'], closingMarginMinutes: 5 };
    expect(await auditCalls(calls, rule)).toEqual([]);
  });

  it('calls an Idaho 208 number only when the window is open in Boise and in Los Angeles', async () => {
    // Monday 2026-12-07, 07:00 in Boise (MST, UTC-7); northern Idaho keeps Pacific time (49 CFR § 71.9).
    await p.f.admin.setClock('2026-12-07T14:00:00Z');
    const spec = 'Mon-Fri 09:00-12:00';
    const { report, calls, first } = await run('Idaho', phones(60, '+1208234'), { 'calling-window': spec });
    expect(report.status).toBe('completed');
    // Boise keeps Denver's clock; the part names Denver, the zone people know.
    expect(report.window?.zones).toEqual(['America/Denver', 'America/Los_Angeles']);
    expect(report.window?.rules.map((r) => r.scope)).toEqual(['US', 'US-ID']);
    // 09:00 in Boise is 08:00 in Los Angeles: nobody is called before 09:00 there, which is 10:00 in Boise (17:00Z).
    expect(Date.parse(first ?? '')).toBeGreaterThanOrEqual(Date.parse('2026-12-07T17:00:00Z'));
    expect(calls.filter((c) => c.started_at).length).toBeGreaterThanOrEqual(60);
    const rule = { hours: spec, closingMarginMinutes: 5 };
    expect(await auditCalls(calls, rule, { '+1208': ['America/Los_Angeles'] })).toEqual([]);
  });

  it('calls an Alaska 907 number only when the window is open in Anchorage and on Adak', async () => {
    // Tuesday 2026-12-08, 08:00 in Anchorage (UTC-9); Adak is an hour behind.
    await p.f.admin.setClock('2026-12-08T17:00:00Z');
    const spec = 'Mon-Fri 09:00-11:00';
    const { report, calls, first } = await run('Alaska', phones(40, '+1907234'), { 'calling-window': spec });
    expect(report.status).toBe('completed');
    expect(report.window?.zones).toEqual(['America/Adak', 'America/Anchorage']);
    // 09:00 on Adak is 10:00 in Anchorage (19:00Z).
    expect(Date.parse(first ?? '')).toBeGreaterThanOrEqual(Date.parse('2026-12-08T19:00:00Z'));
    expect(await auditCalls(calls, { hours: spec, closingMarginMinutes: 5 }, { '+1907': ['America/Adak'] })).toEqual(
      [],
    );
  });

  it("closes Florida numbers at 20:00, the state's hour, with no upload window, and says why", async () => {
    // Wednesday 2026-12-09, 19:40 in Miami (EST): the federal rule would allow calls until 21:00.
    await p.f.admin.setClock('2026-12-10T00:40:00Z');
    const { report, calls, last } = await run('Florida', phones(200, '+1305234'));
    expect(report.status).toBe('completed');
    expect(report.window?.rules.map((r) => [r.scope, r.hours])).toEqual([
      ['US', 'daily 08:00-21:00'],
      ['US-FL', 'daily 08:00-20:00'],
    ]);
    expect(report.window?.rules[1]?.source).toMatch(/501\.616\(6\)\(a\)/);
    expect(report.pauses.length).toBeGreaterThan(0);
    // Paused before 20:00, resumed at 08:00 the next morning (13:00Z).
    expect(Date.parse(last ?? '')).toBeGreaterThanOrEqual(Date.parse('2026-12-10T13:00:00Z'));
    expect(await auditCalls(calls, { hours: 'Daily 08:00-20:00', closingMarginMinutes: 5 })).toEqual([]);
  });
});
