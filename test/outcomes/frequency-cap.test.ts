import { BatchGetCommand, BatchWriteCommand, DeleteCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { EnvReader } from '#commons/config.ts';
import { type CapEntry, capDecision, DEFAULT_CAP_LIMITS, liveEntries, readCapLimits } from '#commons/frequency-cap.ts';
import { FrequencyCapStore } from '#commons/frequency-cap-store.ts';
import { createTables, type LocalDynamo, startDynamo } from '#local/stack/dynamo.ts';
import { type CountingProxy, startCountingProxy } from '../helpers/counting-proxy.ts';
import { dynaliteClient } from '../helpers/dynalite-client.ts';

const T = Date.parse('2026-03-02T12:00:00Z');
const hoursAgo = (h: number) => new Date(T - h * 3600_000).toISOString();
const entry = (key: string, h: number, calls = 1): CapEntry => ({ key, at: hoursAgo(h), calls });
const limits = { perDay: 3, perWeek: 7 };

describe('capDecision', () => {
  it.each<[string, CapEntry[], number, boolean, string | null]>([
    ['a fresh number', [], 3, true, null],
    ['a request over the daily cap alone', [], 4, false, 'daily-cap'],
    ['2 calls today + 1', [entry('a', 1, 2)], 1, true, null],
    ['2 calls today + 2', [entry('a', 1, 2)], 2, false, 'daily-cap'],
    ['3 calls 24 h ago exactly (left the day)', [entry('a', 24, 3)], 3, true, null],
    ['3 calls 23 h ago', [entry('a', 23, 3)], 1, false, 'daily-cap'],
    ['6 calls this week + 1', [entry('a', 30, 3), entry('b', 60, 3)], 1, true, null],
    ['6 calls this week + 2', [entry('a', 30, 3), entry('b', 60, 3)], 2, false, 'weekly-cap'],
    ['7 calls 7 days ago exactly (left the week)', [entry('a', 168, 7)], 3, true, null],
    ['a call in the future (clock skew) is not counted', [{ key: 'z', at: hoursAgo(-1), calls: 3 }], 3, true, null],
  ])('%s', (_name, entries, calls, admitted, reason) => {
    const d = capDecision(entries, { key: 'new', calls, at: new Date(T) }, limits);
    expect(d.admitted).toBe(admitted);
    expect(d.admitted ? null : d.reason).toBe(reason);
  });

  it('admits the same key again without counting it twice', () => {
    const d = capDecision([entry('part-1', 1, 3)], { key: 'part-1', calls: 3, at: new Date(T) }, limits);
    expect(d).toMatchObject({ admitted: true, alreadyCounted: true, day: 3 });
  });

  it('says why in words', () => {
    const d = capDecision([entry('a', 2, 3)], { key: 'b', calls: 1, at: new Date(T) }, limits);
    expect(d.admitted ? '' : d.message).toBe(
      'already 3 call(s) booked in the last 24 hours; 1 more would pass the cap of 3 a day',
    );
  });

  it('forgets entries older than a week', () => {
    expect(liveEntries([entry('old', 169), entry('new', 1)], new Date(T)).map((e) => e.key)).toEqual(['new']);
  });

  it('has documented defaults and reads both caps from the environment, naming a bad one', () => {
    expect(DEFAULT_CAP_LIMITS).toEqual({ perDay: 3, perWeek: 7 });
    const read = (env: Record<string, string>) => {
      const r = new EnvReader(env);
      const limits = readCapLimits(r);
      r.done();
      return limits;
    };
    expect(read({})).toEqual({ perDay: 3, perWeek: 7 });
    expect(read({ CALL_CAP_PER_DAY: '1', CALL_CAP_PER_WEEK: '4' })).toEqual({ perDay: 1, perWeek: 4 });
    expect(() => read({ CALL_CAP_PER_DAY: '0' })).toThrow(/CALL_CAP_PER_DAY="0": a whole number of calls, at least 1/);
  });
});

describe('FrequencyCapStore on DynamoDB (dynalite)', () => {
  let dynamo: LocalDynamo;
  let store: FrequencyCapStore;
  beforeAll(async () => {
    dynamo = await startDynamo({ prefix: 'caps' });
    const db = dynaliteClient(dynamo.endpoint);
    store = new FrequencyCapStore(db, dynamo.tables.outcomes, { perDay: 2, perWeek: 3 });
  });
  afterAll(async () => {
    await dynamo.close();
  });

  it('holds the caps across two campaigns sharing numbers, and across days of the week', async () => {
    const day1 = new Date('2026-03-02T09:00:00Z');
    const first = await store.admitAll(['+14155550001', '+14155550002'], 'upload-a-p1', 2, day1);
    expect(first.admitted).toEqual(['+14155550001', '+14155550002']);
    // A second campaign the same day, sharing one number: that one is over its daily cap.
    const second = await store.admitAll(['+14155550002', '+14155550003'], 'upload-b-p1', 1, day1);
    expect(second.admitted).toEqual(['+14155550003']);
    expect(second.skipped).toEqual([{ phone: '+14155550002', reason: 'daily-cap', message: expect.any(String) }]);
    // The first campaign's intake retried: admitted again, not counted twice.
    expect((await store.admitAll(['+14155550001'], 'upload-a-p1', 2, day1)).admitted).toEqual(['+14155550001']);
    // Next day the daily cap has room, the weekly one (3) does not for +…0001 (2 counted) asking 2.
    const day2 = new Date('2026-03-03T10:00:00Z');
    const third = await store.admitAll(['+14155550001', '+14155550003'], 'upload-c-p1', 2, day2);
    expect(third.admitted).toEqual(['+14155550003']);
    expect(third.skipped.map((s) => [s.phone, s.reason])).toEqual([['+14155550001', 'weekly-cap']]);
    // A week later everything is forgotten.
    const later = await store.admitAll(['+14155550001'], 'upload-d-p1', 2, new Date('2026-03-09T10:00:00Z'));
    expect(later.admitted).toEqual(['+14155550001']);
  });

  it('answers each number once, in the order asked, whatever shard it is in', async () => {
    const at = new Date('2026-03-04T09:00:00Z');
    // 40 numbers over many shards; every third was called twice today already, so it has no room for 2 more.
    const asked = Array.from({ length: 40 }, (_, i) => `+1617555${String((i * 7919) % 10000).padStart(4, '0')}`);
    const full = asked.filter((_, i) => i % 3 === 0);
    expect((await store.admitAll(full, 'earlier-today', 2, at)).admitted).toEqual(full);
    const out = await store.admitAll([...asked, ...asked.slice(0, 5)], 'upload-order', 2, at);
    expect(out.admitted).toEqual(asked.filter((_, i) => i % 3 !== 0));
    expect(out.skipped.map((s) => s.phone)).toEqual(full);
    expect(out.skipped.every((s) => s.reason === 'daily-cap' && /already 2 call/.test(s.message))).toBe(true);
    // A single admission answers for its one number.
    expect(await store.admit(asked[1] as string, 'upload-order', 2, at)).toMatchObject({ alreadyCounted: true });
    expect(await store.admit('+16175559999', 'upload-single', 1, at)).toMatchObject({ admitted: true, day: 1 });
    expect(await store.admit(asked[0] as string, 'upload-single', 1, at)).toMatchObject({ reason: 'daily-cap' });
  });

  it('lets only one of two concurrent campaigns take the last call under the cap', async () => {
    const at = new Date('2026-03-02T09:00:00Z');
    const results = await Promise.all(
      Array.from({ length: 6 }, (_, i) => store.admit('+14155550099', `concurrent-${i}`, 1, at)),
    );
    expect(results.filter((r) => r.admitted)).toHaveLength(2);
    expect(results.filter((r) => !r.admitted).every((r) => !r.admitted && r.reason === 'daily-cap')).toBe(true);
  });
});

describe('frequency caps at the scale of an upload (dynalite behind a counting proxy)', () => {
  let dynamo: LocalDynamo;
  let proxy: CountingProxy;
  let store: FrequencyCapStore;
  beforeAll(async () => {
    dynamo = await startDynamo({ prefix: 'capscale' });
    proxy = await startCountingProxy(dynamo.endpoint);
    store = new FrequencyCapStore(dynaliteClient(proxy.url), dynamo.tables.outcomes, { perDay: 3, perWeek: 7 });
  });
  afterAll(async () => {
    await proxy?.close();
    await dynamo?.close();
  });
  const at = new Date('2026-03-02T09:00:00Z');
  const numbers = (count: number, from = 0) =>
    Array.from({ length: count }, (_, i) => `+1312555${String(from + i).padStart(4, '0')}`);

  it('admits 2,000 numbers with a few reads and one write a shard, at most 16 at once', async () => {
    proxy.reset();
    const out = await store.admitAll(numbers(2000), 'upload-big', 2, at);
    expect(out.admitted).toHaveLength(2000);
    const ops = proxy.requests.map((r) => r.operation);
    // 64 shards, 40 a read; then one conditional write each, no more than 16 in flight.
    expect(ops.filter((o) => o === 'BatchGetItem')).toHaveLength(2);
    expect(ops.filter((o) => o === 'PutItem')).toHaveLength(64);
    expect(ops).toHaveLength(66);
    expect(proxy.maxInFlight).toBeGreaterThan(1);
    expect(proxy.maxInFlight).toBeLessThanOrEqual(16);

    // The same upload retried: every number admitted again, nothing written.
    proxy.reset();
    expect((await store.admitAll(numbers(2000), 'upload-big', 2, at)).admitted).toHaveLength(2000);
    expect(proxy.requests.map((r) => r.operation)).toEqual(Array(2).fill('BatchGetItem'));
  });

  it('lets two uploads sharing 300 numbers, admitted at once, count each shared number once', async () => {
    const a = numbers(600, 3000);
    const b = numbers(600, 3300);
    const shared = numbers(300, 3300);
    const [first, second] = await Promise.all([
      store.admitAll(a, 'upload-a', 2, at),
      store.admitAll(b, 'upload-b', 2, at),
    ]);
    // 2 + 2 calls would pass 3 a day: each shared number went to exactly one upload.
    const both = [...first.admitted, ...second.admitted];
    expect(new Set(both).size).toBe(both.length);
    expect(both.sort()).toEqual(numbers(900, 3000));
    expect([...first.skipped, ...second.skipped].map((s) => s.phone).sort()).toEqual(shared);
    expect([...first.skipped, ...second.skipped].every((s) => s.reason === 'daily-cap')).toBe(true);
    // Each number holds 2 calls: one more fits under 3, and then none.
    expect((await store.admitAll(numbers(900, 3000), 'probe-1', 1, at)).admitted).toHaveLength(900);
    expect((await store.admitAll(numbers(900, 3000), 'probe-2', 1, at)).skipped).toHaveLength(900);
  });
  it('decides again on what another admission wrote between its read and its write', async () => {
    const phone = '+13125559999';
    const direct = dynaliteClient(dynamo.endpoint);
    const rival = new FrequencyCapStore(direct, dynamo.tables.outcomes, { perDay: 3, perWeek: 7 });
    // Right after this store has read the shard, another upload takes 2 of the number's 3 calls.
    let raced = false;
    const racing = {
      send: async (command: object) => {
        const out = await direct.send(command as BatchGetCommand);
        if (!raced && command instanceof BatchGetCommand) {
          raced = true;
          expect((await rival.admitAll([phone], 'upload-rival', 2, at)).admitted).toEqual([phone]);
        }
        return out;
      },
    } as unknown as DynamoDBDocumentClient;
    const late = new FrequencyCapStore(racing, dynamo.tables.outcomes, { perDay: 3, perWeek: 7 });
    const out = await late.admitAll([phone], 'upload-late', 2, at);
    expect(raced).toBe(true);
    expect(out.admitted).toEqual([]);
    expect(out.skipped.map((s) => s.reason)).toEqual(['daily-cap']);
    // Only the rival's 2 calls are counted: 1 more fits, then none.
    expect((await rival.admitAll([phone], 'probe-a', 1, at)).admitted).toEqual([phone]);
    expect((await rival.admitAll([phone], 'probe-b', 1, at)).admitted).toEqual([]);
  });
});

describe('call counts kept before the cap shards (`cap#<phone>` items) across the upgrade', () => {
  let dynamo: LocalDynamo;
  let proxy: CountingProxy;
  let direct: DynamoDBDocumentClient;
  let table: string;
  let range = 0;
  beforeAll(async () => {
    dynamo = await startDynamo({ prefix: 'legacycaps' });
    proxy = await startCountingProxy(dynamo.endpoint);
    direct = dynaliteClient(dynamo.endpoint);
  });
  afterAll(async () => {
    direct?.destroy();
    await proxy?.close();
    await dynamo?.close();
  });
  const at = new Date('2026-03-02T12:00:00Z');
  const ago = (h: number) => new Date(at.getTime() - h * 3600_000).toISOString();
  const numbers = (count: number, from = 0) =>
    Array.from({ length: count }, (_, i) => `+1646${range}55${String(from + i).padStart(4, '0')}`);
  const store = (db = direct) => new FrequencyCapStore(db, table, { perDay: 3, perWeek: 7 });
  const operations = () => proxy.requests.map((r) => r.operation);

  // Each test on a table of its own as the version before the shards left it: no index mark.
  beforeEach(async () => {
    range++;
    table = (await createTables(dynamo.endpoint, `legacy${range}`)).outcomes;
  });

  /** One item per number counted, as the version before the shards wrote them. */
  async function upgradedFrom(items: Record<string, CapEntry[]>) {
    const puts = Object.entries(items).map(([phone, entries]) => ({
      PutRequest: { Item: { pk: `cap#${phone}`, kind: 'cap', phone, version: entries.length, entries } },
    }));
    for (let i = 0; i < puts.length; i += 25)
      await direct.send(new BatchWriteCommand({ RequestItems: { [table]: puts.slice(i, i + 25) } }));
  }

  it('refuses a number already at its cap in its old item, before the reindex and after it', async () => {
    const [full, fresh, stale] = numbers(3);
    await upgradedFrom({
      // 7 calls in the week, 3 of them today: at both caps.
      [full as string]: [
        { key: 'old-campaign-1', at: ago(50), calls: 4 },
        { key: 'old-campaign-2', at: ago(2), calls: 3 },
      ],
      // Older than a week: neither counted nor folded.
      [stale as string]: [{ key: 'older-campaign', at: ago(24 * 8), calls: 7 }],
    });
    const asked = [full, fresh, stale] as string[];
    proxy.reset();
    // As intake asks: numbers wanted as their rows are read, then admitted.
    const lookup = store(dynaliteClient(proxy.url)).lookup();
    for (const phone of asked) lookup.want(phone);
    // Asked twice, as a caller might: decided and read once (a repeated key would fail the old items' read).
    const before = await lookup.turnedAway([...asked, full as string], 'new-upload', 1, at);
    expect(before).toEqual([{ phone: full, reason: 'daily-cap', message: expect.any(String) }]);
    // The shards and the mark in one request, the old items in another.
    expect(operations().filter((o) => o === 'BatchGetItem')).toHaveLength(2);

    expect(await store().reindex(at)).toEqual({ numbers: 1, added: 2 });
    expect(await store().indexed()).toBe(true);
    const after = await store().admitAll(asked, 'newer-upload', 1, new Date(at.getTime() + 60_000));
    expect(after.admitted).toEqual([fresh, stale]);
    expect(after.skipped.map((s) => [s.phone, s.reason])).toEqual([[full, 'daily-cap']]);
    // A day later today's 3 calls have left the day but not the week.
    const nextDay = new Date(at.getTime() + 25 * 3600_000);
    expect((await store().admitAll([full as string], 'next-day', 1, nextDay)).skipped.map((s) => s.reason)).toEqual([
      'weekly-cap',
    ]);
  });

  it('admits a retried pre-upgrade upload without counting it twice, before and after the reindex', async () => {
    const [again] = numbers(1) as [string];
    await upgradedFrom({ [again]: [{ key: 'old-upload', at: ago(1), calls: 2 }] });
    expect(await store().admit(again, 'old-upload', 2, at)).toMatchObject({ admitted: true, alreadyCounted: true });
    await store().reindex(at);
    expect(await store().admit(again, 'old-upload', 2, at)).toMatchObject({ admitted: true, alreadyCounted: true });
    // Only the old 2 calls are counted: 1 more fits under 3 a day, then none.
    expect((await store().admitAll([again], 'probe-1', 1, at)).admitted).toEqual([again]);
    expect((await store().admitAll([again], 'probe-2', 1, at)).admitted).toEqual([]);
  });

  it('folds each reservation once however often it runs, counting also what was admitted before it', async () => {
    const phones = numbers(300);
    await upgradedFrom(
      Object.fromEntries(
        phones.map((p, i) => [
          p,
          i % 2 === 0
            ? [{ key: 'old-a', at: ago(3), calls: 1 }]
            : [
                { key: 'old-a', at: ago(3), calls: 1 },
                { key: 'old-b', at: ago(30), calls: 1 },
              ],
        ]),
      ),
    );
    // Admitted after the upgrade, before the reindex: in the shards, beside the old items.
    expect((await store().admitAll(phones, 'between', 1, at)).admitted).toHaveLength(300);
    const first = await store().reindex(at);
    expect(first).toEqual({ numbers: 300, added: 450 });
    // Run again, and twice at once: nothing more is added.
    expect(await store().reindex(at)).toEqual({ numbers: 300, added: 0 });
    const both = await Promise.all([store().reindex(at), store().reindex(at)]);
    expect(both.map((r) => r.added)).toEqual([0, 0]);
    // As if the fold had ended and the mark were not yet written: old-a, in the shards and the old items, counts once.
    await direct.send(new DeleteCommand({ TableName: table, Key: { pk: 'caps#indexed' } }));
    // Each number holds 2 calls today (old-a, between): one more fits under 3, then none.
    expect((await store().admitAll(phones, 'probe-1', 1, at)).admitted).toHaveLength(300);
    expect((await store().admitAll(phones, 'probe-2', 1, at)).admitted).toHaveLength(0);
  });

  it('stays exact when admissions run while the reindex folds, and two reindexes run at once', async () => {
    const phones = numbers(400);
    await upgradedFrom(Object.fromEntries(phones.map((p) => [p, [{ key: 'old', at: ago(1), calls: 2 }]])));
    // Two uploads take the last call of the same numbers while two reindexes fold the old 2 calls in.
    const [a, b, r1, r2] = await Promise.all([
      store().admitAll(phones, 'upload-a', 1, at),
      store().admitAll(phones, 'upload-b', 1, at),
      store().reindex(at),
      store().reindex(at),
    ]);
    expect(a.admitted.length + b.admitted.length).toBe(400);
    expect(new Set([...a.admitted, ...b.admitted]).size).toBe(400);
    expect(r1.added + r2.added).toBe(400);
    expect((await store().admitAll(phones, 'probe', 1, at)).admitted).toEqual([]);
  });

  it('reads the old items no more once the table is marked indexed', async () => {
    expect(await store().ensureIndexed(at)).toBe(true);
    expect(await store().ensureIndexed(at)).toBe(false);
    // An old item appearing after the mark (nothing writes them now) is not read: the mark is what decides.
    const [late] = numbers(1) as [string];
    await direct.send(
      new BatchWriteCommand({
        RequestItems: {
          [table]: [
            {
              PutRequest: {
                Item: {
                  pk: `cap#${late}`,
                  kind: 'cap',
                  phone: late,
                  version: 1,
                  entries: [{ key: 'x', at: ago(1), calls: 3 }],
                },
              },
            },
          ],
        },
      }),
    );
    proxy.reset();
    expect((await store(dynaliteClient(proxy.url)).admitAll([late], 'after-mark', 1, at)).admitted).toEqual([late]);
    expect(operations()).toEqual(['BatchGetItem', 'PutItem']);
  });
});
