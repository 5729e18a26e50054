import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AuthenticationError,
  ConflictError,
  InsufficientCreditsError,
  NotFoundError,
  RateLimitedError,
  ServerError,
  ValidationError,
  VoiceApiClient,
} from '#commons/voice-api/index.ts';

/** A server that answers each path with a fixed status and body, in either of the vendor's error styles. */
const answers: Record<string, [number, unknown, Record<string, string>?]> = {
  '/api/developer/v1/agents/vendor-404': [
    404,
    {
      error: { code: 'resource_not_found', message: 'No such agent', param: 'agent_id', type: 'invalid_request_error' },
    },
  ],
  '/api/developer/v1/agents/vendor-401': [401, { error: { code: 'authentication_failed', message: 'Bad key' } }],
  '/api/developer/v1/agents/vendor-400': [
    400,
    { error: { code: 'invalid_request', message: 'name is too long', param: 'name' } },
  ],
  '/api/developer/v1/agents/vendor-credits': [400, { error: { code: 'insufficient_credits', message: 'Top up' } }],
  '/api/developer/v1/agents/detail-409': [409, { detail: 'campaign is not active' }, { 'X-Request-Id': 'req-409' }],
  '/api/developer/v1/agents/detail-422': [
    422,
    { detail: [{ loc: ['body', 'name'], msg: 'field required', type: 'missing', ctx: { x: 1 } }] },
  ],
  '/api/developer/v1/agents/text-500': [500, 'upstream exploded'],
  '/api/developer/v1/agents/vendor-429': [
    429,
    { error: { code: 'rate_limit_exceeded', message: 'Slow down' } },
    { 'Retry-After': '120' },
  ],
  '/api/developer/v1/agents/broken-json': [200, 'not { json', { 'Content-Type': 'application/json' }],
  '/api/developer/v1/agents/extra': [
    200,
    { id: 'a1', name: 'Keeps', created_at: '2026-01-01T00:00:00Z', future_field: { nested: true } },
  ],
};

let base = '';
const server = createServer((req, res) => {
  const [status, body, headers] = answers[req.url ?? ''] ?? [404, { detail: 'Not Found' }];
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  res.writeHead(status, { 'Content-Type': typeof body === 'string' ? 'text/plain' : 'application/json', ...headers });
  res.end(text);
});
beforeAll(async () => {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

const client = () => new VoiceApiClient({ baseUrl: base, apiKey: 'k', requestsPerMinute: 0, maxRetries: 0 });
const failure = (id: string) =>
  client()
    .agents.get(id)
    .catch((e: unknown) => e);

describe('error bodies', () => {
  it('understands the general-reference style {error: {code, message, param, type}}', async () => {
    const nf = await failure('vendor-404');
    expect(nf).toBeInstanceOf(NotFoundError);
    expect(nf).toMatchObject({ status: 404, code: 'resource_not_found', message: 'No such agent' });
    expect(await failure('vendor-401')).toBeInstanceOf(AuthenticationError);
    const v = await failure('vendor-400');
    expect(v).toBeInstanceOf(ValidationError);
    expect((v as ValidationError).items).toEqual([
      { loc: ['body', 'name'], msg: 'name is too long', type: 'invalid_request' },
    ]);
    expect(await failure('vendor-credits')).toBeInstanceOf(InsufficientCreditsError);
    const rl = await failure('vendor-429');
    expect(rl).toBeInstanceOf(RateLimitedError);
    expect((rl as RateLimitedError).retryAfterMs).toBe(120_000);
  });

  it('understands the developer style {detail: "..."} and {detail: [...]}', async () => {
    const c = await failure('detail-409');
    expect(c).toBeInstanceOf(ConflictError);
    expect(c).toMatchObject({
      message: 'campaign is not active',
      requestId: 'req-409',
      body: { detail: 'campaign is not active' },
    });
    const v = await failure('detail-422');
    expect(v).toBeInstanceOf(ValidationError);
    expect((v as ValidationError).items[0]).toEqual({
      loc: ['body', 'name'],
      msg: 'field required',
      type: 'missing',
      ctx: { x: 1 },
    });
    const s = await failure('text-500');
    expect(s).toBeInstanceOf(ServerError);
    expect((s as ServerError).message).toBe('upstream exploded');
  });

  it('says which request got a success answer that is not valid JSON', async () => {
    const err = await failure('broken-json');
    expect(err).toMatchObject({ status: 200, method: 'GET', path: '/agents/broken-json', body: 'not { json' });
    expect((err as Error).message).toBe(
      'GET /agents/broken-json answered 200, but its answer could not be read (200 answer was not valid JSON)',
    );
  });

  it('keeps fields the contract does not name', async () => {
    const agent = await client().agents.get('extra');
    expect(agent.future_field).toEqual({ nested: true });
  });
});
