import type { LambdaFunctionURLEvent, LambdaFunctionURLResult } from 'aws-lambda';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { type Log, silentLog } from '#commons/log.ts';
import { makeObservability, type Observability } from '#commons/observability.ts';
import { signWebhook } from '#commons/voice-api/webhooks.ts';
import { type LocalDynamo, startDynamo } from '#local/stack/dynamo.ts';
import { localContext } from '#local/stack/lambda-context.ts';
import { makeWebhookHandler } from '#webhooks/handler.ts';
import { WebhookReceiver } from '#webhooks/receiver.ts';
import { DynamoReplayGuard } from '#webhooks/replay-guard.ts';
import { CachedSecret } from '#webhooks/webhook-secret.ts';
import { dynaliteClient } from '../helpers/dynalite-client.ts';

let dynamo: LocalDynamo;
beforeAll(async () => {
  dynamo = await startDynamo({ prefix: `wh${Date.now()}` });
});
afterAll(async () => {
  await dynamo.close();
});

/** The receiver on dynalite with a queue that keeps what it gets and a secret the test can rotate. */
function setup(
  options: { maxBodyBytes?: number; failQueue?: boolean; table?: string; log?: Log; obs?: Observability } = {},
) {
  const state = { secret: 'whsec_one', reads: 0, clock: 0, queued: [] as string[], failQueue: options.failQueue };
  const secret = new CachedSecret(
    async () => {
      state.reads++;
      return state.secret;
    },
    { ttlMs: 300_000, minRefreshMs: 10_000, now: () => state.clock },
  );
  const db = dynaliteClient(dynamo.endpoint);
  const receiver = new WebhookReceiver({
    secret,
    guard: new DynamoReplayGuard(db, options.table ?? dynamo.tables.outcomes),
    queue: {
      async send(body) {
        if (state.failQueue) throw Object.assign(new Error('queue down'), { name: 'QueueDoesNotExist' });
        state.queued.push(body);
      },
    },
    maxBodyBytes: options.maxBodyBytes ?? 64 * 1024,
  });
  const handler = makeWebhookHandler(receiver, options.log ?? silentLog, options.obs);
  const post = async (body: string, headers: Record<string, string>, base64 = false) =>
    (await handler(
      {
        version: '2.0',
        rawPath: '/',
        headers: { 'content-type': 'application/json', ...headers },
        requestContext: { http: { method: 'POST' } },
        body: base64 ? Buffer.from(body).toString('base64') : body,
        isBase64Encoded: base64,
      } as unknown as LambdaFunctionURLEvent,
      localContext('webhooks'),
    )) as LambdaFunctionURLResult & { statusCode: number; body: string };
  return { state, post };
}

let n = 0;
let body: string;
beforeEach(() => {
  n++;
  body = JSON.stringify({
    event: 'call.completed',
    timestamp: '2026-03-02T09:05:00.000Z',
    data: {
      call_id: `call_${n}_${Date.now()}`,
      agent_id: 'agent_1',
      duration: 61,
      status: 'completed',
      transcript_url: null,
      recording_url: null,
      metadata: { campaign_id: 'cmp_1', phone_number: '+14155550100', contact_name: 'Ann' },
    },
  });
});

describe('webhook receiver: signatures on the raw body', () => {
  it('queues a correctly signed event and answers 202', async () => {
    const { state, post } = setup();
    const res = await post(body, { 'X-VoiceAgent-Signature': signWebhook(body, 'whsec_one') });
    expect(res.statusCode).toBe(202);
    expect(state.queued).toEqual([body]);
  });

  it('finds the signature header in any case and under any service name', async () => {
    const { state, post } = setup();
    const sig = signWebhook(body, 'whsec_one');
    expect((await post(body, { 'x-voiceagent-signature': sig })).statusCode).toBe(202);
    const other = body.replace('call.completed', 'call.failed');
    expect((await post(other, { 'X-OTHERVENDOR-SIGNATURE': signWebhook(other, 'whsec_one') })).statusCode).toBe(202);
    expect(state.queued).toHaveLength(2);
  });

  it.each([
    ['wrong secret', (b: string) => signWebhook(b, 'whsec_wrong')],
    ['wrong length (one byte short)', (b: string) => signWebhook(b, 'whsec_one').slice(0, 62)],
    ['wrong length (one byte long)', (b: string) => `${signWebhook(b, 'whsec_one')}00`],
    ['non-hex', (b: string) => `${signWebhook(b, 'whsec_one').slice(0, 63)}g`],
    ['empty', () => ''],
  ])('refuses a signature that is %s with 401 and queues nothing', async (_name, sign) => {
    const { state, post } = setup();
    const res = await post(body, { 'X-VoiceAgent-Signature': sign(body) });
    expect(res.statusCode).toBe(401);
    expect(state.queued).toEqual([]);
  });

  it('refuses a request without any signature header with 401', async () => {
    const { state, post } = setup();
    const res = await post(body, { 'X-VoiceAgent-Sig': signWebhook(body, 'whsec_one') });
    expect(res.statusCode).toBe(401);
    expect(JSON.parse(res.body).message).toMatch(/no X-…-Signature header/);
    expect(state.queued).toEqual([]);
  });

  it('refuses a tampered body signed for the original with 401', async () => {
    const { state, post } = setup();
    const sig = signWebhook(body, 'whsec_one');
    const tampered = body.replace('"duration":61', '"duration":62');
    expect((await post(tampered, { 'X-VoiceAgent-Signature': sig })).statusCode).toBe(401);
    // Same JSON, other bytes (whitespace): the signature is over the raw body, not its parse.
    const reformatted = JSON.stringify(JSON.parse(body), null, 1);
    expect((await post(reformatted, { 'X-VoiceAgent-Signature': sig })).statusCode).toBe(401);
    expect(state.queued).toEqual([]);
  });

  it('verifies a base64-encoded body on its decoded bytes', async () => {
    const { state, post } = setup();
    const withUnicode = body.replace('Ann', 'Ánn 😀');
    const sig = signWebhook(Buffer.from(withUnicode, 'utf8'), 'whsec_one');
    expect((await post(withUnicode, { 'X-VoiceAgent-Signature': sig }, true)).statusCode).toBe(202);
    expect(state.queued).toEqual([withUnicode]);
    // The signature of the base64 text itself is not the signature of the body.
    const b64 = Buffer.from(body).toString('base64');
    expect((await post(body, { 'X-VoiceAgent-Signature': signWebhook(b64, 'whsec_one') }, true)).statusCode).toBe(401);
  });

  it('answers a replay of the same event, call and status 200 without queueing it again', async () => {
    const { state, post } = setup();
    const sig = signWebhook(body, 'whsec_one');
    expect((await post(body, { 'X-VoiceAgent-Signature': sig })).statusCode).toBe(202);
    const replay = await post(body, { 'X-VoiceAgent-Signature': sig });
    expect(replay.statusCode).toBe(200);
    expect(JSON.parse(replay.body)).toEqual({ duplicate: true });
    expect(state.queued).toHaveLength(1);
    // Another status of the same call is another event.
    const failed = body.replace('call.completed', 'call.failed').replace('"status":"completed"', '"status":"failed"');
    expect((await post(failed, { 'X-VoiceAgent-Signature': signWebhook(failed, 'whsec_one') })).statusCode).toBe(202);
    expect(state.queued).toHaveLength(2);
  });

  it('lets the sender retry when the queue fails: 503, then 202 on the next delivery', async () => {
    const { state, post } = setup({ failQueue: true });
    const sig = signWebhook(body, 'whsec_one');
    expect((await post(body, { 'X-VoiceAgent-Signature': sig })).statusCode).toBe(503);
    state.failQueue = false;
    expect((await post(body, { 'X-VoiceAgent-Signature': sig })).statusCode).toBe(202);
    expect(state.queued).toEqual([body]);
  });

  it('answers 503 (deliver again) when the replay store fails, and queues nothing', async () => {
    const { state, post } = setup({ table: 'no-such-table' });
    const res = await post(body, { 'X-VoiceAgent-Signature': signWebhook(body, 'whsec_one') });
    expect(res.statusCode).toBe(503);
    expect(state.queued).toEqual([]);
  });

  it('re-reads a rotated secret once when verification fails, and not again within the refresh interval', async () => {
    const { state, post } = setup();
    expect((await post(body, { 'X-VoiceAgent-Signature': signWebhook(body, 'whsec_one') })).statusCode).toBe(202);
    expect(state.reads).toBe(1);
    state.secret = 'whsec_two';
    state.clock += 60_000; // within the TTL: the cached secret is still the old one
    const next = body.replace('"call_id":"call_', '"call_id":"rotated_');
    expect((await post(next, { 'X-VoiceAgent-Signature': signWebhook(next, 'whsec_two') })).statusCode).toBe(202);
    expect(state.reads).toBe(2);
    // Badly signed requests right after do not read the secret again each time.
    const forged = body.replace('"duration":61', '"duration":8');
    for (let i = 0; i < 3; i++)
      expect((await post(forged, { 'X-VoiceAgent-Signature': signWebhook(forged, 'whsec_one') })).statusCode).toBe(401);
    expect(state.reads).toBe(2);
  });

  it('answers 413 to a body over the limit before looking at its signature', async () => {
    const { state, post } = setup({ maxBodyBytes: 100 });
    const res = await post(body, { 'X-VoiceAgent-Signature': signWebhook(body, 'whsec_one') });
    expect(res.statusCode).toBe(413);
    expect(state.reads).toBe(0);
  });

  it('acknowledges other event types without queueing them, and refuses a signed non-event with 400', async () => {
    const { state, post } = setup();
    const started = body.replace('call.completed', 'call.started');
    const res = await post(started, { 'X-VoiceAgent-Signature': signWebhook(started, 'whsec_one') });
    expect(res.statusCode).toBe(200);
    const junk = '{"hello":1}';
    expect((await post(junk, { 'X-VoiceAgent-Signature': signWebhook(junk, 'whsec_one') })).statusCode).toBe(400);
    expect(state.queued).toEqual([]);
  });

  it('logs why it refused a signed body (field and rule, never the value) and counts it', async () => {
    const warnings: { message: string; fields?: Record<string, unknown> }[] = [];
    const log = {
      ...silentLog,
      warn: (message: string, fields?: Record<string, unknown>) => void warnings.push({ message, fields }),
    };
    const obs = makeObservability('webhooks-refused-test', {});
    const metrics = vi.spyOn(obs.metrics, 'addMetric');
    const { state, post } = setup({ log, obs });
    const bad = body.replace('"status":"completed"', '"status":{"toString":"SECRET-ISH"}');
    const res = await post(bad, { 'X-VoiceAgent-Signature': signWebhook(bad, 'whsec_one') });
    expect(res.statusCode).toBe(400);
    expect(warnings).toEqual([
      {
        message: 'signed webhook refused: not a call event callsheet can record',
        fields: {
          status: 400,
          reason:
            'body is not a call event callsheet can record: data.status must be null or a string of at most 32 characters (got an object)',
        },
      },
    ]);
    expect(JSON.stringify(warnings)).not.toContain('SECRET-ISH');
    expect(metrics).toHaveBeenCalledWith('WebhookEventsRefused', 'Count', 1);
    expect(state.queued).toEqual([]);
  });
});
