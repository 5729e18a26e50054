import { describe, expect, it } from 'vitest';
import type { IntakeReport } from '#intake/report.ts';
import type { PartReport } from '#lifecycle/part-report.ts';
import { readJson, uploadAndRun, usePipeline } from '../helpers/pipeline.ts';
import { contactSheet, phones, xlsx } from '../helpers/sheets.ts';

const p = usePipeline();

describe('campaign lifecycle on the local stack', () => {
  it('launches at once, watches the campaign until nobody is left to call, and writes the report', async () => {
    const agent = await p.f.api.agents.create({ name: 'Immediate' });
    const body = await xlsx(contactSheet(phones(5, '+1415570')));
    const key = `incoming/${agent.id}/now.xlsx`;
    const executions = await uploadAndRun(p, key, body, { 'calling-window': 'daily 00:00-24:00' });
    expect(executions.map((e) => [e.status, e.error, e.cause])).toEqual([['SUCCEEDED', null, null]]);
    const plan = JSON.parse(executions[0]?.input ?? '{}').plan;
    const report = await readJson<PartReport>(p, `${plan.reportPrefix}part-1.json`);
    expect(report.status).toBe('completed');
    expect(report.stats!.pending + report.stats!.in_progress).toBe(0);
    expect(report.stats!.completed + report.stats!.failed).toBe(5);
    expect(report.stateTransitions).toBeGreaterThan(4);
    const intakeReport = await readJson<IntakeReport>(p, `${plan.reportPrefix}report.json`);
    expect(intakeReport.status).toBe('launched');
  });
});
