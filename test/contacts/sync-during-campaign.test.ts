import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { describe, expect, it } from 'vitest';
import type { PartReport } from '#lifecycle/part-report.ts';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '#local/stack/local-aws.ts';
import { wallTime } from '../helpers/call-audit.ts';
import type { LoggedRequest } from '../helpers/emulator.ts';
import { auditRecords, placedCalls, readJson, uploadOnly, usePipeline } from '../helpers/pipeline.ts';
import { contactSheet, phones, xlsx } from '../helpers/sheets.ts';
import { emulatorContact } from './harness.ts';

/**
 * The rehearsal that matters for the shared API budget: a 2,000-event contact sync (JSON lines dropped under
 * contacts/, plus replays on the bus) during a 400-contact campaign whose window closes while the sync is still
 * pushing, on the embedded stack with a tight plan the emulator enforces. Everything is checked from the emulator's
 * own records: its request log (pauses, 429s, bulk pushes), its calls (the independent auditor) and its contacts.
 */

// A plan of 6 requests a minute, 360 an hour, which the account's budget mirrors; 5 a minute are the lifecycle's
// (3 for anything, 2 kept for pauses), so the sync gets 1 and waits up to a minute for each (20 bulk pushes: 20
// minutes, across the close). The scale of a real sync under the real plan is the bench's (bench/simulation.ts).
const PLAN = { rateLimitPerMinute: 6, rateLimitPerHour: 360 };
const p = usePipeline(
  {
    API_BUDGET_PER_MINUTE: '6',
    API_BUDGET_PER_HOUR: '360',
    API_BUDGET_LIFECYCLE_PER_MINUTE: '3',
    API_BUDGET_SAFETY_PER_MINUTE: '2',
    API_BUDGET_MAX_WAIT_SECONDS: '60',
  },
  // 400 numbers on 20 lines dial for as long as 1,000 on 50: into the close and past it, at two fifths of the calls.
  { emulator: { settings: { ...PLAN, concurrency: 20, credits: 1_000_000 } } },
);

const ZONE = 'America/Los_Angeles';
const WINDOW = 'Mon-Fri 10:00-11:00';
const MARGIN_MINUTES = 5;
// Monday 2026-12-07, 10:50 in San Francisco: ten minutes before the window closes at 11:00 (19:00Z).
const START = '2026-12-07T18:50:00Z';
const CLOSE = Date.parse('2026-12-07T19:00:00Z');

describe('a contact sync during a campaign, on one API budget', () => {
  it('pauses before the close while 2,000 events sync, no 429 reaches the lifecycle, each event applied once', async () => {
    await p.f.admin.setClock(START);
    const numbers = phones(400, '+1415557');
    // Every contact of the campaign changes in the CRM meanwhile.
    const synced = numbers;
    const events = Array.from({ length: synced.length * 5 }, (_, i) => {
      // A CRM's burst: each contact's five changes one after another.
      const round = i % 5;
      const phone = synced[Math.floor(i / 5)] as string;
      return { event_id: `crm-${i}`, phone_number: phone, tags: [`round-${round}`], note: `round ${round}` };
    });
    const agent = await p.f.api.agents.create({ name: 'Sync rehearsal' });
    const scheduler = p.stack.scheduler;
    if (!scheduler) throw new Error('the pipeline runs on simulated time');

    // Time stands still until both the campaign's workflow and the contact file are under way.
    scheduler.join('test');
    const started = await uploadOnly(p, `incoming/${agent.id}/campaign.xlsx`, await xlsx(contactSheet(numbers)), {
      'calling-window': WINDOW,
    });
    await p.stack.s3Client.send(
      new PutObjectCommand({
        Bucket: p.stack.bucket,
        Key: 'contacts/crm.jsonl',
        Body: `${events.map((e) => JSON.stringify(e)).join('\n')}\n`,
      }),
    );
    // Two minutes before the close, the CRM replays 200 events on the bus (EventBridge redelivers, producers retry).
    const bus = new EventBridgeClient({
      region: LOCAL_REGION,
      endpoint: p.stack.env.AWS_ENDPOINT_URL_EVENTBRIDGE,
      credentials: LOCAL_CREDENTIALS,
    });
    const replays = scheduler.at(CLOSE - 2 * 60_000, async () => {
      for (let i = 0; i < 200; i += 10) {
        const out = await bus.send(
          new PutEventsCommand({
            Entries: events.slice(i, i + 10).map((e) => ({
              EventBusName: 'callsheet',
              Source: 'crm',
              DetailType: 'Contact Upserted',
              Detail: JSON.stringify(e),
            })),
          }),
        );
        expect(out.FailedEntryCount).toBe(0);
      }
    });
    scheduler.leave('test');
    await p.stack.sfn.settled();
    await replays;
    await p.stack.contacts.settle();
    bus.destroy();

    const [execution] = started();
    expect([execution?.status, execution?.cause]).toEqual(['SUCCEEDED', null]);
    const plan = JSON.parse(execution?.input ?? '{}').plan;
    const report = await readJson<PartReport>(p, `${plan.reportPrefix}part-1.json`);
    expect(report.status).toBe('completed');

    const log = await p.f.admin.requests<LoggedRequest[]>();
    const at = (r: LoggedRequest) => Date.parse(r.at);
    const bulk = log.filter((r) => r.path.endsWith('/contacts/bulk'));
    // The window closed mid-sync: pushes before the close and after it.
    expect(Math.min(...bulk.map(at))).toBeLessThan(CLOSE - MARGIN_MINUTES * 60_000);
    expect(Math.max(...bulk.map(at))).toBeGreaterThan(CLOSE);
    // Every confirmed pause landed inside the window, before its closing margin (10:55 in San Francisco).
    const pauses = log.filter((r) => r.method === 'PATCH' && /\/campaigns\/[^/]+\/pause$/.test(r.path));
    expect(pauses.some((r) => r.status === 200 && at(r) < CLOSE)).toBe(true);
    for (const r of pauses.filter((x) => x.status === 200)) {
      const local = wallTime(at(r), ZONE);
      expect([r.at, local.minute >= 10 * 60 && local.minute < 11 * 60 - MARGIN_MINUTES]).toEqual([r.at, true]);
    }
    // The sync met the plan's limit (429s on its pushes are allowed); nothing else ever did.
    expect(log.filter((r) => r.status === 429 && !r.path.endsWith('/contacts/bulk'))).toEqual([]);
    // No call started outside the window or in its closing margin (the independent auditor).
    const calls = placedCalls(p, agent.id);
    expect(calls.filter((c) => c.started_at).length).toBeGreaterThanOrEqual(numbers.length);
    // Nor could a campaign have dialled outside the window, had more lines been free.
    expect(await auditRecords(p, agent.id, { hours: WINDOW, closingMarginMinutes: MARGIN_MINUTES })).toEqual([]);

    // Every event applied exactly once, replays included: each contact has its five notes once, in order.
    expect(p.stack.contacts.queue.deadLetters).toEqual([]);
    const rounds = [0, 1, 2, 3, 4];
    for (const phone of synced) {
      const contact = await emulatorContact(p.f, phone);
      expect([phone, contact?.notes]).toEqual([phone, rounds.map((r) => `round ${r}`)]);
      expect([phone, contact?.tags]).toEqual([phone, rounds.map((r) => `round-${r}`)]);
    }
  }, 600_000);
});
