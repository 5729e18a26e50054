import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { documentClient } from '#commons/aws/dynamo-client.ts';
import { scanAll } from '#commons/aws/scan-all.ts';
import { type LocalDynamo, startDynamo } from '#local/stack/dynamo.ts';
import { dynaliteClient } from '../helpers/dynalite-client.ts';

let dynamo: LocalDynamo;
let db: ReturnType<typeof documentClient>;

beforeAll(async () => {
  dynamo = await startDynamo({ prefix: 'scan' });
  db = dynaliteClient(dynamo.endpoint);
  for (let i = 0; i < 12; i++)
    await db.send(
      new PutCommand({ TableName: dynamo.tables.campaigns, Item: { pk: `${i % 3 ? 'other' : 'part'}#${i}` } }),
    );
});

afterAll(async () => {
  db.destroy();
  await dynamo.close();
});

it('reads every page, past pages the filter left empty', async () => {
  // One item a page: most pages hold only items the filter drops, and come back empty with more to follow.
  const found = await scanAll<{ pk: string }>(db, {
    TableName: dynamo.tables.campaigns,
    Limit: 1,
    FilterExpression: 'begins_with(pk, :part)',
    ExpressionAttributeValues: { ':part': 'part#' },
  });
  expect(found.map((f) => f.pk).sort()).toEqual(['part#0', 'part#3', 'part#6', 'part#9']);
});
