import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { BudgetExhaustedError } from '#commons/api-budget/errors.ts';
import { PollRoll } from '#commons/api-budget/poll-roll.ts';
import { type BudgetLimits, type BudgetShare, SharedApiBudget } from '#commons/api-budget/shared-budget.ts';
import { VoiceApiClient } from '#commons/voice-api/index.ts';
import type { Clock } from '#commons/voice-api/rate-limiter.ts';
import { type LocalDynamo, startDynamo } from '#local/stack/dynamo.ts';
import { dynaliteClient } from '../helpers/dynalite-client.ts';
import { TEST_KEY, useEmulator } from '../helpers/emulator.ts';
import { contactSheet, phones, xlsx } from '../helpers/sheets.ts';

// Real stand-ins on a loaded 2-core machine: generous limits; no test measures time.
vi.setConfig({ testTimeout: 90_000, hookTimeout: 60_000 });

const f = useEmulator({ settings: { rateLimitPerMinute: 100, rateLimitPerHour: 1000 } });

let dynamo: LocalDynamo;
beforeEach(async () => {
  dynamo = await startDynamo({ prefix: `b${Math.random().toString(36).slice(2, 8)}` });
});
afterEach(async () => {
  await dynamo.close();
});

/** The emulator's simulated clock; every wait is recorded with who waited. */
function simClock(sleeps: { who: string; ms: number }[], who: string): Clock {
  return {
    now: () => f.emu.core.clock.now(),
    sleep: async (ms) => {
      sleeps.push({ who, ms });
      f.emu.core.clock.advance(ms);
    },
  };
}

/** A DynamoDB client of its own for the stand-in, as each Lambda container has. */
const tableClient = () => dynaliteClient(dynamo.endpoint);

/** A budget as one Lambda container builds it: its own DynamoDB client, the shared table. */
function container(
  clock: Clock,
  limits: BudgetLimits = {
    perMinute: 100,
    perHour: 1000,
    lifecycleReserve: { perMinute: 5, perHour: 50 },
    safetyReserve: { perMinute: 0, perHour: 0 },
  },
) {
  return new SharedApiBudget(tableClient(), dynamo.tables.apiBudget, limits, clock);
}

/** Moves the emulator's clock to the start of the next minute or hour (`unit` ms); answers that instant. */
function toNext(unit: number): number {
  const at = Math.floor(f.emu.core.clock.now() / unit) * unit + unit;
  f.emu.core.clock.set(at);
  return at;
}

/** Takes every token `share` may still have at this instant; answers how many it got. */
async function tokensLeft(budget: SharedApiBudget, share: BudgetShare): Promise<number> {
  const b = budget.for(share, { maxWaitMs: 0 });
  let n = 0;
  while (
    await b.take().then(
      () => true,
      () => false,
    )
  )
    n++;
  return n;
}

const client = (budget: ReturnType<SharedApiBudget['for']>, clock: Clock) =>
  new VoiceApiClient({ baseUrl: f.emu.url, apiKey: TEST_KEY, budget, clock, baseDelayMs: 1, maxDelayMs: 5 });

async function statuses(): Promise<number[]> {
  return (await f.admin.requests<{ status: number; path: string }[]>())
    .filter((r) => r.path.startsWith('/api/'))
    .map((r) => r.status);
}

describe('one API budget for the whole account', () => {
  it('three containers together stay within the plan per minute: no 429, the rest waits for the next window', async () => {
    const sleeps: { who: string; ms: number }[] = [];
    const clients = [0, 1, 2].map((i) => {
      const clock = simClock(sleeps, `c${i}`);
      return client(container(clock).for('shared', { maxWaitMs: 120_000 }), clock);
    });
    const start = f.emu.core.clock.now();
    // 3 × 40 = 120 requests at once: the shared share is 95 a minute.
    await Promise.all(clients.map((c) => Promise.all(Array.from({ length: 40 }, () => c.agents.list()))));
    const seen = await statuses();
    expect(seen).toHaveLength(120);
    expect(seen.every((s) => s === 200)).toBe(true);
    expect(sleeps.length).toBeGreaterThan(0);
    expect(f.emu.core.clock.now()).toBeGreaterThanOrEqual(Math.floor(start / 60_000) * 60_000 + 60_000);
  });

  it('the lifecycle share is granted at once while a sync backlog holds the rest of the budget', async () => {
    const sleeps: { who: string; ms: number }[] = [];
    const syncClock = simClock(sleeps, 'sync');
    const lifeClock = simClock(sleeps, 'lifecycle');
    const sync = container(syncClock).for('shared', { maxWaitMs: 0 });
    const lifecycle = client(container(lifeClock).for('lifecycle'), lifeClock);
    // A campaign to pause and resume, created before the backlog.
    const agent = await lifecycle.agents.create({ name: 'Budget' });
    const campaign = await lifecycle.campaigns.create({
      file: await xlsx(contactSheet(phones(3))),
      fileName: 'c.xlsx',
      agent_id: agent.id,
      name: 'During sync',
    });
    for (let minute = 0; minute < 3; minute++) {
      // The sync takes every token it may have this minute, and is then refused.
      let taken = 0;
      for (;;) {
        try {
          await sync.take();
          taken++;
        } catch (err) {
          expect(err).toBeInstanceOf(BudgetExhaustedError);
          break;
        }
      }
      expect(taken).toBeGreaterThan(0);
      // Pause and resume right now: no wait, no 429.
      const before = sleeps.length;
      await lifecycle.campaigns.pause(campaign.id);
      await lifecycle.campaigns.resume(campaign.id);
      await lifecycle.campaigns.stats(campaign.id);
      expect(sleeps.slice(before).filter((s) => s.who === 'lifecycle')).toEqual([]);
      toNext(60_000);
    }
    expect((await statuses()).filter((s) => s === 429)).toEqual([]);
  });

  it('a sync may use at most the plan less the lifecycle reserve, per minute and per hour', async () => {
    toNext(3_600_000);
    const budget = container(simClock([], 'x'), {
      perMinute: 10,
      perHour: 25,
      lifecycleReserve: { perMinute: 2, perHour: 5 },
      safetyReserve: { perMinute: 0, perHour: 0 },
    });
    const counts: number[] = [];
    for (let minute = 0; minute < 4; minute++) {
      counts.push(await tokensLeft(budget, 'shared'));
      toNext(60_000);
    }
    // 8 a minute until the hour's 20 are used; the reserve stays for the lifecycle.
    expect(counts).toEqual([8, 8, 4, 0]);
    const lifecycle = budget.for('lifecycle', { maxWaitMs: 0 });
    await expect(lifecycle.take()).resolves.toBeUndefined();
  });

  it('keeps the safety reserve from lifecycle polls and launches, and both reserves from the rest', async () => {
    toNext(3_600_000);
    const budget = container(simClock([], 'x'), {
      perMinute: 10,
      perHour: 25,
      lifecycleReserve: { perMinute: 2, perHour: 5 },
      safetyReserve: { perMinute: 3, perHour: 6 },
    });
    // In one minute: the sync gets 10 - 2 - 3, the lifecycle the next 2, and only a pause or brake the last 3.
    const taken = [];
    for (const share of ['shared', 'lifecycle', 'safety'] as const) taken.push(await tokensLeft(budget, share));
    expect(taken).toEqual([5, 2, 3]);
  });

  it('holds a token for each pause booked in a minute and the next from every share but safety', async () => {
    const hour = toNext(3_600_000);
    f.emu.core.clock.set(hour + 60_000);
    const limits = {
      perMinute: 100,
      perHour: 0,
      lifecycleReserve: { perMinute: 5, perHour: 0 },
      safetyReserve: { perMinute: 10, perHour: 0 },
    };
    const budget = container(simClock([], 'x'), limits);
    // 30 parts pause at 00:02 (booked twice, as a later look books again): 00:02 and 00:03 keep 30 for them.
    for (let i = 0; i < 30; i++) await budget.book(`u#${i}`, hour + 2 * 60_000 + 5_000);
    await budget.book('u#0', hour + 2 * 60_000);
    // Another container's look books one of them again: the parts counted are kept, so it is not counted twice.
    await container(simClock([], 'y'), limits).book('u#1', hour + 2 * 60_000 + 30_000);
    const minute = async () => {
      const taken = [];
      for (const share of ['shared', 'lifecycle', 'safety'] as const) taken.push(await tokensLeft(budget, share));
      f.emu.core.clock.advance(60_000);
      return taken;
    };
    // 00:01 nothing booked; 00:02 and 00:03 the sync and polls get 100 - 15 - 30, launches 5, the pauses the rest.
    expect([await minute(), await minute(), await minute(), await minute()]).toEqual([
      [85, 5, 10],
      [55, 5, 40],
      [55, 5, 40],
      [85, 5, 10],
    ]);
  });

  it('knows a share it refused is refused, without asking, until the window that refused it ends', async () => {
    toNext(3_600_000);
    const budget = container(simClock([], 'x'), {
      perMinute: 10,
      perHour: 0,
      lifecycleReserve: { perMinute: 2, perHour: 0 },
      safetyReserve: { perMinute: 3, perHour: 0 },
    });
    const shared = budget.for('shared', { maxWaitMs: 0 });
    expect(shared.refusal?.()).toBeNull();
    expect(await tokensLeft(budget, 'shared')).toBe(5);
    const refused = await shared.take().then(
      () => null,
      (err: unknown) => err,
    );
    expect(refused).toBeInstanceOf(BudgetExhaustedError);
    const known = shared.refusal?.();
    expect(known).toBeInstanceOf(BudgetExhaustedError);
    expect((known as BudgetExhaustedError).retryAt).toBe((refused as BudgetExhaustedError).retryAt);
    // Another share still has its tokens; a caller that may wait past the window's end would wait, not be refused.
    expect(budget.for('lifecycle', { maxWaitMs: 0 }).refusal?.()).toBeNull();
    expect(budget.for('shared', { maxWaitMs: 120_000 }).refusal?.()).toBeNull();
    toNext(60_000);
    expect(shared.refusal?.()).toBeNull();
    await expect(shared.take()).resolves.toBeUndefined();
  });

  it('takes the service at its word: X-RateLimit-Remaining raises the shared count, a 429 fills the window', async () => {
    const clock = simClock([], 'x');
    const budget = container(clock);
    const now = clock.now();
    const reset = String(Math.ceil((Math.floor(now / 60_000) * 60_000 + 60_000) / 1000));
    await budget.observe(
      new Headers({ 'x-ratelimit-limit': '100', 'x-ratelimit-remaining': '30', 'x-ratelimit-reset': reset }),
      200,
    );
    expect((await budget.used(now)).minute).toBe(70);
    await budget.observe(
      new Headers({ 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': reset, 'retry-after': '20' }),
      429,
    );
    expect((await budget.used(now)).minute).toBe(100);
    // Even the lifecycle waits for the service's reset.
    await expect(budget.for('lifecycle', { maxWaitMs: 0 }).take()).rejects.toBeInstanceOf(BudgetExhaustedError);
    // A 429 whose wait runs past the minute means the hour is spent.
    await budget.observe(
      new Headers({ 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': reset, 'retry-after': '900' }),
      429,
    );
    expect((await budget.used(now)).hour).toBe(1000);
  });
});

describe('the budget under a race between containers', () => {
  it('a take refused while another container gives a token back asks again: no request goes out uncounted', async () => {
    const clock = simClock([], 'x');
    toNext(3_600_000);
    const limits: BudgetLimits = {
      perMinute: 10,
      perHour: 1000,
      lifecycleReserve: { perMinute: 0, perHour: 0 },
      safetyReserve: { perMinute: 0, perHour: 0 },
    };
    const other = container(clock, limits);
    expect(await tokensLeft(other, 'shared')).toBe(10);
    // This container's DynamoDB client, as real as the other's; between its refused write and its read-back the
    // other container gives one token back (a booked pause's, say): an interleaving the stand-in cannot be timed into.
    const real = tableClient();
    let gaveBack = false;
    const racing = {
      send: async (command: Parameters<typeof real.send>[0]) => {
        try {
          return await real.send(command);
        } catch (err) {
          if (!gaveBack && (err as Error).name === 'ConditionalCheckFailedException') {
            gaveBack = true;
            await real.send(
              new UpdateCommand({
                TableName: dynamo.tables.apiBudget,
                Key: (command.input as { Key: Record<string, unknown> }).Key,
                UpdateExpression: 'ADD #n :minus, #m :minus',
                ExpressionAttributeNames: { '#n': 'n', '#m': `m${Math.floor(clock.now() / 60_000) * 60_000}` },
                ExpressionAttributeValues: { ':minus': -1 },
              }),
            );
          }
          throw err;
        }
      },
    } as unknown as typeof real;
    const budget = new SharedApiBudget(racing, dynamo.tables.apiBudget, limits, clock);
    await budget.for('shared', { maxWaitMs: 0 }).take();
    expect(gaveBack).toBe(true);
    // The token it was granted is counted: the minute is full again, not one short.
    expect((await budget.used(clock.now())).minute).toBe(10);
    expect(await tokensLeft(other, 'shared')).toBe(0);
  });

  it('a booking cut off between its count and its record is counted again, never lost', async () => {
    const clock = simClock([], 'x');
    const hour = toNext(3_600_000);
    const limits: BudgetLimits = {
      perMinute: 10,
      perHour: 0,
      lifecycleReserve: { perMinute: 0, perHour: 0 },
      safetyReserve: { perMinute: 0, perHour: 0 },
    };
    const real = tableClient();
    // The container stops after counting the pause, before recording which part it counted (the second write).
    let writes = 0;
    const cutOff = {
      send: async (command: Parameters<typeof real.send>[0]) => {
        if (command instanceof UpdateCommand && ++writes === 2) throw new Error('the container was stopped');
        return real.send(command);
      },
    } as unknown as typeof real;
    const at = hour + 5 * 60_000;
    await expect(new SharedApiBudget(cutOff, dynamo.tables.apiBudget, limits, clock).book('p#1', at)).rejects.toThrow(
      'stopped',
    );
    // The next look books again in a new container: counted again (one token more held back), not taken as done.
    await container(clock, limits).book('p#1', at);
    await clock.sleep(5 * 60_000);
    expect(await tokensLeft(container(clock, limits), 'shared')).toBeLessThanOrEqual(9);
  });

  it('a share whose reserves leave it nothing of a window gets no token, not even the first', async () => {
    const clock = simClock([], 'x');
    toNext(60_000);
    const budget = container(clock, {
      perMinute: 4,
      perHour: 1000,
      lifecycleReserve: { perMinute: 2, perHour: 0 },
      safetyReserve: { perMinute: 2, perHour: 0 },
    });
    expect(await tokensLeft(budget, 'shared')).toBe(0);
    expect(await tokensLeft(budget, 'lifecycle')).toBe(2);
    expect(await tokensLeft(budget, 'safety')).toBe(2);
    expect((await budget.used(clock.now())).minute).toBe(4);
  });
});

describe('the roll of parts polling on the plan', () => {
  it('counts each part once per hour, and the last hour too while this one fills', async () => {
    // Two containers, as two Lambda instances of the lifecycle would be.
    const [a, b] = [
      new PollRoll(tableClient(), dynamo.tables.apiBudget),
      new PollRoll(tableClient(), dynamo.tables.apiBudget),
    ];
    const ten = Date.parse('2026-12-07T10:00:00Z');
    expect(await a.note('u#1', ten)).toBe(1);
    expect(await b.note('u#2', ten + 60_000)).toBe(2);
    expect(await a.note('u#1', ten + 120_000)).toBe(2);
    expect(await b.note('u#3', ten + 59 * 60_000)).toBe(3);
    // A new hour: the first poll of it still counts the three of the last hour.
    expect(await a.note('u#1', ten + 3_600_000)).toBe(3);
    expect(await b.note('u#2', ten + 3_601_000)).toBe(3);
    // Two hours on, the roll is what polls now.
    expect(await a.note('u#1', ten + 2 * 3_600_000)).toBe(2);
  });
});

describe('the emulator enforces the plan', () => {
  it('per minute and per hour, with the headers of the window closest to running out', async () => {
    await f.admin.reset();
    const hit = () => fetch(`${f.emu.url}/api/developer/v1/agents`, { headers: { 'X-API-Key': TEST_KEY } });
    const hourStart = Math.floor(f.emu.core.clock.now() / 3_600_000) * 3_600_000;
    f.emu.core.clock.set(hourStart + 3_600_000); // the top of an hour
    const results: { status: number; remaining: string | null; limit: string | null }[] = [];
    for (let minute = 0; minute < 11; minute++) {
      for (let i = 0; i < 100; i++) {
        const res = await hit();
        results.push({
          status: res.status,
          remaining: res.headers.get('x-ratelimit-remaining'),
          limit: res.headers.get('x-ratelimit-limit'),
        });
        await res.arrayBuffer();
      }
      const over = await hit();
      expect(over.status).toBe(429);
      expect(Number(over.headers.get('retry-after'))).toBeGreaterThan(0);
      if (minute === 10) {
        expect(over.headers.get('x-ratelimit-limit')).toBe('1000');
        expect(Number(over.headers.get('retry-after'))).toBeGreaterThan(60 * 45);
      }
      await over.arrayBuffer();
      f.emu.core.clock.advance(60_000);
    }
    expect(results.filter((r) => r.status === 200)).toHaveLength(1000);
    expect(results[0]).toEqual({ status: 200, remaining: '99', limit: '100' });
    expect(results[991]).toEqual({ status: 200, remaining: '8', limit: '100' });
    // In the eleventh minute the hour is spent: every request is refused with the hour's headers.
    expect(results[1000]).toEqual({ status: 429, remaining: '0', limit: '1000' });
  });
});
