import { BatchGetCommand, BatchWriteCommand, type DynamoDBDocumentClient, ScanCommand } from '@aws-sdk/lib-dynamodb';

export interface SuppressedNumber {
  phone: string;
  /** Why the number may not be called (opt-out, complaint, legal). */
  reason: string;
  /** Who added it: `cli`, `contact-sync`, … */
  source: string;
  addedAt: string;
}

const GET_BATCH = 100;
const WRITE_BATCH = 25;
const MAX_ROUNDS = 8;

const pause = (round: number) => new Promise((r) => setTimeout(r, Math.random() * Math.min(1000, 50 * 2 ** round)));

/**
 * The do-not-call list: one DynamoDB item per E.164 number. Intake removes these numbers from every upload; the
 * CLI (and later contact sync) maintain it.
 */
export class SuppressionList {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly table: string,
  ) {}

  /** Which of these numbers are suppressed. Batched 100 at a time; unprocessed keys are retried with backoff. */
  async matching(phones: readonly string[]): Promise<Set<string>> {
    const found = new Set<string>();
    const unique = [...new Set(phones)];
    for (let i = 0; i < unique.length; i += GET_BATCH) {
      let keys: Record<string, unknown>[] = unique.slice(i, i + GET_BATCH).map((phone) => ({ phone }));
      for (let round = 0; keys.length > 0; round++) {
        if (round >= MAX_ROUNDS) throw new Error('suppression list: DynamoDB kept keys unprocessed; try again');
        if (round > 0) await pause(round);
        const out = await this.db.send(
          new BatchGetCommand({
            RequestItems: { [this.table]: { Keys: keys, ProjectionExpression: 'phone', ConsistentRead: true } },
          }),
        );
        for (const item of out.Responses?.[this.table] ?? []) found.add(item.phone as string);
        keys = (out.UnprocessedKeys?.[this.table]?.Keys as Record<string, unknown>[] | undefined) ?? [];
      }
    }
    return found;
  }

  async add(phones: readonly string[], reason: string, source: string, now = new Date()): Promise<void> {
    const addedAt = now.toISOString();
    await this.write(
      [...new Set(phones)].map((phone) => ({ PutRequest: { Item: { phone, reason, source, addedAt } } })),
    );
  }

  async remove(phones: readonly string[]): Promise<void> {
    await this.write([...new Set(phones)].map((phone) => ({ DeleteRequest: { Key: { phone } } })));
  }

  async list(): Promise<SuppressedNumber[]> {
    const items: SuppressedNumber[] = [];
    let start: Record<string, unknown> | undefined;
    do {
      const out = await this.db.send(new ScanCommand({ TableName: this.table, ExclusiveStartKey: start }));
      items.push(...((out.Items ?? []) as SuppressedNumber[]));
      start = out.LastEvaluatedKey;
    } while (start);
    return items.sort((a, b) => a.phone.localeCompare(b.phone));
  }

  private async write(requests: Record<string, unknown>[]): Promise<void> {
    for (let i = 0; i < requests.length; i += WRITE_BATCH) {
      let batch = requests.slice(i, i + WRITE_BATCH);
      for (let round = 0; batch.length > 0; round++) {
        if (round >= MAX_ROUNDS) throw new Error('suppression list: DynamoDB kept writes unprocessed; try again');
        if (round > 0) await pause(round);
        const out = await this.db.send(new BatchWriteCommand({ RequestItems: { [this.table]: batch } }));
        batch = (out.UnprocessedItems?.[this.table] as Record<string, unknown>[] | undefined) ?? [];
      }
    }
  }
}
