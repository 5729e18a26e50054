import { describe, expect, it } from 'vitest';
import { documentClient, sfnClient } from '#commons/aws/clients.ts';
import type { PartOutcomes } from '#commons/part-outcomes.ts';
import type { Call } from '#commons/voice-api/types.ts';
import { CampaignStore } from '#lifecycle/campaign-store.ts';
import { readLifecycleConfig } from '#lifecycle/config.ts';
import { buildPartEndOutcomes } from '#lifecycle/part-end/build-part-end.ts';
import type { PartReport } from '#lifecycle/part-report.ts';
import { deliverEmulatorWebhooks } from '#local/stack/webhook-receiver.ts';

/** The outcomes of a part that recorded them (an `{ error }` would fail the assertions on it). */
const done = (r: PartReport) => r.outcomes as PartOutcomes;

import { auditCalls } from '../helpers/call-audit.ts';
import { placedCalls, readJson, toLegalMorning, uploadAndRun, uploadOnly, usePipeline } from '../helpers/pipeline.ts';
import { phones, xlsx } from '../helpers/sheets.ts';

const p = usePipeline();

const hourInLosAngeles = (iso: string) =>
  Number(
    new Intl.DateTimeFormat('en-US', { timeZone: 'America/Los_Angeles', hour: '2-digit', hourCycle: 'h23' }).format(
      new Date(iso),
    ),
  );

describe('follow-up rounds on the embedded stack', () => {
  it('calls again only who its rule picks, never a number that opted out on a call mid-campaign, in the next legal window', async () => {
    const t0 = await toLegalMorning(p); // a weekday, 10:00 in Los Angeles
    await deliverEmulatorWebhooks(p.f.emu.url, p.stack.webhooks, { answerRate: 0 }); // every dial: no answer or busy
    const agent = await p.f.api.agents.create({ name: 'followup', greeting_line: 'Hello from callsheet.' });
    const [optedOut, b, c] = phones(3, '+1415582') as [string, string, string];
    const body = await xlsx([
      ['Phone Number', 'Name', 'Custom Instruction'],
      [optedOut, 'Opt', null],
      [b, 'Bee', 'Ask for the manager.'],
      [c, 'Cee', null],
    ]);
    const scheduler = p.stack.scheduler;
    if (!scheduler) throw new Error('the pipeline runs on simulated time');
    // Time stands still until the opt-out below is scripted: intake and the campaign's creation happen at 10:00.
    scheduler.join('test');
    const started = await uploadOnly(p, `incoming/${agent.id}/followup.xlsx`, body, {
      'calling-window': 'daily 00:00-24:00',
      start: new Date(t0 + 2 * 3_600_000).toISOString().slice(0, 19),
      'time-zone': 'UTC',
      retries: '0',
      // 12 hours after a noon campaign is past midnight: the round must wait for 09:00 (Cal. Pub. Util. Code § 2872(c)).
      'follow-up': 'no_answer, busy after 12h; rounds 2',
    });
    // While the campaign waits for its noon start, the first contact answers another call and asks not to be called.
    const optOut = scheduler.at(t0 + 30 * 60_000, async () => {
      await p.f.admin.configure({ answerRate: 1 });
      await p.f.api.calls.start({
        agent_id: agent.id,
        phone_number: optedOut,
        custom_instructions: '[emulator:opt-out]',
      });
      await p.f.admin.advance(600);
      await p.f.emu.core.webhooks.settled();
      await p.stack.webhooks.queue.idle();
      await p.f.admin.configure({ answerRate: 0 });
    });
    scheduler.leave('test');
    await p.stack.sfn.settled();
    const executions = started();
    await optOut;
    expect(executions.map((e) => [e.status, e.cause ?? null])).toEqual([
      ['SUCCEEDED', null],
      ['SUCCEEDED', null],
      ['SUCCEEDED', null],
    ]);
    const [rootPlan, roundPlan] = executions.map((e) => JSON.parse(e.input ?? '{}').plan);
    expect(roundPlan.followUp).toMatchObject({ round: 2, rootPartKey: rootPlan.followUp.rootPartKey });

    const root = await readJson<PartReport>(p, `${rootPlan.reportPrefix}part-1.json`);
    expect(root.status).toBe('completed');
    expect(done(root).suppressedMidCampaign).toEqual([optedOut]);
    expect(done(root).followUp?.skipped).toEqual([{ phone: optedOut, reason: 'suppressed' }]);
    // The first part's report lists both rounds: the second, started by its own end, and the third, by the second's.
    expect(root.followUpRounds?.map((r) => [r.round, r.partKey, r.contacts])).toEqual([
      [2, `${root.rootPartKey}-r2a`, 2],
      [3, `${root.rootPartKey}-r2a-r3a`, 2],
    ]);

    // Outcomes as the emulator recorded the calls: every contact, its attempts and its last status.
    const state = await p.f.admin.state<{ calls: Call[] }>();
    const rootCalls = state.calls.filter((k) => k.campaign_id === root.campaignId);
    expect(rootCalls.map((k) => k.phone_number).sort()).toEqual([optedOut, b, c].sort());
    expect(root.outcomes).toMatchObject({ contacts: 3, attempts: 3, byLastStatus: { failed: 3 } });
    const csv = (await p.stack.objects.get(p.stack.bucket, done(root).exports.csv))?.bytes.toString('utf8') ?? '';
    const rows = csv.trimEnd().split('\r\n').slice(1);
    expect(rows).toHaveLength(3);
    for (const call of rootCalls) {
      const row = rows.find((r) => r.startsWith(`"${call.phone_number}",`));
      expect(row, call.phone_number).toContain(`,1,"failed","${call.failure_reason}",`);
      expect(row).toContain(call.id);
    }

    // Each round: the two others only, its sheet keeping their custom instructions, dialled only inside the legal window.
    for (const round of root.followUpRounds ?? []) {
      const roundReport = await readJson<PartReport>(p, round.report.replace(`s3://${p.stack.bucket}/`, ''));
      expect(roundReport).toMatchObject({ status: 'completed', round: round.round, rootPartKey: root.rootPartKey });
      expect(done(roundReport).followUp?.none ?? null).toBe(
        round.round === 3 ? 'the last of 2 follow-up round(s)' : null,
      );
      const roundCalls = state.calls.filter((k) => k.campaign_id === roundReport.campaignId);
      expect(roundCalls.map((k) => k.phone_number).sort()).toEqual([b, c].sort());
      expect(roundCalls.find((k) => k.phone_number === b)?.custom_instructions).toBe('Ask for the manager.');
      // Round 2 may start past midnight, so it waits for California's 09:00; round 3 may start 12 hours after round
      // 2's 09:xx end, at 21:xx, past the close, so it waits for 09:00 the next day too.
      expect(hourInLosAngeles(round.notBefore)).toBe(round.round === 2 ? 0 : 21);
      for (const k of roundCalls) {
        expect((k.started_at ?? '') >= round.notBefore, `${k.started_at} is before ${round.notBefore}`).toBe(true);
        expect(hourInLosAngeles(k.started_at as string)).toBe(9);
      }
      const audited = roundCalls.map((k) => ({
        phone_number: k.phone_number as string,
        started_at: k.started_at ?? null,
      }));
      expect(await auditCalls(audited, { hours: 'Mon-Sun 09:00-21:00', closingMarginMinutes: 5 })).toEqual([]);
    }
    expect(placedCalls(p, agent.id).filter((k) => k.phone_number === optedOut)).toHaveLength(2); // the call and round 1

    // A retried finish of the first round writes the same and starts no second round 2.
    const config = readLifecycleConfig(p.stack.env);
    if (!config.outcomes) throw new Error('the stack sets OUTCOMES_TABLE');
    const reporter = await buildPartEndOutcomes(config.outcomes.config, config.outcomes.caps, {
      sfn: sfnClient(config.aws),
      objects: p.stack.objects,
      rounds: new CampaignStore(documentClient(config.aws), config.campaignsTable),
    });
    const before = p.stack.sfn.executions.size;
    const again = await reporter.atPartEnd({
      plan: rootPlan,
      partKey: root.rootPartKey!,
      label: '1',
      campaignId: root.campaignId!,
      status: 'completed',
      startedAt: new Date(root.startedAt),
      endedAt: new Date(root.finishedAt),
      execution: executions[0]?.executionArn ?? '',
    });
    expect(again.followUp?.started).toEqual(root.followUpRounds?.slice(0, 1));
    expect(p.stack.sfn.executions.size).toBe(before);
  });
});

describe('outcomes at a part end that cannot be read', () => {
  it('still writes the part report and its event, saying why the outcomes are missing, and starts no round', async () => {
    await toLegalMorning(p);
    await p.f.admin.configure({ answerRate: 0 });
    const agent = await p.f.api.agents.create({ name: 'no-outcomes' });
    // The calls list answers 500 from now on: the reconcile at the part's end fails after its retries.
    await p.f.admin.fault({ method: 'GET', path: '/calls', match: 'exact', status: 500, count: 50 });
    const executions = await uploadAndRun(
      p,
      `incoming/${agent.id}/no-outcomes.xlsx`,
      await xlsx([['Phone Number'], ...phones(2, '+1415585').map((n) => [n])]),
      { 'calling-window': 'daily 00:00-24:00', retries: '0', 'follow-up': 'no_answer, busy after 1h' },
    );
    await p.f.admin.clearFaults();
    expect(executions.map((e) => e.status)).toEqual(['SUCCEEDED']);
    const plan = JSON.parse(executions[0]?.input ?? '{}').plan;
    const report = await readJson<{ status: string; outcomes: { error?: string }; followUpRounds?: unknown }>(
      p,
      `${plan.reportPrefix}part-1.json`,
    );
    expect(report.status).toBe('completed');
    expect(report.outcomes.error).toMatch(/^outcomes not recorded: /);
    expect(report.followUpRounds).toBeUndefined();
    const event = p.stack.events.events.find((e) => JSON.stringify(e.Detail).includes(plan.uploadId));
    expect(event?.DetailType).toBe('Campaign Completed');
  });
});
