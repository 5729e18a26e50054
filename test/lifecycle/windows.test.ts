import { describe, expect, it } from 'vitest';
import { type CallingWindow, parseWindowRules, windowStateAt } from '../../functions/commons/calling-window.ts';
import { readJson, uploadAndRun, usePipeline } from '../helpers/pipeline.ts';
import { contactSheet, phones, xlsx } from '../helpers/sheets.ts';

const p = usePipeline();

interface PartReport {
  status: string;
  stats: { pending: number; in_progress: number; completed: number; failed: number };
  pauses: { at: string; reason: string }[];
  resumes: { at: string }[];
  window: { timeZone: string; hours: string; source: string };
}

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
  const calls = [];
  for await (const c of p.f.api.calls.listAll()) if (c.agent_id === agent.id) calls.push(c);
  return { report, calls };
}

describe('calling windows', () => {
  it('waits for the window, pauses when it closes, resumes when it reopens across a DST change, and never dials outside it', async () => {
    // Friday 2026-03-06, 06:00 in Los Angeles; US clocks go forward on Sunday 2026-03-08.
    await p.f.admin.setClock('2026-03-06T14:00:00Z');
    const spec = 'Mon-Fri 09:00-09:20';
    const { report, calls } = await run('Short hours', 200, '+1415572', { 'calling-window': spec });
    expect(report.status).toBe('completed');
    expect(report.window).toMatchObject({ timeZone: 'America/Los_Angeles', source: 'upload' });
    expect(report.pauses.length).toBeGreaterThan(0);
    expect(report.pauses.every((x) => x.reason === 'window')).toBe(true);
    // The first pause is Friday 09:20 PST (17:20Z); the next resume Monday 09:00 PDT (16:00Z), after the DST change.
    expect(report.pauses[0]?.at.slice(0, 16)).toBe('2026-03-06T17:20');
    expect(report.resumes[0]?.at.slice(0, 16)).toBe('2026-03-09T16:00');
    const window: CallingWindow = { rules: parseWindowRules(spec), holidays: [] };
    const outside = calls.filter(
      (c) => !windowStateAt(window, 'America/Los_Angeles', Date.parse(c.created_at ?? '')).open,
    );
    expect(calls.length).toBeGreaterThanOrEqual(200);
    expect(outside.map((c) => c.created_at)).toEqual([]);
  });

  it('handles a window that crosses midnight and closes a holiday at its own midnight', async () => {
    // Tuesday 2026-03-17 in Kolkata; nights 22:00-00:30; Wednesday the 18th is a holiday.
    await p.f.admin.setClock('2026-03-17T10:00:00Z');
    const spec = 'daily 22:00-00:30';
    const { report, calls } = await run('Night owls', 1000, '+91982001', {
      'calling-window': spec,
      holidays: '2026-03-18',
    });
    expect(report.status).toBe('completed');
    expect(report.window.timeZone).toBe('Asia/Kolkata');
    const window: CallingWindow = { rules: parseWindowRules(spec), holidays: ['2026-03-18'] };
    const outside = calls.filter((c) => !windowStateAt(window, 'Asia/Kolkata', Date.parse(c.created_at ?? '')).open);
    expect(outside.map((c) => c.created_at)).toEqual([]);
    // Tuesday's stretch stops at midnight, where the holiday begins (18:30Z is 00:00 IST)…
    expect(report.pauses.map((x) => x.at.slice(0, 16))).toContain('2026-03-17T18:30');
    // …and Wednesday's stretch, though it starts on the holiday, resumes for its half hour past midnight.
    expect(report.resumes.map((x) => x.at.slice(0, 16))).toContain('2026-03-18T18:30');
    const local = calls.map((c) => new Date(Date.parse(c.created_at ?? '') + 5.5 * 3_600_000).toISOString());
    expect(local.some((t) => t.startsWith('2026-03-19T00:'))).toBe(true);
  });
});
