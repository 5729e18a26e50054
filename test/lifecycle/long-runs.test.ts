import { describe, expect, it } from 'vitest';
import type { PartReport } from '#lifecycle/part-report.ts';
import { readJson, uploadAndRun, usePipeline } from '../helpers/pipeline.ts';
import { contactSheet, phones, xlsx } from '../helpers/sheets.ts';

// A tiny history budget, so a short campaign already has to continue in new executions.
const p = usePipeline({ CONTINUE_AFTER_STEPS: '3' });

describe('long campaigns', () => {
  it('continues as a new execution before the history grows, carrying the state over', async () => {
    const agent = await p.f.api.agents.create({ name: 'Marathon' });
    const executions = await uploadAndRun(
      p,
      `incoming/${agent.id}/marathon.xlsx`,
      await xlsx(contactSheet(phones(200, '+1415578'))),
      { 'calling-window': 'Mon-Fri 09:00-09:30' },
    );
    expect(executions.length).toBeGreaterThan(2);
    expect(executions.every((e) => e.status === 'SUCCEEDED')).toBe(true);
    const base = executions[0]?.name as string;
    expect(executions.slice(1).map((e) => e.name)).toEqual(executions.slice(1).map((_, i) => `${base}-g${i + 1}`));
    const plan = JSON.parse(executions[0]?.input ?? '{}').plan;
    const report = await readJson<PartReport>(p, `${plan.reportPrefix}part-1.json`);
    expect(report.status).toBe('completed');
    expect(report.executions).toBe(executions.length);
    // Transitions of every execution are counted, not only the last one's.
    const entered = executions.reduce((n, e) => n + e.history.filter((h) => h.type.endsWith('StateEntered')).length, 0);
    // Each execution's closing Succeed state is entered after its count was taken.
    expect(report.stateTransitions).toBe(entered - executions.length);
    expect(report.pauses.length).toBeGreaterThan(0);
  });

  it('waits for a scheduled start without dialling before it', async () => {
    const agent = await p.f.api.agents.create({ name: 'Later' });
    const now = p.f.emu.core.clock.now();
    const start = new Date(now + 3 * 86_400_000).toISOString().slice(0, 10);
    const executions = await uploadAndRun(
      p,
      `incoming/${agent.id}/later.xlsx`,
      await xlsx(contactSheet(phones(10, '+1415579'))),
      {
        'calling-window': 'daily 00:00-24:00',
        'start-date-time': `${start}T10:00:00`,
        'time-zone': 'America/New_York',
      },
    );
    const startAt = Date.parse(`${start}T15:00:00Z`); // 10:00 in New York (EDT after 2026-03-08: 14:00Z; EST: 15:00Z)
    const calls = [];
    for await (const c of p.f.api.calls.listAll())
      if (c.agent_id === agent.id) calls.push(Date.parse(c.created_at ?? ''));
    expect(calls.length).toBeGreaterThanOrEqual(10); // failed calls are retried once
    expect(Math.min(...calls)).toBeGreaterThanOrEqual(startAt - 3_600_000);
    const plan = JSON.parse(executions[0]?.input ?? '{}').plan;
    const report = await readJson<PartReport>(p, `${plan.reportPrefix}part-1.json`);
    expect(report.status).toBe('completed');
  });
});
