import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { documentClient } from '#commons/aws/clients.ts';
import { CampaignStore } from '#lifecycle/campaign-store.ts';
import { partRecords } from '#local/cli/operator.ts';
import { type LocalDynamo, startDynamo } from '#local/stack/dynamo.ts';
import { dynaliteClient } from '../helpers/dynalite-client.ts';

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
});
