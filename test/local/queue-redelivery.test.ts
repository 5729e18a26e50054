import { describe, expect, it } from 'vitest';
import { OutcomeStore } from '#commons/outcomes/outcome-store.ts';
import type { Call } from '#commons/voice-api/types.ts';
import { signWebhook } from '#commons/voice-api/webhooks.ts';
import { uploadOnly, usePipeline } from '../helpers/pipeline.ts';
import { contactSheet, phones, xlsx } from '../helpers/sheets.ts';
import { stackDb } from '../outcomes/webhook-run.ts';

/**
 * The embedded stack's queues redeliver as SQS does: a message its function failed on comes back after the
 * queue's visibility timeout (as infra sets it) on the stack's clock, and is dead-lettered only after the
 * deployed number of receives. Here the failure is the account's API budget, spent for the minute: nothing may
 * end in the dead letters for want of a token that a later minute gives back.
 */
// A plan of 12 a minute: the lifecycle and safety shares take 3 each, leaving everyone else 6.
const p = usePipeline({ API_BUDGET_PER_MINUTE: '12', API_BUDGET_PER_HOUR: '0' });

describe('call events beyond the API budget (outcomes queue: six minutes, five receives)', () => {
  it('wait out the queue visibility timeout and are all recorded, none dead-lettered', async () => {
    await p.f.admin.setClock('2026-03-02T09:00:00Z');
    const agent = await p.f.api.agents.create({ name: 'Burst', greeting_line: 'Hello.' });
    const numbers = Array.from({ length: 15 }, (_, i) => `+1415555${String(2100 + i)}`);
    const started = await p.f.api.calls.bulkInitiate(
      agent.id,
      numbers.map((phone_number) => ({ phone_number })),
    );
    const ids = started.results.map((r) => r.call_id as string);
    expect(ids).toHaveLength(15);
    // Every call over; then one second into a minute, so a wait for the next one is longer than the processor's 30 s.
    await p.f.admin.setClock('2026-03-02T10:30:01Z');
    const calls = new Map(
      (await p.f.admin.state<{ calls: Call[] }>()).calls.filter((c) => ids.includes(c.id)).map((c) => [c.id, c]),
    );
    expect([...calls.values()].every((c) => ['completed', 'failed'].includes(c.status))).toBe(true);

    const deadBefore = p.stack.webhooks.queue.deadLetters.length;
    const from = p.f.emu.core.clock.now();
    // The burst arrives at one instant: time stands still until every event has been acknowledged.
    const scheduler = p.stack.scheduler;
    if (!scheduler) throw new Error('simulated stack expected');
    scheduler.join('burst');
    let answers: number[];
    try {
      answers = await Promise.all(
        ids.map(async (id, i) => {
          const body = JSON.stringify({
            event: 'call.completed',
            timestamp: '2026-03-02T10:30:00.000Z',
            data: {
              call_id: id,
              agent_id: agent.id,
              duration: 30,
              status: 'completed',
              transcript_url: null,
              recording_url: null,
              metadata: { campaign_id: null, phone_number: numbers[i], contact_name: null },
            },
          });
          const res = await fetch(p.stack.webhooks.url, {
            method: 'POST',
            headers: {
              'content-type': 'application/json',
              'X-VoiceAgent-Signature': signWebhook(body, p.stack.webhooks.secret),
            },
            body,
          });
          await res.arrayBuffer();
          return res.status;
        }),
      );
    } finally {
      scheduler.leave('burst');
    }
    expect(answers).toEqual(ids.map(() => 202));
    await p.stack.webhooks.queue.idle();

    expect(p.stack.webhooks.queue.deadLetters).toHaveLength(deadBefore);
    const store = new OutcomeStore(stackDb(p), p.stack.dynamo.tables.outcomes);
    const recorded = await Promise.all(ids.map((id) => store.get(id)));
    expect(recorded.map((o) => o?.status)).toEqual(ids.map((id) => calls.get(id)?.status));
    // 6 a minute: the first six at once, the rest over two redeliveries six simulated minutes apart.
    expect(p.f.emu.core.clock.now() - from).toBeGreaterThanOrEqual(12 * 60_000);
  });
});

describe('an upload while the API budget is spent (intake queue: thirty minutes, five receives)', () => {
  it("intake's agent look-up fails, and the upload is taken up again half an hour later, not dead-lettered", async () => {
    await p.f.admin.setClock('2026-03-03T09:00:01Z');
    const agent = await p.f.api.agents.create({ name: 'Later', greeting_line: 'Hello.' });
    // Another caller (a contact sync, say) has taken the minute's six shared tokens.
    for (let i = 0; i < 6; i++) await p.stack.budget('shared').take();
    const from = p.f.emu.core.clock.now();
    const started = await uploadOnly(
      p,
      `incoming/${agent.id}/later.xlsx`,
      await xlsx(contactSheet(phones(3, '+1415579'))),
      { 'calling-window': 'daily 00:00-24:00' },
    );
    expect(p.stack.intakeQueue.deadLetters).toEqual([]);
    const executions = started();
    expect(executions).toHaveLength(1);
    expect(executions[0]?.startDate.getTime()).toBeGreaterThanOrEqual(from + 30 * 60_000);
    await p.stack.sfn.settled();
    expect(started().map((e) => e.status)).toEqual(['SUCCEEDED']);
  });
});
