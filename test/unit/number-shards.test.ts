import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { byShard, NumberSet, shardOf } from '#commons/aws/number-shards.ts';
import { updateVersioned } from '#commons/aws/versioned-item.ts';

const numbers = (n: number, from = 0) =>
  Array.from({ length: n }, (_, i) => `+1415${String(from + i).padStart(7, '0')}`);

describe('NumberSet: E.164 numbers packed as the distances between them', () => {
  it('holds exactly the numbers given, once each, and reads them back', () => {
    const set = NumberSet.of(['+447946000001', '+14155550100', '+447946000001', '+999999999999999', '+12']);
    expect(set.size).toBe(4);
    expect(set.phones()).toEqual(['+12', '+14155550100', '+447946000001', '+999999999999999']);
    for (const p of set.phones()) expect(set.has(p)).toBe(true);
    for (const p of ['+14155550101', '+1', '+447946000000', '+9999999999999999', '14155550100', '+1 415 555 0100', ''])
      expect(set.has(p)).toBe(false);
  });

  it('survives the trip through its text, as an item stores it', () => {
    const text = NumberSet.of(numbers(1000)).text;
    expect(text).toMatch(/^[A-Za-z0-9+/]+=*$/);
    const back = NumberSet.from(text);
    expect(back.phones()).toEqual(numbers(1000));
    expect(back.has('+14150000999')).toBe(true);
    expect(back.has('+14150001000')).toBe(false);
    expect(NumberSet.from(undefined).size).toBe(0);
    expect(NumberSet.from('').size).toBe(0);
    expect(() => NumberSet.from(Buffer.from([0x81, 0x80]).toString('base64'))).toThrow(/ends inside a number/);
  });

  it('reads a set written by earlier code exactly: distances of one to eight 7-bit groups', () => {
    // Written before unpacking took its integer fast path: the stored layout is what existing items hold.
    const stored = 'DAGHCoCR8t00AaDuB8yDrP/PDIn11seqdfX9nIG7reIB';
    const phones = ['+12', '+13', '+1300', '+14155550100', '+14155550101', '+14155678901', '+447946000001'];
    const all = [...phones, '+4479460000010', '+999999999999999'];
    expect(NumberSet.from(stored).phones()).toEqual(all);
    expect(NumberSet.of(all).text).toBe(stored);
    expect(NumberSet.ofValues([14155550101, 12, 14155550101, 12]).phones()).toEqual(['+12', '+14155550101']);
  });

  it('adds and removes, and refuses to pack what is not E.164', () => {
    const set = NumberSet.of(numbers(5)).with(['+447946000001', '+14150000000'], ['+14150000002', 'not a number']);
    expect(set.phones()).toEqual(['+14150000000', '+14150000001', '+14150000003', '+14150000004', '+447946000001']);
    expect(() => NumberSet.of(['+1 415 555 0100'])).toThrow(/is not an E.164 number/);
    expect(() => set.with(['+0123'])).toThrow(/is not an E.164 number/);
  });
});

describe('shardOf', () => {
  it('always puts a number in the same shard, and spreads neighbouring numbers evenly', () => {
    expect(shardOf('+14155550100', 256)).toBe(shardOf('+14155550100', 256));
    const groups = byShard(numbers(100_000), 256);
    expect([...groups.keys()].every((s) => s >= 0 && s < 256)).toBe(true);
    const sizes = [...groups.values()].map((g) => g.length);
    expect(sizes.reduce((a, b) => a + b, 0)).toBe(100_000);
    // 390 a shard on average: none far off it, so no shard fills long before the others.
    expect(sizes).toHaveLength(256);
    expect(Math.min(...sizes)).toBeGreaterThan(300);
    expect(Math.max(...sizes)).toBeLessThan(480);
  });
});

describe('updateVersioned', () => {
  it('refuses an item past DynamoDB’s 400 KB limit before sending it, naming the item', async () => {
    const db = {
      send: async () => {
        throw new Error('nothing may be sent');
      },
    } as unknown as DynamoDBDocumentClient;
    // Numbers spread across the world: about 5 bytes each, 6.7 characters of base64.
    let x = 7;
    const spread = Array.from({ length: 80_000 }, () => {
      x = (Math.imul(x, 1103515245) + 12345) >>> 0;
      return `+${1 + (x % 9)}${String(x).padStart(10, '0')}${x % 1000}`;
    });
    const big = NumberSet.of(spread).text;
    expect(big.length).toBeGreaterThan(400 * 1024);
    await expect(
      updateVersioned(db, 't', { pk: 'caps#007' }, () => ({ numbers: big }), 'frequency caps', { item: undefined }),
    ).rejects.toThrow("frequency caps: caps#007 would pass DynamoDB's 400 KB item limit");
  });
});
