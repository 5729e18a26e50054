import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EnvReader } from '#commons/config.ts';
import { type CapEntry, capDecision, DEFAULT_CAP_LIMITS, liveEntries, readCapLimits } from '#commons/frequency-cap.ts';
import { FrequencyCapStore } from '#commons/frequency-cap-store.ts';
import { type LocalDynamo, startDynamo } from '#local/stack/dynamo.ts';
import { dynaliteClient } from './webhook-run.ts';

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
      'already 3 call(s) in the last 24 hours; 1 more would pass the cap of 3 a day',
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

  it('lets only one of two concurrent campaigns take the last call under the cap', async () => {
    const at = new Date('2026-03-02T09:00:00Z');
    const results = await Promise.all(
      Array.from({ length: 6 }, (_, i) => store.admit('+14155550099', `concurrent-${i}`, 1, at)),
    );
    expect(results.filter((r) => r.admitted)).toHaveLength(2);
    expect(results.filter((r) => !r.admitted).every((r) => !r.admitted && r.reason === 'daily-cap')).toBe(true);
  });
});
