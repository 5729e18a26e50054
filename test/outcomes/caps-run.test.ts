import { describe, expect, it } from 'vitest';
import { placedCalls, readJson, toLegalMorning, uploadAndRun, usePipeline } from '../helpers/pipeline.ts';
import { phones, xlsx } from '../helpers/sheets.ts';

// At most 2 calls to one number in 24 hours, and 2 in 7 days, across every campaign.
const p = usePipeline({ CALL_CAP_PER_DAY: '2', CALL_CAP_PER_WEEK: '2' });

interface IntakeReport {
  rows: { valid: number; rejected: number };
  rejected: { row: number; reason: string; input: string }[];
  parts: { rows: number }[];
}

describe('frequency caps on the embedded stack', () => {
  it('hold across campaigns: a number over its daily or weekly cap is skipped at intake with the reason', async () => {
    const t0 = await toLegalMorning(p);
    await p.f.admin.configure({ answerRate: 0 }); // every attempt fails, so every retry dials
    const agent = await p.f.api.agents.create({ name: 'caps' });
    const [a, b, c] = phones(3, '+1415583') as [string, string, string];
    const upload = async (name: string, numbers: string[], retries: number) => {
      const executions = await uploadAndRun(
        p,
        `incoming/${agent.id}/${name}.xlsx`,
        await xlsx([['Phone Number'], ...numbers.map((n) => [n])]),
        { 'calling-window': 'daily 00:00-24:00', retries: String(retries) },
      );
      expect(executions.map((e) => e.status)).toEqual(['SUCCEEDED']);
      const plan = JSON.parse(executions[0]?.input ?? '{}').plan;
      return readJson<IntakeReport>(p, `${plan.reportPrefix}report.json`);
    };
    const dials = (phone: string) => placedCalls(p, agent.id).filter((k) => k.phone_number === phone).length;

    // First campaign: one call each to a and b.
    const first = await upload('first', [a, b], 0);
    expect(first.rejected).toEqual([]);
    // Second, the same day, up to 2 calls each (1 retry): a would reach 3 in 24 hours, c is new.
    const second = await upload('second', [a, c], 1);
    expect(second.rejected).toEqual([{ row: 2, reason: 'daily-cap', input: a }]);
    expect(second.rows).toEqual({ total: 2, valid: 1, rejected: 1 });
    expect([dials(a), dials(b), dials(c)]).toEqual([1, 1, 2]);

    // Two days later the day is clear but the week is not: 1 + 2 calls to b would pass 2 in 7 days.
    await p.f.admin.setClock(new Date(t0 + 2 * 86_400_000));
    const third = await upload('third', [b, c, phones(1, '+1415584')[0] as string], 1);
    expect(third.rejected.map((r) => [r.input, r.reason])).toEqual([
      [b, 'weekly-cap'],
      [c, 'weekly-cap'],
    ]);
    expect([dials(a), dials(b), dials(c)]).toEqual([1, 1, 2]);
  });
});
