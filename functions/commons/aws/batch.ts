import { BatchGetCommand, BatchWriteCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

import { eachConcurrently } from '../concurrently.ts';

const GET_BATCH = 100;
/**
 * Batches of one call in flight at once: a list of 100,000 numbers is 1,000 requests, and one after another each
 * waits its round trip. Sixteen at 100 keys each stay well inside a table's on-demand capacity.
 */
const CONCURRENCY = 16;
const WRITE_BATCH = 25;
const MAX_ROUNDS = 8;

const backoff = (round: number) => new Promise((r) => setTimeout(r, Math.random() * Math.min(1000, 50 * 2 ** round)));

/**
 * Keys a request when the items may be large: a BatchGetItem answer holds at most 16 MB, 40 items of DynamoDB's
 * largest (400 KB), so asking no more never leaves keys unprocessed for size alone.
 */
export const LARGE_ITEMS_PER_GET = 40;

/**
 * Every item of these keys that exists, read 100 a request (or `perRequest`), consistently, up to 16 requests at
 * once; keys DynamoDB leaves unprocessed are asked again with jittered backoff, and `what` names the caller when it
 * keeps leaving them.
 */
export async function batchGetAll(
  db: DynamoDBDocumentClient,
  table: string,
  keys: readonly Record<string, unknown>[],
  what: string,
  options: { projection?: string; perRequest?: number } = {},
): Promise<Record<string, unknown>[]> {
  const { projection, perRequest = GET_BATCH } = options;
  const found: Record<string, unknown>[] = [];
  const batches: Record<string, unknown>[][] = [];
  for (let i = 0; i < keys.length; i += perRequest) batches.push(keys.slice(i, i + perRequest));
  await eachConcurrently(batches, CONCURRENCY, async (first) => {
    let batch = first;
    for (let round = 0; batch.length > 0; round++) {
      if (round >= MAX_ROUNDS) throw new Error(`${what}: DynamoDB kept keys unprocessed; try again`);
      if (round > 0) await backoff(round);
      const out = await db.send(
        new BatchGetCommand({
          RequestItems: {
            [table]: { Keys: batch, ConsistentRead: true, ...(projection ? { ProjectionExpression: projection } : {}) },
          },
        }),
      );
      found.push(...(out.Responses?.[table] ?? []));
      batch = (out.UnprocessedKeys?.[table]?.Keys as Record<string, unknown>[] | undefined) ?? [];
    }
  });
  return found;
}

/**
 * Put and delete requests, 25 a request, up to 16 requests at once (a list of a million numbers is 40,000 requests);
 * unprocessed ones are sent again with jittered backoff.
 */
export async function batchWriteAll(
  db: DynamoDBDocumentClient,
  table: string,
  requests: readonly Record<string, unknown>[],
  what: string,
): Promise<void> {
  const batches: Record<string, unknown>[][] = [];
  for (let i = 0; i < requests.length; i += WRITE_BATCH) batches.push(requests.slice(i, i + WRITE_BATCH));
  await eachConcurrently(batches, CONCURRENCY, async (first) => {
    let batch = first;
    for (let round = 0; batch.length > 0; round++) {
      if (round >= MAX_ROUNDS) throw new Error(`${what}: DynamoDB kept writes unprocessed; try again`);
      if (round > 0) await backoff(round);
      const out = await db.send(new BatchWriteCommand({ RequestItems: { [table]: batch } }));
      batch = (out.UnprocessedItems?.[table] as Record<string, unknown>[] | undefined) ?? [];
    }
  });
}
