import { describe, expect, it } from 'vitest';
import type { PartReport } from '#lifecycle/part-report.ts';
import { auditCalls } from '../helpers/call-audit.ts';
import { placedCalls, readJson, toLegalMorning, uploadAndRun, usePipeline } from '../helpers/pipeline.ts';
import { contactSheet, phones, xlsx } from '../helpers/sheets.ts';

// Executions time out after 30 simulated minutes: long before 1,000 numbers are called.
const p = usePipeline({ LIFECYCLE_TIMEOUT_SECONDS: '1800' });

describe('the execution times out', () => {
  it('ends as TIMED_OUT on the simulated clock, and the guard pauses its campaign', async () => {
    const agent = await p.f.api.agents.create({ name: 'Timed out' });
    const t0 = await toLegalMorning(p);
    const [execution] = await uploadAndRun(
      p,
      `incoming/${agent.id}/timeout.xlsx`,
      await xlsx(contactSheet(phones(1000, '+1415581'))),
      { 'calling-window': 'Mon-Fri 09:00-17:00' },
    );
    expect(execution?.status).toBe('TIMED_OUT');
    expect(execution?.stopDate?.getTime()).toBe(t0 + 1800_000);
    const campaign = [...p.f.emu.core.account.campaigns.values()].find((c) => c.agent_id === agent.id);
    expect(campaign?.status).toBe('paused');
    const calls = placedCalls(p, agent.id);
    expect(calls.length).toBeGreaterThan(0);
    expect(calls.length).toBeLessThan(1000);
    // Nobody is called after the guard paused the campaign (calls in flight finish normally).
    expect(calls.filter((c) => Date.parse(c.started_at ?? '') > t0 + 1800_000)).toEqual([]);
    expect(await auditCalls(calls, { hours: 'Mon-Fri 09:00-17:00', closingMarginMinutes: 5 })).toEqual([]);
  }, 90_000);

  it('before its window opened: the guard writes the part report saying why, and nobody is called', async () => {
    const agent = await p.f.api.agents.create({ name: 'Never launched' });
    await toLegalMorning(p);
    const [execution] = await uploadAndRun(
      p,
      `incoming/${agent.id}/later.xlsx`,
      await xlsx(contactSheet(phones(3, '+1415583'))),
      // The window opens six hours after 10:00; the execution may live 30 minutes.
      { 'calling-window': 'Mon-Fri 16:00-17:00' },
    );
    expect(execution?.status).toBe('TIMED_OUT');
    const plan = JSON.parse(execution?.input ?? '{}').plan;
    const report = await readJson<PartReport>(p, `${plan.reportPrefix}part-1.json`);
    // The campaign was created to wait for its window; the guard secured it and says so.
    expect(report).toMatchObject({
      status: 'failed',
      failure: {
        code: 'workflow_timed_out',
        message: expect.stringMatching(/^the workflow timed out; the guard left/),
      },
    });
    expect(placedCalls(p, agent.id)).toEqual([]);
  }, 90_000);
});
