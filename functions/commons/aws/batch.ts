import { BatchGetCommand, BatchWriteCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

const GET_BATCH = 100;
const WRITE_BATCH = 25;
const MAX_ROUNDS = 8;

const backoff = (round: number) => new Promise((r) => setTimeout(r, Math.random() * Math.min(1000, 50 * 2 ** round)));

/**
 * Every item of these keys that exists, read 100 a request (consistently); keys DynamoDB leaves unprocessed are
 * asked again with jittered backoff, and `what` names the caller when it keeps leaving them.
 */
export async function batchGetAll(
  db: DynamoDBDocumentClient,
  table: string,
  keys: readonly Record<string, unknown>[],
  what: string,
  projection?: string,
): Promise<Record<string, unknown>[]> {
  const found: Record<string, unknown>[] = [];
  for (let i = 0; i < keys.length; i += GET_BATCH) {
    let batch = keys.slice(i, i + GET_BATCH);
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
  }
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
