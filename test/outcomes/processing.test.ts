import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { silentLog } from '#commons/log.ts';
import { makeObservability } from '#commons/observability.ts';
import { CallResolver } from '#commons/outcomes/call-resolver.ts';
import { CallNotFinishedError, OutcomeService } from '#commons/outcomes/outcome-service.ts';
import { OutcomeStore } from '#commons/outcomes/outcome-store.ts';
import { SuppressionList } from '#commons/suppression-list.ts';
import type { WebhookEvent } from '#commons/voice-api/types.ts';
import { type LocalDynamo, startDynamo } from '#local/stack/dynamo.ts';
import { LocalQueue } from '#local/stack/upload-queue.ts';
import { makeOutcomesHandler } from '#outcomes/handler.ts';
import { dynaliteClient } from '../helpers/dynalite-client.ts';
import { advanceUntil, useEmulator } from '../helpers/emulator.ts';

const f = useEmulator();
let dynamo: LocalDynamo;
beforeAll(async () => {
  dynamo = await startDynamo({ prefix: 'processing' });
});
afterAll(async () => {
  await dynamo.close();
});

function setup(log = silentLog) {
  const db = dynaliteClient(dynamo.endpoint);
  const resolver = new CallResolver(f.api.calls);
  const store = new OutcomeStore(db, dynamo.tables.outcomes);
  const suppression = new SuppressionList(db, dynamo.tables.suppression);
  const service = new OutcomeService({
    resolver,
    calls: f.api.calls,
    store,
    suppression,
    log,
    now: () => new Date('2026-03-02T10:00:00Z'),
  });
  return { resolver, store, suppression, service, handler: makeOutcomesHandler(service, silentLog) };
}

const event = (type: WebhookEvent['event'], callId: string, metadata: Record<string, unknown> = {}): WebhookEvent => ({
  event: type,
  timestamp: '2026-03-02T09:30:00.000Z',
  data: {
    call_id: callId,
    agent_id: 'agent',
    duration: 0,
    status: type === 'call.failed' ? 'failed' : 'completed',
    transcript_url: null,
    recording_url: null,
    metadata,
  },
});

async function singleCall(answerRate: number, instructions?: string) {
  await f.admin.configure({ answerRate });
  const agent = await f.api.agents.create({ name: 'Proc', greeting_line: 'Hi.' });
  const call = await f.api.calls.start({
    agent_id: agent.id,
    phone_number: '+14155552671',
    contact_name: 'Pat',
    ...(instructions ? { custom_instructions: instructions } : {}),
  });
  return call;
}

describe('outcome processing', () => {
  it('records an event handled twice once, reading the call once', async () => {
    const { service, store, resolver } = setup();
    const call = await singleCall(1);
    await advanceUntil(f.admin, async () => (await f.api.calls.get(call.id)).status === 'completed');
    const done = event('call.completed', call.id, { campaign_id: 'cmp_x', phone_number: call.phone_number });
    const before = resolver.requests;
    await service.handleEvent(done);
    await service.handleEvent(done);
    expect(resolver.requests - before).toBe(1);
    const full = await f.api.calls.get(call.id);
    // The API's answer wins over the event's metadata: a single call belongs to no campaign.
    expect(await store.get(call.id)).toMatchObject({
      callId: call.id,
      campaignId: null,
      phone: '+14155552671',
      status: 'completed',
      durationSeconds: full.duration,
      costInr: full.cost,
      recordingUrl: full.recording_url,
    });
  });

  it('refuses to record a call that has not finished, so the queue delivers it again later', async () => {
    const { service } = setup();
    const call = await singleCall(1);
    await expect(service.handleEvent(event('call.completed', call.id))).rejects.toBeInstanceOf(CallNotFinishedError);
  });

  it('resolves a failed call without metadata through GET /calls/{id}', async () => {
    const { service, resolver } = setup();
    const call = await singleCall(0);
    await advanceUntil(f.admin, async () => (await f.api.calls.get(call.id)).status === 'failed');
    const before = resolver.requests;
    expect(await service.handleEvent(event('call.failed', call.id))).toBe('recorded');
    expect(resolver.requests - before).toBe(1);
    // With the number and campaign in the event's metadata, no request at all.
    await service.handleEvent(event('call.failed', call.id, { phone_number: '+14155552671', campaign_id: null }));
    expect(resolver.requests - before).toBe(1);
  });

  it('sends a poison message and a message the API keeps failing to the dead letters, recording nothing', async () => {
    const { handler, store } = setup();
    const queue = new LocalQueue('outcomes-test', (e, c) => handler(e, c), { retryDelayMs: 1, maxReceives: 3 });
    queue.send('not json at all');
    queue.send(JSON.stringify({ hello: 'world' }));
    await f.admin.fault({ path: '/api/developer/v1/calls/', status: 503, count: 100 });
    queue.send(JSON.stringify(event('call.completed', 'call_missing', { campaign_id: 'cmp_dlq', phone_number: '+1' })));
    await queue.idle();
    await f.admin.clearFaults();
    expect(queue.deadLetters.map((d) => d.body)).toHaveLength(3);
    expect(queue.deadLetters.every((d) => d.attributes.ApproximateReceiveCount === '3')).toBe(true);
    expect(await store.ofCampaign('cmp_dlq')).toEqual([]);
  });

  it('notes an event for a call the API does not know, counts it and acknowledges it instead of dead-lettering it', async () => {
    const warnings: string[] = [];
    const { service, store } = setup({ ...silentLog, warn: (message: string) => void warnings.push(message) });
    const obs = makeObservability('outcomes-unknown-test', {});
    const metrics = vi.spyOn(obs.metrics, 'addMetric');
    const handler = makeOutcomesHandler(service, silentLog, obs);
    const queue = new LocalQueue('outcomes-unknown', (e, c) => handler(e, c), { retryDelayMs: 1, maxReceives: 3 });
    queue.send(JSON.stringify(event('call.completed', 'call_unknown_1', { campaign_id: 'cmp_unknown' })));
    await queue.idle();
    expect(queue.deadLetters).toEqual([]);
    expect(await store.unknownCall('call_unknown_1')).toMatchObject({
      event: 'call.completed',
      campaignId: 'cmp_unknown',
      deliveries: 1,
      firstSeenAt: '2026-03-02T10:00:00.000Z',
    });
    expect(await store.get('call_unknown_1')).toBeNull();
    expect(metrics).toHaveBeenCalledWith('UnknownCallEvents', 'Count', 1);
    expect(warnings).toEqual(['call event for a call the Voice API does not know: noted, not retried']);
    // A failure that a later delivery may get past is still retried, then dead-lettered.
    await f.admin.fault({ path: '/api/developer/v1/calls/', status: 503, count: 100 });
    queue.send(JSON.stringify(event('call.completed', 'call_unknown_2')));
    await queue.idle();
    await f.admin.clearFaults();
    expect(queue.deadLetters).toHaveLength(1);
    expect(await store.unknownCall('call_unknown_2')).toBeNull();
  });

  it('suppresses a number at once from a contact event with a do_not_call tag or an opt-out lead status', async () => {
    const { service, suppression } = setup();
    expect(await service.handleContact({ phone_number: '+14155550111', tags: ['vip', 'do_not_call'] })).toBe(
      'tag do_not_call',
    );
    expect(await service.handleContact({ phone_number: '+14155550112', lead_status: 'opted_out' })).toBe(
      'lead status opted_out',
    );
    expect(await service.handleContact({ phone_number: '+14155550113', tags: ['callback'] })).toBeNull();
    const listed = await suppression.matching(['+14155550111', '+14155550112', '+14155550113']);
    expect([...listed].sort()).toEqual(['+14155550111', '+14155550112']);
  });

  it('suppresses an opt-out heard on a single call too', async () => {
    const { service, suppression } = setup();
    const call = await singleCall(1, '[emulator:opt-out]');
    await advanceUntil(f.admin, async () => (await f.api.calls.get(call.id)).status === 'completed');
    await service.handleEvent(event('call.completed', call.id));
    const entry = (await suppression.list()).find((s) => s.phone === '+14155552671');
    expect(entry).toMatchObject({ source: 'transcript', reason: expect.stringContaining('do not call me') });
  });
});
