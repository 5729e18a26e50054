import { describe, expect, it } from 'vitest';
import type { PartReport } from '#lifecycle/part-report.ts';
import type { CallRule } from '../helpers/call-audit.ts';
import { auditRecords, fewerLines, placedCalls, readJson, uploadAndRun, usePipeline } from '../helpers/pipeline.ts';
import { contactSheet, phones, xlsx } from '../helpers/sheets.ts';

// Three lines: each run uploads `numbers(n)`, as long to dial as n numbers on the emulator's default ten.
const { settings, numbers } = fewerLines(3);
// Great Britain without callsheet's conservative default: the London case tests the upload's own night window.
const p = usePipeline({ LEGAL_HOURS: '{"GB": "off"}' }, { emulator: { settings } });

async function run(name: string, count: number, prefix: string, metadata: Record<string, string>) {
  const agent = await p.f.api.agents.create({ name });
  const [execution] = await uploadAndRun(
    p,
    `incoming/${agent.id}/${name}.xlsx`,
    await xlsx(contactSheet(phones(count, prefix))),
    metadata,
  );
  expect([execution?.status, execution?.cause]).toEqual(['SUCCEEDED', null]);
  const plan = JSON.parse(execution?.input ?? '{}').plan;
  const report = await readJson<PartReport>(p, `${plan.reportPrefix}part-1.json`);
  return { report, calls: placedCalls(p, agent.id), audit: (rule: CallRule) => auditRecords(p, agent.id, rule) };
}

describe('calling windows', () => {
  it('waits for the window, pauses when it closes, resumes when it reopens across a DST change, and never dials outside it', async () => {
    // Friday 2026-03-06, 06:00 in Los Angeles; US clocks go forward on Sunday 2026-03-08.
    await p.f.admin.setClock('2026-03-06T14:00:00Z');
    const spec = 'Mon-Fri 09:00-09:20';
    const { report, calls, audit } = await run('Short hours', numbers(200), '+1415572', { 'calling-window': spec });
    expect(report.status).toBe('completed');
    expect(report.window).toMatchObject({ timeZone: 'America/Los_Angeles', source: 'upload', clipped: false });
    expect(report.pauses.length).toBeGreaterThan(0);
    expect(report.pauses.every((x) => x.reason === 'window')).toBe(true);
    // The first pause goes out two minutes (the pause lead) before the closing margin (5 min) before Friday 09:20 PST (17:20Z); the
    // next resume is Monday 09:00 PDT (16:00Z), after the DST change.
    expect(report.pauses[0]?.at.slice(0, 16)).toBe('2026-03-06T17:13');
    expect(report.resumes[0]?.at.slice(0, 16)).toBe('2026-03-09T16:00');
    expect(calls.length).toBeGreaterThanOrEqual(numbers(200));
    expect(await audit({ hours: spec, closingMarginMinutes: 5 })).toEqual([]);
  });

  it('handles a window that crosses midnight and closes a holiday at its own midnight', async () => {
    // Tuesday 2026-03-17 in London (GMT); nights 22:00-00:30; Wednesday the 18th is a holiday. GB has no legal-hours
    // entry, so the upload's own window applies as it is.
    await p.f.admin.setClock('2026-03-17T10:00:00Z');
    const spec = 'daily 22:00-00:30';
    const { report, calls, audit } = await run('Night owls', numbers(1000), '+44794601', {
      'calling-window': spec,
      holidays: '2026-03-18',
    });
    expect(report.status).toBe('completed');
    expect(report.window!.timeZone).toBe('Europe/London');
    const rule = { hours: 'Mon-Sun 22:00-00:30', holidays: ['2026-03-18'], closingMarginMinutes: 5 };
    expect(await audit(rule)).toEqual([]);
    // Tuesday's stretch stops 7 minutes before midnight (margin and lead), where the holiday begins…
    expect(report.pauses.map((x) => x.at.slice(0, 16))).toContain('2026-03-17T23:53');
    // …and Wednesday's stretch, though it starts on the holiday, resumes for its half hour past midnight.
    expect(report.resumes.map((x) => x.at.slice(0, 16))).toContain('2026-03-19T00:00');
    expect(calls.some((c) => (c.started_at ?? '').startsWith('2026-03-19T00:'))).toBe(true);
  });
});
