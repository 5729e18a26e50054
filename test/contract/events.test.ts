import { afterEach, describe, expect, it } from 'vitest';
import { type LiveMessage, parseWebhook, verifyWebhook } from '#commons/voice-api/index.ts';
import { advanceUntil, useEmulator } from '../helpers/emulator.ts';
import { xlsx } from '../helpers/sheets.ts';
import { startReceiver } from '../helpers/webhook-receiver.ts';

const f = useEmulator();
const SECRET = 'whsec_test_secret';
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of closers.splice(0)) await c();
});

async function completedCall(answerRate: number) {
  await f.admin.configure({ answerRate });
  const agent = await f.api.agents.create({ name: 'Eventful', greeting_line: 'Hi from the test.' });
  const call = await f.api.calls.start({ agent_id: agent.id, phone_number: '+14155552671', contact_name: 'Eve' });
  return { agent, call };
}

describe('webhooks', () => {
  it('posts signed call.started, call.completed, transcript.ready and recording.ready with the contract payload', async () => {
    const receiver = await startReceiver();
    closers.push(receiver.close);
    await f.admin.configure({ webhookUrl: receiver.url, webhookSecret: SECRET });
    const { agent, call } = await completedCall(1);
    await advanceUntil(f.admin, async () => (await f.api.calls.get(call.id)).status === 'completed');
    await f.admin.advance(60); // transcript.ready and recording.ready follow the end of the call
    await f.emu.core.webhooks.settled();

    const events = receiver.received.map((r) => parseWebhook(r.body, r.headers, SECRET));
    expect(events.map((e) => e.event)).toEqual([
      'call.started',
      'call.completed',
      'transcript.ready',
      'recording.ready',
    ]);
    for (const r of receiver.received) {
      expect(r.headers['x-voiceagent-signature']).toMatch(/^[0-9a-f]{64}$/);
      expect(verifyWebhook(r.body, r.headers['x-voiceagent-signature'] as string, 'wrong secret')).toBe(false);
    }
    const done = events[1];
    expect(done).toMatchObject({
      event: 'call.completed',
      timestamp: expect.any(String),
      data: {
        call_id: call.id,
        agent_id: agent.id,
        status: 'completed',
        duration: expect.any(Number),
        transcript_url: expect.stringContaining(call.id),
        recording_url: expect.stringContaining(call.id),
        metadata: { phone_number: '+14155552671', contact_name: 'Eve', campaign_id: null },
      },
    });
    const transcript = (await (await fetch(done?.data.transcript_url as string)).json()) as {
      transcript: { text: string }[];
    };
    expect(transcript.transcript[0]?.text).toContain('Hi from the test.');
  });

  it('sends call.failed for unanswered calls and retries a receiver that fails', async () => {
    let answers = 0;
    const receiver = await startReceiver(() => (answers++ === 0 ? 500 : 204));
    closers.push(receiver.close);
    await f.admin.configure({ webhookUrl: receiver.url, webhookSecret: SECRET });
    const { call } = await completedCall(0);
    await advanceUntil(f.admin, async () => (await f.api.calls.get(call.id)).status === 'failed');
    await f.emu.core.webhooks.settled();
    expect(receiver.received).toHaveLength(2); // the first delivery answered 500 and was sent again
    expect(receiver.received[0]?.body.equals(receiver.received[1]?.body as Buffer)).toBe(true);
    expect(
      parseWebhook(receiver.received[1]?.body as Buffer, receiver.received[1]?.headers ?? {}, SECRET),
    ).toMatchObject({
      event: 'call.failed',
      data: { call_id: call.id, status: 'failed', duration: 0 },
    });
    const state = await f.admin.state<{ webhook_deliveries: { attempts: number; status: number }[] }>();
    expect(state.webhook_deliveries).toEqual([expect.objectContaining({ attempts: 2, status: 204 })]);
  });
});

describe('reset', () => {
  it('forgets everything the old account had scheduled: nothing it started reaches a receiver configured later', async () => {
    const receiver = await startReceiver();
    closers.push(receiver.close);
    await f.admin.configure({ answerRate: 0 });
    const agent = await f.api.agents.create({ name: 'Before reset' });
    await f.api.campaigns.create({
      file: await xlsx([['Phone Number'], ['+14155552671']]),
      fileName: 'r.xlsx',
      agent_id: agent.id,
      name: 'R',
      retries: 1,
    });
    await f.admin.advance(60); // the first attempt fails; its retry is due in ten minutes
    await f.admin.reset();
    await f.admin.configure({ webhookUrl: receiver.url, webhookSecret: SECRET });
    await f.admin.advance(3600);
    await f.emu.core.webhooks.settled();
    expect(receiver.received).toHaveLength(0);
    expect(f.emu.core.clock.pendingEvents()).toBe(0);
  });
});

describe('live channel (/v1/ws)', () => {
  it('streams call.started, transcript updates and call.completed to a subscriber', async () => {
    const { call } = await completedCall(1);
    const live = await f.api.live();
    closers.push(async () => live.close());
    await live.subscribe(call.id);
    const messages: LiveMessage[] = [];
    live.onMessage((m) => messages.push(m));
    await advanceUntil(f.admin, async () => (await f.api.calls.get(call.id)).status === 'completed');
    await live.next((m) => m.type === 'call.completed');
    const types = messages.map((m) => m.type);
    expect(types[0]).toBe('call.started');
    expect(types.at(-1)).toBe('call.completed');
    const finals = messages.filter(
      (m): m is Extract<LiveMessage, { type: 'transcript.update' }> => m.type === 'transcript.update' && m.is_final,
    );
    const done = await f.api.calls.get(call.id);
    expect(finals.map((m) => m.text)).toEqual(done.transcript?.map((l) => l.text));
    expect(messages.some((m) => m.type === 'transcript.update' && !m.is_final)).toBe(true);
    expect(messages.at(-1)).toMatchObject({ call_id: call.id, duration: done.duration });
  });

  it('replays where a call stands to a late subscriber, and refuses bad keys and unknown calls', async () => {
    const { call } = await completedCall(1);
    await advanceUntil(f.admin, async () => (await f.api.calls.get(call.id)).status === 'completed');
    const live = await f.api.live();
    closers.push(async () => live.close());
    await live.subscribe(call.id);
    expect(await live.next((m) => m.type === 'call.started')).toMatchObject({ call_id: call.id });
    expect(await live.next((m) => m.type === 'call.completed')).toMatchObject({ call_id: call.id });
    await expect(live.subscribe('call_unknown')).rejects.toThrow(/not found/);
    await expect(f.api.live({ api_key: 'wrong' })).rejects.toThrow(/authentication/);
  });
});
