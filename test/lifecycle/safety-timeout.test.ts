import { describe, expect, it } from 'vitest';
import { auditCalls } from '../helpers/call-audit.ts';
import { placedCalls, toLegalMorning, uploadAndRun, usePipeline } from '../helpers/pipeline.ts';
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
    await p.stack.guardIdle();
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
});
