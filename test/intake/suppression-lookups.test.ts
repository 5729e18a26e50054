import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { documentClient } from '#commons/aws/clients.ts';
import { SuppressionList } from '#commons/suppression-list.ts';
import { type LocalDynamo, startDynamo } from '#local/stack/dynamo.ts';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '#local/stack/local-aws.ts';
import { type CountingProxy, startCountingProxy } from '../helpers/counting-proxy.ts';

let dynamo: LocalDynamo;
let proxy: CountingProxy;
beforeAll(async () => {
  dynamo = await startDynamo({ prefix: `s${Math.random().toString(36).slice(2, 8)}` });
  proxy = await startCountingProxy(dynamo.endpoint);
}, 60_000);
afterAll(async () => {
  await proxy.close();
  await dynamo.close();
});

const numbers = (n: number, from = 0) =>
  Array.from({ length: n }, (_, i) => `+1415555${String(from + i).padStart(4, '0')}`);

describe('the do-not-call check as intake makes it', () => {
  it('asks 100 numbers a request, several requests at once, and finds exactly the listed ones', async () => {
    const list = new SuppressionList(
      documentClient({
        region: LOCAL_REGION,
        endpoints: { dynamodb: dynamo.endpoint },
        credentials: LOCAL_CREDENTIALS,
      }),
      dynamo.tables.suppression,
    );
    const listed = numbers(300, 1000);
    await list.add(listed, 'opt-out', 'test');
    const viaProxy = new SuppressionList(
      documentClient({ region: LOCAL_REGION, endpoints: { dynamodb: proxy.url }, credentials: LOCAL_CREDENTIALS }),
      dynamo.tables.suppression,
    );
    // 2,500 distinct numbers (and one repeated), 300 of them listed.
    const asked = [...numbers(2500), '+14155550001'];
    const found = await viaProxy.matching(asked);
    expect([...found].sort()).toEqual(listed.filter((p) => asked.includes(p)).sort());
    expect(proxy.requests).toHaveLength(25);
    // One after another, each request would wait out its round trip: deployed, 1,000 of them for 100,000 rows.
    expect(proxy.maxInFlight).toBeGreaterThan(1);
  });
});
