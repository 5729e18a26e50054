import { BatchGetCommand, BatchWriteCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

import { eachConcurrently } from '../concurrently.ts';

const GET_BATCH = 100;
/**
 * Batches of one lookup in flight at once: a list of 100,000 numbers is 1,000 requests, and one after another each
 * waits its round trip. Sixteen at 100 keys each stay well inside a table's on-demand read capacity.
 */
const GET_CONCURRENCY = 16;
const WRITE_BATCH = 25;
const MAX_ROUNDS = 8;

const backoff = (round: number) => new Promise((r) => setTimeout(r, Math.random() * Math.min(1000, 50 * 2 ** round)));

/**
 * Every item of these keys that exists, read 100 a request (consistently), up to 16 requests at once; keys DynamoDB
 * leaves unprocessed are asked again with jittered backoff, and `what` names the caller when it keeps leaving them.
 */
export async function batchGetAll(
  db: DynamoDBDocumentClient,
  table: string,
  keys: readonly Record<string, unknown>[],
  what: string,
  projection?: string,
): Promise<Record<string, unknown>[]> {
  const found: Record<string, unknown>[] = [];
  const batches: Record<string, unknown>[][] = [];
  for (let i = 0; i < keys.length; i += GET_BATCH) batches.push(keys.slice(i, i + GET_BATCH));
  await eachConcurrently(batches, GET_CONCURRENCY, async (first) => {
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

/** Put and delete requests, 25 a request; unprocessed ones are sent again with jittered backoff. */
export async function batchWriteAll(
  db: DynamoDBDocumentClient,
  table: string,
  requests: readonly Record<string, unknown>[],
  what: string,
): Promise<void> {
  for (let i = 0; i < requests.length; i += WRITE_BATCH) {
    let batch = requests.slice(i, i + WRITE_BATCH);
    for (let round = 0; batch.length > 0; round++) {
      if (round >= MAX_ROUNDS) throw new Error(`${what}: DynamoDB kept writes unprocessed; try again`);
      if (round > 0) await backoff(round);
      const out = await db.send(new BatchWriteCommand({ RequestItems: { [table]: batch } }));
      batch = (out.UnprocessedItems?.[table] as Record<string, unknown>[] | undefined) ?? [];
    }
  }
}
