import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { documentClient } from '#commons/aws/clients.ts';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '#local/stack/local-aws.ts';
import type { LoggedRequest } from '../helpers/emulator.ts';
import { auditRecords, partReports, placedCalls, uploadAndRun, usePipeline } from '../helpers/pipeline.ts';
import { contactSheet, phones, xlsx } from '../helpers/sheets.ts';

// A plan of 20 requests a minute and only 60 an hour, which the account's budget mirrors, and workflows that would
// look at their campaigns every 30 to 60 seconds: unplanned, their polls alone would spend each hour's plan.
const PLAN = { rateLimitPerMinute: 20, rateLimitPerHour: 60 };
const p = usePipeline(
  { API_BUDGET_PER_MINUTE: '20', API_BUDGET_PER_HOUR: '60', POLL_MIN_SECONDS: '30', POLL_MAX_SECONDS: '60' },
  // Two lines and 120 numbers a zone dial as long as five lines and 300 would, at two fifths of the calls.
  { emulator: { settings: { ...PLAN, concurrency: 2, credits: 1_000_000 } } },
);

const WINDOW = 'Mon-Fri 10:00-11:00';
const MARGIN_MINUTES = 5;
// New York, Chicago, Denver: each part's hour of calling closes at 11:00 local, an hour after the last.
const PREFIXES = ['+1212555', '+1312555', '+1303555'];

describe('polls that would spend the plan before the close', () => {
  it('are spaced to the plan: every part is paused before its margin, nobody called after it', async () => {
    await p.f.admin.setClock('2026-12-07T14:59:00Z');
    const agent = await p.f.api.agents.create({ name: 'Plan spent' });
    await p.f.admin.setClock('2026-12-07T15:00:00Z');
    const numbers = PREFIXES.flatMap((prefix) => phones(120, prefix));
    const executions = await uploadAndRun(
      p,
      `incoming/${agent.id}/three-zones.xlsx`,
      await xlsx(contactSheet(numbers)),
      {
        'calling-window': WINDOW,
      },
    );
    const calls = placedCalls(p, agent.id);
    expect(calls.filter((c) => c.started_at).length).toBeGreaterThanOrEqual(numbers.length);
    // Nor could a campaign have dialled outside the window, had more lines been free.
    expect(await auditRecords(p, agent.id, { hours: WINDOW, closingMarginMinutes: MARGIN_MINUTES })).toEqual([]);
    const log = await p.f.admin.requests<LoggedRequest[]>();
    // The looks share the polls' plan (half of 60 less both reserves of 15: 15 an hour) between the parts polling,
    // instead of each part polling every 30 to 60 s, which alone would ask for 180 an hour.
    const statsPerHour = new Map<string, number>();
    for (const r of log.filter((x) => x.path.endsWith('/stats') && x.status !== 429))
      statsPerHour.set(r.at.slice(0, 13), (statsPerHour.get(r.at.slice(0, 13)) ?? 0) + 1);
    expect(statsPerHour.size).toBeGreaterThanOrEqual(PREFIXES.length);
    expect(Math.max(...statsPerHour.values())).toBeLessThanOrEqual(15);
    // Each look is one look: the local runner's Wait is not skipped (it was every other time, doubling the polls).
    const looks = new Map<string, number>();
    for (const r of log.filter((x) => x.path.endsWith('/stats')))
      looks.set(`${r.at} ${r.path}`, (looks.get(`${r.at} ${r.path}`) ?? 0) + 1);
    expect([...looks].filter(([, n]) => n > 1)).toEqual([]);
    // Each part booked its pause's minute with the budget, so the sync and polls would have left it a token.
    const db = documentClient({
      region: LOCAL_REGION,
      endpoints: { dynamodb: p.stack.dynamo.endpoint },
      credentials: LOCAL_CREDENTIALS,
    });
    const items = (await db.send(new ScanCommand({ TableName: p.stack.dynamo.tables.apiBudget }))).Items ?? [];
    // Each part books its pause's minute and the next (the parts of a minute in `booked#<minute>`), and the hour's item
    // counts them (`b<minute>`): never fewer than the parts recorded.
    const booked = items
      .filter((i) => String(i.pk).startsWith('booked#'))
      .reduce((n, i) => n + (i.parts as Set<string>).size, 0);
    expect(booked).toBeGreaterThanOrEqual(2 * PREFIXES.length);
    const counted = items
      .flatMap((i) => Object.entries(i).filter(([k]) => /^b\d+$/.test(k)))
      .reduce((n, [, v]) => n + Number(v), 0);
    expect(counted).toBeGreaterThanOrEqual(booked);
    const pauses = log.filter((r) => r.method === 'PATCH' && /\/campaigns\/[^/]+\/pause$/.test(r.path));
    expect(pauses.filter((r) => r.status === 200).length).toBeGreaterThanOrEqual(PREFIXES.length);
    const reports = await partReports(p, executions);
    expect(reports.map((r) => r.status)).toEqual(PREFIXES.map(() => 'completed'));
  }, 600_000);
});
