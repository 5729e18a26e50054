import { describe, expect, it } from 'vitest';
import type { LoggedRequest } from '../helpers/emulator.ts';
import { partReports, uploadAndRun, usePipeline } from '../helpers/pipeline.ts';
import { contactSheet, phones, xlsx } from '../helpers/sheets.ts';

// A plan of 4 requests a minute, which the account's budget mirrors: six parts need twelve requests to launch
// (agent check and create), so most of them find this minute's budget spent and must wait for a later one.
const PLAN = { rateLimitPerMinute: 4, rateLimitPerHour: 0 };
const p = usePipeline(
  { API_BUDGET_PER_MINUTE: '4', API_BUDGET_PER_HOUR: '0' },
  { emulator: { settings: { ...PLAN, concurrency: 20, credits: 1_000_000 } } },
);

// Six US zones, one part each. Monday 2026-12-07 19:00Z is 14:00 in New York and 09:00 in Honolulu: every
// part's window is open.
const PREFIXES = ['+1212555', '+1312555', '+1303555', '+1415555', '+1907555', '+1808555'];

describe('many parts launching at once on a small plan', () => {
  it('waits for the budget instead of failing: every part launches and completes', async () => {
    // The agent is made a minute earlier: that request is not the budget's, and must not count in its minutes.
    await p.f.admin.setClock('2026-12-07T18:59:00Z');
    const agent = await p.f.api.agents.create({ name: 'Many parts' });
    await p.f.admin.setClock('2026-12-07T19:00:00Z');
    const numbers = PREFIXES.flatMap((prefix) => phones(5, prefix));
    const executions = await uploadAndRun(p, `incoming/${agent.id}/six-zones.xlsx`, await xlsx(contactSheet(numbers)), {
      'calling-window': 'Mon-Fri 09:00-20:00',
    });
    const reports = await partReports(p, executions);
    expect(reports).toHaveLength(PREFIXES.length);
    expect(reports.map((r) => [r.status, r.failure?.code ?? null])).toEqual(reports.map(() => ['completed', null]));
    // The creates were spread over the minutes the plan allows, and the service never had to refuse one.
    const log = await p.f.admin.requests<LoggedRequest[]>();
    const creates = log.filter((r) => r.method === 'POST' && r.path.endsWith('/campaigns') && r.status < 300);
    expect(creates).toHaveLength(PREFIXES.length);
    expect(new Set(creates.map((r) => r.at.slice(0, 16))).size).toBeGreaterThanOrEqual(2);
    expect(log.filter((r) => r.status === 429).map((r) => `${r.at} ${r.method} ${r.path}`)).toEqual([]);
  });
});
