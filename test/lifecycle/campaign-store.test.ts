import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { documentClient } from '#commons/aws/clients.ts';
import { CampaignStore, type Secured } from '#lifecycle/campaign-store.ts';
import { partRecords } from '#local/cli/operator.ts';
import { createTables, type LocalDynamo, startDynamo } from '#local/stack/dynamo.ts';
import { dynaliteClient } from '../helpers/dynalite-client.ts';
import { startDynamoProxy } from '../helpers/dynamo-proxy.ts';
import { campaignsTableBeforeIndex } from '../helpers/table-before-index.ts';

let dynamo: LocalDynamo;
let store: CampaignStore;
let db: ReturnType<typeof documentClient>;
beforeAll(async () => {
  dynamo = await startDynamo({ prefix: 'campaign-store' });
  db = dynaliteClient(dynamo.endpoint);
  store = new CampaignStore(db, dynamo.tables.campaigns);
});
afterAll(async () => {
  await dynamo.close();
});

describe('a part that ends before its launch wrote its record', () => {
  it('is recorded whole: its key, upload and part, with status and failure', async () => {
    const failure = { code: 'BudgetExhaustedError', message: 'the budget is used up' };
    await store.finish('up-1-p88', 'failed', new Date('2026-12-07T13:00:00Z'), failure, { uploadId: 'up-1', part: 88 });
    expect(await store.get('up-1-p88')).toMatchObject({
      partKey: 'up-1-p88',
      uploadId: 'up-1',
      part: 88,
      status: 'failed',
      finishedAt: '2026-12-07T13:00:00.000Z',
      failure,
    });
  });

  it('keeps the upload and part a launch recorded', async () => {
    await store.beginCreate('up-2-p3', 'up-2', 3, new Date('2026-12-07T13:00:00Z'));
    await store.finish('up-2-p3', 'completed', new Date('2026-12-07T15:00:00Z'), undefined, {
      uploadId: 'other',
      part: 9,
    });
    expect(await store.get('up-2-p3')).toMatchObject({ uploadId: 'up-2', part: 3, status: 'completed' });
  });

  it('is listed by the operator commands even when written without its key (an older record)', async () => {
    await store.finish('up-3-p1', 'failed', new Date('2026-12-07T13:00:00Z'));
    await db.send(
      new UpdateCommand({
        TableName: dynamo.tables.campaigns,
        Key: { pk: 'part#up-3-p1' },
        UpdateExpression: 'REMOVE partKey',
      }),
    );
    const records = await partRecords({ db, table: dynamo.tables.campaigns });
    expect(records.map((r) => r.partKey)).toContain('up-3-p1');
  });
});

describe('many parts at once', () => {
  it('reads 150 records by part key in batches, older ones without their key too, and skips missing ones', async () => {
    const keys = Array.from({ length: 150 }, (_, i) => `up-many-p${i + 1}`);
    for (const [i, key] of keys.entries())
      await store.beginCreate(key, 'up-many', i + 1, new Date('2026-12-07T13:00:00Z'));
    await db.send(
      new UpdateCommand({
        TableName: dynamo.tables.campaigns,
        Key: { pk: 'part#up-many-p7' },
        UpdateExpression: 'REMOVE partKey',
      }),
    );
    const found = await store.getMany([...keys, 'up-many-p999']);
    expect([...found.keys()].sort()).toEqual([...keys].sort());
    expect(found.get('up-many-p7')).toMatchObject({ uploadId: 'up-many', part: 7 });
    expect(found.get('up-many-p150')).toMatchObject({ partKey: 'up-many-p150', part: 150 });
  });
});

describe('the brake register', () => {
  it('says whether a hold is new, so a brake that failed can leave it as it found it', async () => {
    const now = new Date('2026-12-07T16:53:00Z');
    expect(await store.hold('agt_register', 'part-a', now)).toBe(true);
    expect(await store.hold('agt_register', 'part-a', now)).toBe(false);
    expect(await store.hold('agt_register', 'part-b', now)).toBe(true);
    expect(await store.release('agt_register', 'part-a')).toBe(1);
    expect(await store.hold('agt_register', 'part-a', now)).toBe(true);
    expect(await store.holders('agt_register')).toBe(2);
  });

  it("reads many agents' holders 100 to a request, an agent whose brake nobody pulled holding none", async () => {
    const now = new Date('2026-12-07T16:53:00Z');
    const agents = Array.from({ length: 150 }, (_, i) => `agt_many_${i}`);
    for (const [i, agent] of agents.entries()) if (i % 2 === 0) await store.hold(agent, `part-${i}`, now);
    await store.hold('agt_many_0', 'part-x', now);
    const held = await store.holdersOfMany([...agents, 'agt_many_0']);
    expect(held.size).toBe(150);
    expect(held.get('agt_many_0')).toEqual(['part-0', 'part-x']);
    expect(held.get('agt_many_1')).toEqual([]);
    expect(held.get('agt_many_148')).toEqual(['part-148']);
    for (const agent of agents) expect(held.get(agent)).toEqual(await store.holdersOf(agent));
  });
});

describe('the parts a sweep looks at', () => {
  const on = new Date('2026-12-07T15:00:00Z');
  const secured = (outcome: string, pauseHeld?: boolean): Secured => ({
    at: on.toISOString(),
    by: 'guard',
    outcome,
    reason: 'test',
    ...(pauseHeld === undefined ? {} : { pauseHeld }),
  });
  /** A part its workflow ended with `status`, and what securing it left (none: never secured). */
  const ended =
    (status: 'completed' | 'held' | 'failed' | 'cancelled', securing?: Secured) => (s: CampaignStore, k: string) =>
      s.finish(k, status, on, undefined, undefined, securing);
  // Each part's state, whether `unfinished` lists it, and whether it does with `unconfirmed`.
  const cases: {
    name: string;
    make: (s: CampaignStore, key: string) => Promise<unknown>;
    listed: [boolean, boolean];
  }[] = [
    { name: 'creating', make: (s, k) => s.beginCreate(k, 'sweep', 1, on), listed: [true, true] },
    {
      name: 'running',
      make: async (s, k) => {
        await s.beginCreate(k, 'sweep', 1, on);
        await s.created(k, `cmp-${k}`);
      },
      listed: [true, true],
    },
    { name: 'completed', make: ended('completed'), listed: [false, false] },
    { name: 'held', make: ended('held'), listed: [false, false] },
    { name: 'failed, never secured', make: ended('failed'), listed: [false, false] },
    { name: 'failed, securing unconfirmed', make: ended('failed', secured('unconfirmed')), listed: [false, true] },
    { name: 'failed, paused', make: ended('failed', secured('paused', true)), listed: [false, false] },
    { name: 'failed, held by the brake alone', make: ended('failed', secured('braked', false)), listed: [false, true] },
    {
      name: 'cancelled, held by the brake alone',
      make: ended('cancelled', secured('braked', false)),
      listed: [false, true],
    },
    { name: 'cancelled, paused', make: ended('cancelled', secured('paused', true)), listed: [false, false] },
    {
      name: 'cancelled, securing unconfirmed (its workflow cancelled it: left as it is)',
      make: ended('cancelled', secured('unconfirmed')),
      listed: [false, false],
    },
  ];
  const keyOf = (i: number) => `sweep-p${i + 1}`;
  const expected = (unconfirmed: boolean) =>
    cases.flatMap((c, i) => (c.listed[unconfirmed ? 1 : 0] ? [keyOf(i)] : [])).sort();

  /** The same parts in a table with the index (as created now) and in one made before it, through a counting proxy. */
  async function tables() {
    const proxy = await startDynamoProxy(dynamo.endpoint, 0);
    const old = await campaignsTableBeforeIndex(dynamo.endpoint, 'campaign-store-before-index');
    const viaProxy = dynaliteClient(proxy.url);
    // Tables of their own: the parts of the tests above would be listed too.
    const fresh = await createTables(dynamo.endpoint, 'sweep');
    const indexed = new CampaignStore(viaProxy, fresh.campaigns);
    const before = new CampaignStore(viaProxy, old);
    for (const s of [indexed, before]) {
      for (const [i, c] of cases.entries()) await c.make(s, keyOf(i));
      // Not parts: a brake and a campaign's pointer to its part live in the same table.
      await s.hold('agt_sweep', keyOf(0), on);
      await s.created(keyOf(1), 'cmp-again');
    }
    return {
      proxy,
      indexed,
      before,
      old,
      fresh: fresh.campaigns,
      client: viaProxy,
      close: async () => {
        viaProxy.destroy();
        await proxy.close();
      },
    };
  }

  let t: Awaited<ReturnType<typeof tables>>;
  beforeAll(async () => {
    t = await tables();
  });
  afterAll(async () => {
    await t.close();
  });

  it('are the same parts whether the table has its status index or was made before it', async () => {
    for (const unconfirmed of [false, true])
      for (const s of [t.indexed, t.before]) {
        const listed = (await s.unfinished({ unconfirmed })).map((r) => r.partKey);
        expect(listed, `unconfirmed ${unconfirmed}`).toEqual(expected(unconfirmed));
      }
  });

  it('are each read once when the index names a part under two statuses (it changed while the index was read)', async () => {
    // dynalite's index never lags: the running query here also answers the creating part, as a lagging index may.
    const lagging = {
      send: async (command: unknown) => {
        const out = await t.client.send(command as never);
        const input = (
          command as { input?: { IndexName?: string; ExpressionAttributeValues?: Record<string, unknown> } }
        ).input;
        if (input?.IndexName && input.ExpressionAttributeValues?.[':status'] === 'running')
          return { ...out, Items: [...((out as { Items?: unknown[] }).Items ?? []), { pk: `part#${keyOf(0)}` }] };
        return out;
      },
    } as unknown as typeof db;
    const store = new CampaignStore(lagging, t.fresh);
    expect((await store.unfinished({ unconfirmed: true })).map((r) => r.partKey)).toEqual(expected(true));
  });

  it('say when the table was scanned instead, and why', async () => {
    const why: string[] = [];
    await t.indexed.unfinished({ unconfirmed: true, scanned: (w) => why.push(w) });
    expect(why).toEqual([]);
    await t.before.unfinished({ unconfirmed: true, scanned: (w) => why.push(w) });
    expect(why).toEqual(['The table does not have the specified index: by-status']);
  });

  it('whose campaigns are watched: those that ended without completing in the week, by end day or by scanning', async () => {
    // Ended eight days before: no longer watched.
    for (const s of [t.indexed, t.before])
      await s.finish('sweep-long-ago', 'cancelled', new Date('2026-11-29T15:00:00Z'));
    const since = new Date('2026-11-30T15:00:00Z');
    const now = new Date('2026-12-07T16:00:00Z');
    const ended = cases.flatMap((c, i) => (/^(held|failed|cancelled)/.test(c.name) ? [`part#${keyOf(i)}`] : []));
    expect(ended).toHaveLength(8);
    const why: string[] = [];
    t.proxy.reset();
    for (const s of [t.indexed, t.before]) {
      const parts = await s.endedAfter(since, now, (w) => why.push(w));
      expect(parts.map((p) => `part#${p.partKey}`)).toEqual(ended.sort());
      expect(parts.find((p) => p.partKey === keyOf(9))).toEqual({
        partKey: keyOf(9),
        status: 'cancelled',
        finishedAt: on.toISOString(),
        secured: secured('paused', true),
      });
    }
    expect(why).toEqual(['The table does not have the specified index: by-end-day']);
    const ops = t.proxy
      .tallies()
      .map((x) => `${x.table === t.fresh ? 'indexed' : 'before'} ${x.operation} ${x.requests}`)
      .sort();
    // A query per day from the 30th to the 7th; the table made before the index is scanned.
    expect(ops).toEqual(['before Query 8', 'before Scan 1', 'indexed Query 8']);
  });

  it('whose campaigns are watched: each once, and none of a part that completed after all', async () => {
    // Failed by the guard, then completed by its workflow's last step: nobody is left to call, so it leaves the watch.
    await t.indexed.finish('sweep-failed-then-completed', 'failed', on);
    await t.indexed.finish('sweep-failed-then-completed', 'completed', on);
    // An index that lags a part ended on two days names it under both.
    const lagging = {
      send: async (command: unknown) => {
        const out = await t.client.send(command as never);
        const input = (command as { input?: { IndexName?: string } }).input;
        if (input?.IndexName === 'by-end-day')
          return {
            ...out,
            Items: [...((out as { Items?: unknown[] }).Items ?? []), ...((out as { Items?: unknown[] }).Items ?? [])],
          };
        return out;
      },
    } as unknown as typeof db;
    const parts = await new CampaignStore(lagging, t.fresh).endedAfter(
      new Date('2026-11-30T15:00:00Z'),
      new Date('2026-12-07T16:00:00Z'),
    );
    const keys = parts.map((p) => `part#${p.partKey}`);
    expect(keys).toEqual([...new Set(keys)]);
    expect(keys).toHaveLength(8);
    expect(keys).not.toContain('part#sweep-failed-then-completed');
  });

  it('are read through the index, not by scanning every part; a table made before it is scanned', async () => {
    t.proxy.reset();
    await t.indexed.unfinished({ unconfirmed: true });
    const ops = (table: string) =>
      t.proxy
        .tallies()
        .filter((x) => x.table === table)
        .map((x) => `${x.operation} ${x.requests}`)
        .sort();
    // A query per status listed (creating, running, failed, cancelled), then the parts named read consistently.
    expect(ops(t.fresh)).toEqual(['BatchGetItem 1', 'Query 4']);
    t.proxy.reset();
    await t.before.unfinished({ unconfirmed: true });
    // Its queries answer that there is no such index (nothing read, nothing billed), and it is scanned.
    expect(ops(t.old)).toEqual(['Query 4', 'Scan 1']);
  });
});
