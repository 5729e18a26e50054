import { type DynamoDBDocumentClient, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { batchGetAll, batchWriteAll } from './aws/batch.ts';

export interface SuppressedNumber {
  phone: string;
  /** Why the number may not be called (opt-out, complaint, legal). */
  reason: string;
  /** Who added it: `cli`, `contact-sync`, … */
  source: string;
  addedAt: string;
}

/**
 * The do-not-call list: one DynamoDB item per E.164 number. Intake removes these numbers from every upload; the
 * CLI (and later contact sync) maintain it.
 */
export class SuppressionList {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly table: string,
  ) {}

  /** Which of these numbers are suppressed: read 100 a request, several requests at once. */
  async matching(phones: readonly string[]): Promise<Set<string>> {
    const keys = [...new Set(phones)].map((phone) => ({ phone }));
    const items = await batchGetAll(this.db, this.table, keys, 'suppression list', 'phone');
    return new Set(items.map((item) => item.phone as string));
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
    await batchWriteAll(this.db, this.table, requests, 'suppression list');
  }
}
