import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import {
  AmbiguousRequestError,
  AuthenticationError,
  type Clock,
  NetworkError,
  RateLimitedError,
  ServerError,
  VoiceApiClient,
} from '#commons/voice-api/index.ts';
import { raw, TEST_KEY, useEmulator } from '../helpers/emulator.ts';
import { contactSheet, phones, xlsx } from '../helpers/sheets.ts';

const f = useEmulator();

/** A clock whose sleeps return at once but are recorded, so waits can be checked without waiting. */
function recordingClock(): Clock & { sleeps: number[] } {
  const sleeps: number[] = [];
  return { sleeps, now: () => Date.now(), sleep: async (ms) => void sleeps.push(ms) };
}

/** A port nothing listens on: bound once, then released. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const { port } = server.address() as { port: number };
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}

const requestsTo = async (path: string, method: string) =>
  (await f.admin.requests<{ path: string; method: string; status: number }[]>()).filter(
    (r) => r.path === `/api/developer/v1${path}` && r.method === method,
  );

describe('retries and faults', () => {
  it('retries 5xx on reads with full-jitter backoff and succeeds', async () => {
    const clock = recordingClock();
    const api = f.client({ clock, random: () => 0.5, baseDelayMs: 100, maxDelayMs: 10_000 });
    await f.admin.fault({ path: '/api/developer/v1/agents', status: 500, count: 2 });
    expect(await api.agents.list()).toEqual([]);
    expect((await requestsTo('/agents', 'GET')).map((r) => r.status)).toEqual([500, 500, 200]);
    expect(clock.sleeps).toEqual([50, 100]); // random 0.5 × min(cap, 100 · 2ⁿ)
  });

  it('gives up after maxRetries with a typed ServerError carrying the status', async () => {
    const api = f.client({ maxRetries: 2, clock: recordingClock() });
    await f.admin.fault({ path: '/api/developer/v1/phone-numbers', status: 502, count: 5 });
    const err = await api.phoneNumbers.list().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ServerError);
    expect(err).toMatchObject({
      status: 502,
      method: 'GET',
      path: '/phone-numbers',
      requestId: expect.stringMatching(/^req_/),
    });
    expect(await requestsTo('/phone-numbers', 'GET')).toHaveLength(3);
  });

  it('honours Retry-After on 429, and retries even creates after a 429', async () => {
    const agent = await f.api.agents.create({ name: 'Patient' });
    const clock = recordingClock();
    const api = f.client({ clock, random: () => 0 });
    // A fault path may also be given below the API prefix.
    await f.admin.fault({ path: '/calls', status: 429, count: 1, method: 'POST' });
    const call = await api.calls.start({ agent_id: agent.id, phone_number: '+14155552671' });
    expect(call.status).toBe('queued');
    expect(clock.sleeps).toEqual([1000]); // Retry-After: 1 wins over a zero backoff
    expect((await requestsTo('/calls', 'POST')).map((r) => r.status)).toEqual([429, 201]);
  });

  it('uses X-RateLimit-Reset when there is no Retry-After, and refuses to wait longer than allowed', async () => {
    const resetIn = 30;
    const served: Response[] = [
      new Response(JSON.stringify({ detail: 'slow down' }), {
        status: 429,
        headers: {
          'Content-Type': 'application/json',
          'X-RateLimit-Reset': String(Math.ceil(Date.now() / 1000) + resetIn),
        },
      }),
    ];
    const clock = recordingClock();
    const api = new VoiceApiClient({
      baseUrl: f.emu.url,
      apiKey: TEST_KEY,
      requestsPerMinute: 0,
      clock,
      random: () => 0,
      // The first answer comes from here; the retry goes to the emulator over HTTP.
      fetch: (input, init) => (served.length > 0 ? Promise.resolve(served.shift() as Response) : fetch(input, init)),
    });
    await api.agents.list();
    expect(clock.sleeps[0]).toBeGreaterThan((resetIn - 2) * 1000);
    expect(clock.sleeps[0]).toBeLessThanOrEqual((resetIn + 1) * 1000); // the header is in whole seconds

    const impatient = f.client({ maxRetryWaitMs: 500, clock: recordingClock() });
    await f.admin.fault({ path: '/api/developer/v1/agents', status: 429, count: 1 });
    const err = await impatient.agents.list().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RateLimitedError);
    expect((err as RateLimitedError).retryAfterMs).toBe(1000);
  });

  it('times out slow answers and retries reads', async () => {
    const api = f.client({ timeoutMs: 150 });
    await f.admin.fault({ path: '/api/developer/v1/agents', delayMs: 600, count: 1 });
    expect(await api.agents.list()).toEqual([]);
    await f.emu.traffic.settled(); // the held first answer is logged when it is finally sent
    const log = await requestsTo('/agents', 'GET');
    expect(log).toHaveLength(2);
    const noRetry = f.client({ timeoutMs: 150, maxRetries: 0 });
    await f.admin.fault({ path: '/api/developer/v1/agents', delayMs: 600, count: 1 });
    const err = await noRetry.agents.list().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NetworkError);
    expect((err as NetworkError).timedOut).toBe(true);
  });

  it('never repeats a campaign create after a timeout: exactly one campaign exists and the caller is told', async () => {
    const agent = await f.api.agents.create({ name: 'Once' });
    const api = f.client({ timeoutMs: 200 });
    // The emulator carries the create out, then holds the answer past the client's timeout.
    await f.admin.fault({ path: '/api/developer/v1/campaigns', method: 'POST', delayMs: 800, count: 1 });
    const err = await api.campaigns
      .create({ file: await xlsx(contactSheet(phones(3))), fileName: 'once.xlsx', agent_id: agent.id, name: 'Once' })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AmbiguousRequestError);
    expect((err as AmbiguousRequestError).sentAt).toBeInstanceOf(Date);
    await f.emu.traffic.settled(); // the held answer is sent: the create was carried out once
    const state = await f.admin.state<{ campaigns: unknown[] }>();
    expect(state.campaigns).toHaveLength(1);
    expect(await requestsTo('/campaigns', 'POST')).toHaveLength(1);
  });

  it('an answer of 2xx cut short: a create is in doubt and not repeated, a read is asked again', async () => {
    const agent = await f.api.agents.create({ name: 'Cut' });
    // The emulator answers in full, and the client gets a shorter body that is whole but not JSON (the emulator's
    // `cut` fault instead closes the connection mid-body: test/contract/faults.test.ts).
    let cuts = 2;
    const cut: typeof fetch = async (input, init) => {
      const res = await fetch(input, init);
      if (cuts === 0 || !res.ok) return res;
      cuts--;
      return new Response((await res.text()).slice(0, 5), { status: res.status, headers: res.headers });
    };
    const api = f.client({ fetch: cut, clock: recordingClock() });
    const err = await api.campaigns
      .create({ file: await xlsx(contactSheet(phones(3))), fileName: 'cut.xlsx', agent_id: agent.id, name: 'Cut' })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AmbiguousRequestError);
    expect((err as Error).message).toMatch(
      /POST \/campaigns answered 201, but its answer could not be read .*carried out/,
    );
    expect((await f.admin.state<{ campaigns: unknown[] }>()).campaigns).toHaveLength(1);
    expect(await requestsTo('/campaigns', 'POST')).toHaveLength(1);
    expect((await api.agents.list()).map((a) => a.name)).toEqual(['Cut']);
    expect(await requestsTo('/agents', 'GET')).toHaveLength(2);
  });

  it('a create answered without a campaign id is in doubt: it was carried out, and is not repeated', async () => {
    const agent = await f.api.agents.create({ name: 'Nameless' });
    await f.admin.fault({ method: 'POST', path: '/campaigns', body: { status: 'scheduled' }, count: 1 });
    const err = await f.api.campaigns
      .create({ file: await xlsx(contactSheet(phones(3))), fileName: 'n.xlsx', agent_id: agent.id, name: 'Nameless' })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AmbiguousRequestError);
    expect((err as Error).message).toBe(
      'POST /campaigns answered 201, but its answer could not be read (201 answer names no campaign id); it was carried out',
    );
    expect((await f.admin.state<{ campaigns: unknown[] }>()).campaigns).toHaveLength(1);
    expect(await requestsTo('/campaigns', 'POST')).toHaveLength(1);
  });

  it('does not repeat a call start after a 500, but does after a 503 (not carried out)', async () => {
    const agent = await f.api.agents.create({ name: 'Careful' });
    const api = f.client({ clock: recordingClock() });
    await f.admin.fault({ path: '/api/developer/v1/calls', method: 'POST', status: 500, count: 1 });
    await expect(api.calls.start({ agent_id: agent.id, phone_number: '+14155552671' })).rejects.toBeInstanceOf(
      AmbiguousRequestError,
    );
    expect(await requestsTo('/calls', 'POST')).toHaveLength(1);
    await f.admin.fault({ path: '/api/developer/v1/calls/bulk-initiate', status: 503, count: 1 });
    const res = await api.calls.bulkInitiate(agent.id, [{ phone_number: '+14155552672' }]);
    expect(res.succeeded).toBe(1);
    expect((await requestsTo('/calls/bulk-initiate', 'POST')).map((r) => r.status)).toEqual([503, 201]);
  });

  it('retries a refused connection (nothing was sent) and reports a network error in the end', async () => {
    const closed = await freePort();
    const dead = new VoiceApiClient({
      baseUrl: `http://127.0.0.1:${closed}`,
      apiKey: TEST_KEY,
      requestsPerMinute: 0,
      maxRetries: 2,
      clock: recordingClock(),
    });
    const clock = recordingClock();
    const dead2 = new VoiceApiClient({
      baseUrl: `http://127.0.0.1:${closed}`,
      apiKey: TEST_KEY,
      requestsPerMinute: 0,
      maxRetries: 2,
      clock,
    });
    const err = await dead2.calls.start({ agent_id: 'a', phone_number: '+14155552671' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NetworkError);
    expect((err as NetworkError).timedOut).toBe(false);
    expect(clock.sleeps).toHaveLength(2); // a call start may be repeated when the connection was refused
    await expect(dead.agents.list()).rejects.toBeInstanceOf(NetworkError);
  });
});

describe('rate limits', () => {
  it('allows rateLimitPerMinute requests per window, then 429 with the limit headers', async () => {
    await f.admin.configure({ rateLimitPerMinute: 3 });
    const statuses: number[] = [];
    let last: Headers | undefined;
    for (let i = 0; i < 4; i++) {
      const res = await raw(f.emu.url, 'GET', '/agents');
      statuses.push(res.status);
      last = res.headers;
      if (i === 0) expect(res.headers.get('x-ratelimit-remaining')).toBe('2');
    }
    expect(statuses).toEqual([200, 200, 200, 429]);
    expect(last?.get('x-ratelimit-limit')).toBe('3');
    expect(last?.get('x-ratelimit-remaining')).toBe('0');
    const reset = Number(last?.get('x-ratelimit-reset'));
    const now = Date.parse((await f.admin.state<{ now: string }>()).now) / 1000;
    expect(reset).toBeGreaterThan(now);
    expect(reset - now).toBeLessThanOrEqual(60);
    expect(Number(last?.get('retry-after'))).toBeGreaterThan(0);
    await f.admin.advance(60); // a new window
    expect((await raw(f.emu.url, 'GET', '/agents')).status).toBe(200);
  });

  it('the client waits out the window the server announces instead of hammering it', async () => {
    await f.admin.configure({ rateLimitPerMinute: 2 });
    // The client lives on the emulator's simulated clock: its sleeps move simulated time.
    const sleeps: number[] = [];
    const clock: Clock = {
      now: () => f.emu.core.clock.now(),
      sleep: async (ms) => {
        sleeps.push(ms);
        await f.admin.advance(ms / 1000);
      },
    };
    const api = f.client({ clock });
    await api.agents.list();
    await api.agents.list(); // remaining 0: the limiter now holds the next request until the reset
    expect(sleeps).toEqual([]);
    await api.agents.list();
    expect(sleeps).toHaveLength(1);
    expect(sleeps[0]).toBeLessThanOrEqual(60_000);
    expect((await requestsTo('/agents', 'GET')).map((r) => r.status)).toEqual([200, 200, 200]);
  });
});

describe('authentication and routing', () => {
  it('answers 401 without or with a wrong key, on every developer path', async () => {
    for (const path of [
      '/agents',
      '/calls',
      '/calls/stats',
      '/phone-numbers',
      '/tts-config',
      '/widget/config',
      '/knowledge',
    ]) {
      const none = await raw(f.emu.url, 'GET', path, { key: null });
      expect(none.status).toBe(401);
      expect(none.body).toEqual({ detail: expect.any(String) });
      expect((await raw(f.emu.url, 'GET', path, { key: 'wrong' })).status).toBe(401);
    }
    const bad = new VoiceApiClient({ baseUrl: f.emu.url, apiKey: 'wrong', requestsPerMinute: 0 });
    await expect(bad.agents.list()).rejects.toBeInstanceOf(AuthenticationError);
  });

  it('answers 404 for unknown routes and ids, and 422 for a body that is not JSON', async () => {
    expect((await raw(f.emu.url, 'GET', '/nothing-here')).status).toBe(404);
    expect((await raw(f.emu.url, 'GET', '/agents/agent_missing')).body).toEqual({ detail: 'Agent not found' });
    const res = await raw(f.emu.url, 'POST', '/agents', {
      body: '{not json',
      headers: { 'Content-Type': 'application/json' },
    });
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({ detail: [{ loc: ['body'], type: 'json_invalid' }] });
  });
});
