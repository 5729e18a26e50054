import { DeleteCommand, type DynamoDBDocumentClient, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { isConditionFailed } from '#commons/aws/conditional-write.ts';
import type { ReplayGuard } from './receiver.ts';

const eventPk = (key: string) => `event#${key}`;

/** A claim never confirmed as queued (the receiver died in between) may be taken over after this long. */
const STALE_CLAIM_MS = 60_000;
/** Replay markers expire after this long where the table has TTL on `expiresAt`; processing stays idempotent. */
const KEEP_SECONDS = 90 * 24 * 3600;

/** Replay markers in the outcomes table: one conditional write claims an event key, exactly once. */
export class DynamoReplayGuard implements ReplayGuard {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly table: string,
  ) {}

  async claim(key: string, now: Date): Promise<'claimed' | 'duplicate'> {
    try {
      await this.db.send(
        new PutCommand({
          TableName: this.table,
          Item: {
            pk: eventPk(key),
            kind: 'event',
            claimedAt: now.getTime(),
            expiresAt: Math.floor(now.getTime() / 1000) + KEEP_SECONDS,
          },
          ConditionExpression: 'attribute_not_exists(pk) OR (attribute_not_exists(queuedAt) AND claimedAt < :stale)',
          ExpressionAttributeValues: { ':stale': now.getTime() - STALE_CLAIM_MS },
        }),
      );
      return 'claimed';
    } catch (err) {
      if (isConditionFailed(err)) return 'duplicate';
      throw err;
    }
  }

  async confirm(key: string): Promise<void> {
    await this.db.send(
      new UpdateCommand({
        TableName: this.table,
        Key: { pk: eventPk(key) },
        UpdateExpression: 'SET queuedAt = :t',
        ExpressionAttributeValues: { ':t': Date.now() },
      }),
    );
  }

  async release(key: string): Promise<void> {
    await this.db.send(new DeleteCommand({ TableName: this.table, Key: { pk: eventPk(key) } }));
  }
}
