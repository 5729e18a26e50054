import { afterAll, afterEach, beforeAll } from 'vitest';
import { VoiceApiClient, type VoiceApiOptions } from '#commons/voice-api/index.ts';
import { EmulatorAdmin } from '#local/emulator/admin-client.ts';
import type { StartOptions } from '#local/emulator/server.ts';
import { type RunningEmulator, startEmulator } from '#local/emulator/server.ts';

export const TEST_KEY = 'test-key-0123456789';

/** One line of the emulator's request log (`admin.requests()`), as the rehearsals read it. */
export interface LoggedRequest {
  at: string;
  method: string;
  path: string;
  status: number;
}

export interface EmulatorFixture {
  emu: RunningEmulator;
  api: VoiceApiClient;
  admin: EmulatorAdmin;
  /** A client with other options (retries, timeouts) against the same emulator. */
  client(options?: Partial<VoiceApiOptions>): VoiceApiClient;
}

/**
 * One emulator per test file on a free 127.0.0.1 port, with a frozen clock (tests move it) and no rate limit
 * unless a test sets one. The account is reset after each test, once no request is in flight.
 */
export function useEmulator(options: Partial<StartOptions> = {}): EmulatorFixture {
  const fixture = {} as EmulatorFixture;
  beforeAll(async () => {
    const emu = await startEmulator({
      apiKey: TEST_KEY,
      speed: 0,
      seed: 'test',
      startTime: Date.parse('2026-03-02T09:00:00Z'),
      ...options,
      settings: { rateLimitPerMinute: 0, ...options.settings },
    });
    fixture.emu = emu;
    fixture.client = (o = {}) =>
      new VoiceApiClient({
        baseUrl: emu.url,
        apiKey: TEST_KEY,
        requestsPerMinute: 0,
        baseDelayMs: 1,
        maxDelayMs: 5,
        ...o,
      });
    fixture.api = fixture.client();
    fixture.admin = new EmulatorAdmin(emu.url);
  });
  afterEach(async () => {
    // A held answer still on its way would land in the next test's account and request log.
    await fixture.emu.traffic.settled();
    await fixture.admin.reset();
  });
  afterAll(async () => {
    await fixture.emu?.close();
  });
  return fixture;
}

/** Advances simulated time minute by minute until `done` holds (or the limit passes), returning the minutes used. */
export async function advanceUntil(
  admin: EmulatorAdmin,
  done: () => Promise<boolean>,
  maxMinutes = 24 * 60,
): Promise<number> {
  for (let minute = 0; minute < maxMinutes; minute++) {
    if (await done()) return minute;
    await admin.advance(60);
  }
  throw new Error(`condition not reached within ${maxMinutes} simulated minutes`);
}

/** Raw HTTP to the emulator, for checks the typed client would refuse to send. */
export async function raw(
  baseUrl: string,
  method: string,
  path: string,
  init: { body?: string | FormData | URLSearchParams; headers?: Record<string, string>; key?: string | null } = {},
): Promise<{ status: number; headers: Headers; body: unknown }> {
  const headers: Record<string, string> = { ...init.headers };
  if (init.key !== null) headers['X-API-Key'] = init.key ?? TEST_KEY;
  const res = await fetch(`${baseUrl}/api/developer/v1${path}`, { method, headers, body: init.body });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    // not JSON: keep the text
  }
  return { status: res.status, headers: res.headers, body };
}
