import { BatchGetCommand, BatchWriteCommand, DeleteCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { documentClient } from '#commons/aws/clients.ts';
import { byShard } from '#commons/aws/number-shards.ts';
import { SuppressionList } from '#commons/suppression-list.ts';
import { type LocalDynamo, startDynamo } from '#local/stack/dynamo.ts';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '#local/stack/local-aws.ts';
import { type CountingProxy, startCountingProxy } from '../helpers/counting-proxy.ts';

let dynamo: LocalDynamo;
let proxy: CountingProxy;
let direct: DynamoDBDocumentClient;
let viaProxy: DynamoDBDocumentClient;
const clientAt = (endpoint: string) =>
  documentClient({ region: LOCAL_REGION, endpoints: { dynamodb: endpoint }, credentials: LOCAL_CREDENTIALS });

beforeAll(async () => {
  dynamo = await startDynamo({ prefix: `s${Math.random().toString(36).slice(2, 8)}` });
  proxy = await startCountingProxy(dynamo.endpoint);
  direct = clientAt(dynamo.endpoint);
  viaProxy = clientAt(proxy.url);
}, 60_000);
afterAll(async () => {
  direct.destroy();
  viaProxy.destroy();
  await proxy.close();
  await dynamo.close();
});

let table: string;
let n = 0;
// One table for the file: each test's numbers differ instead (`+1<n>41555…`).
beforeEach(() => {
  table = dynamo.tables.suppression;
  n++;
  proxy.reset();
});

const numbers = (count: number, from = 0) =>
  Array.from({ length: count }, (_, i) => `+1${n}41555${String(from + i).padStart(4, '0')}`);
const operations = () => proxy.requests.map((r) => r.operation);
/** The listed numbers of the running test (the table is shared). */
const mine = async (list: SuppressionList) =>
  (await list.list()).map((s) => s.phone).filter((p) => p.startsWith(`+1${n}41555`));

describe('the do-not-call check as intake makes it', () => {
  it('finds exactly the listed numbers among 2,500 in a few requests at once', async () => {
    const listed = numbers(300, 1000);
    await new SuppressionList(direct, table).add(listed, 'opt-out', 'test');
    // 2,500 distinct numbers (and one repeated), 300 of them listed; and one listed number that is not E.164.
    await new SuppressionList(direct, table).add(['0800 FLOWERS'], 'opt-out', 'test');
    const asked = [...numbers(2500), numbers(1)[0] as string, '0800 FLOWERS'];
    const found = await new SuppressionList(viaProxy, table).matching(asked);
    expect([...found].sort()).toEqual([...listed.filter((p) => asked.includes(p)), '0800 FLOWERS'].sort());
    // The mark and the shards of these numbers (of 256), 40 a request in flight together, and the odd one's item.
    const shardReads = Math.ceil((1 + byShard(numbers(2500), 256).size) / 40);
    expect(shardReads).toBeLessThanOrEqual(7);
    expect(operations()).toEqual(Array(shardReads + 1).fill('BatchGetItem'));
    expect(proxy.maxInFlight).toBeGreaterThan(1);
  });

  it('reads only the shards of the numbers asked: 10 numbers, one request', async () => {
    await new SuppressionList(direct, table).add(numbers(5), 'opt-out', 'test');
    const found = await new SuppressionList(viaProxy, table).matching(numbers(10));
    expect([...found].sort()).toEqual(numbers(5));
    expect(operations()).toEqual(['BatchGetItem']);
  });

  it('reads the shards as the numbers are wanted, 40 a request, before the match is asked', async () => {
    await new SuppressionList(direct, table).add(numbers(50, 100), 'opt-out', 'test');
    const sent: number[] = [];
    const recording = {
      send: (command: BatchGetCommand) => {
        sent.push(command.input.RequestItems?.[table]?.Keys?.length ?? 0);
        return direct.send(command);
      },
    } as unknown as DynamoDBDocumentClient;
    const lookup = new SuppressionList(recording, table).lookup();
    const asked = numbers(200);
    for (const phone of asked) lookup.want(phone);
    // The mark and the shards of 200 numbers: every full 40 already asked for, the rest when the match is.
    const keys = 1 + byShard(asked, 256).size;
    expect(sent).toEqual(Array(Math.floor(keys / 40)).fill(40));
    expect([...(await lookup.matching(asked))].sort()).toEqual(numbers(50, 100));
    expect(sent.reduce((a, b) => a + b, 0)).toBe(keys);
  });

  it('takes removed numbers out of the shards, and keeps the others', async () => {
    const list = new SuppressionList(direct, table);
    await list.add(numbers(50), 'opt-out', 'test');
    await list.remove(numbers(10, 20));
    const found = await list.matching(numbers(50));
    expect([...found].sort()).toEqual([...numbers(20), ...numbers(20, 30)]);
    expect(await mine(list)).toEqual([...found].sort());
  });

  it('looks a list from before the shards up number by number until reindexed, then by shard', async () => {
    // As older code left it: the numbers' items only, no shards, no mark.
    await direct.send(new DeleteCommand({ TableName: table, Key: { phone: '#indexed' } }));
    const legacy = numbers(250);
    for (let i = 0; i < legacy.length; i += 25)
      await direct.send(
        new BatchWriteCommand({
          RequestItems: {
            [table]: legacy.slice(i, i + 25).map((phone) => ({
              PutRequest: { Item: { phone, reason: 'opt-out', source: 'old', addedAt: '2026-01-01T00:00:00.000Z' } },
            })),
          },
        }),
      );
    const list = new SuppressionList(viaProxy, table);
    const asked = numbers(1000);
    expect((await list.matching(asked)).size).toBe(250);
    // The mark and the shards (none there), then the 1,000 keys, 100 a request.
    const shardReads = Math.ceil((1 + byShard(asked, 256).size) / 40);
    expect(operations()).toEqual(Array(shardReads + 10).fill('BatchGetItem'));

    expect(await list.ensureIndexed()).toBe(true);
    expect(await list.ensureIndexed()).toBe(false);
    proxy.reset();
    expect([...(await list.matching(asked))].sort()).toEqual(legacy);
    expect(operations()).toEqual(Array(shardReads).fill('BatchGetItem'));
    expect(await mine(list)).toEqual(legacy);
  });

  it('asks again for the keys DynamoDB leaves unprocessed, and finds them all', async () => {
    await new SuppressionList(direct, table).add(numbers(20), 'opt-out', 'test');
    // DynamoDB answers part of a batch when it is throttled; dynalite never is, so the first answer is cut here.
    let cut = 0;
    const asked: number[] = [];
    const throttled = {
      send: async (command: BatchGetCommand) => {
        const request = command.input.RequestItems?.[table];
        asked.push(request?.Keys?.length ?? 0);
        if (cut++ > 0 || !request?.Keys) return direct.send(command);
        const half = request.Keys.slice(0, Math.ceil(request.Keys.length / 2));
        const out = await direct.send(new BatchGetCommand({ RequestItems: { [table]: { ...request, Keys: half } } }));
        return { ...out, UnprocessedKeys: { [table]: { ...request, Keys: request.Keys.slice(half.length) } } };
      },
    } as unknown as DynamoDBDocumentClient;
    const found = await new SuppressionList(throttled, table).matching(numbers(20));
    expect(found.size).toBe(20);
    // The mark and 20 numbers' shards in one request; the half left unprocessed asked again.
    const first = asked[0] as number;
    expect(asked).toEqual([first, first - Math.ceil(first / 2)]);
  });
});
