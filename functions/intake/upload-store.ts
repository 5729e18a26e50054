import { type DynamoDBDocumentClient, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { isConditionFailed } from '#commons/aws/conditional-write.ts';
import type { UploadRef } from '#commons/upload-ref.ts';

export interface UploadOutcome {
  status: 'launched' | 'rejected' | 'repeated';
  reportKey: string;
  movedTo: string | null;
  parts: { index: number; executionName: string; rows: number; timeZone: string | null }[];
  /** Why nothing was launched, in the report's words (a rejected upload; absent on records from before it). */
  error?: { code: string; message: string } | null;
}

export interface UploadRecord {
  pk: string;
  uploadId: string;
  state: 'processing' | 'done';
  bucket: string;
  key: string;
  versionId: string | null;
  eTag: string;
  leaseUntil: number;
  attempts: number;
  outcome?: UploadOutcome;
  /** When intake finished it (absent on records from before it was kept). */
  finishedAt?: string;
}

export type Claim = { kind: 'claimed'; attempts: number } | { kind: 'done'; record: UploadRecord } | { kind: 'busy' };

const uploadKey = (id: string) => `upload#${id}`;
const contentKey = (sha: string) => `content#${sha}`;

/**
 * What intake remembers about uploads, so duplicate and concurrent deliveries of one S3 event do the work once.
 * Only conditional single-item writes: no transactions (dynalite has none, and none are needed).
 */
export class UploadStore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly table: string,
  ) {}

  /**
   * Takes the upload for `leaseMs`. Another worker holding an unexpired lease makes this `busy` (retry later);
   * a finished upload answers `done` with its outcome.
   */
  async claim(id: string, ref: UploadRef, now: number, leaseMs: number): Promise<Claim> {
    try {
      const out = await this.db.send(
        new UpdateCommand({
          TableName: this.table,
          Key: { pk: uploadKey(id) },
          UpdateExpression:
            'SET #state = :processing, #lease = :lease, #id = :id, #bucket = :bucket, #key = :key, #version = :version, #etag = :etag ADD #attempts :one',
          ConditionExpression: 'attribute_not_exists(pk) OR (#state = :processing AND #lease < :now)',
          // Placeholders for every name: several (state, key, bucket) are DynamoDB reserved words.
          ExpressionAttributeNames: {
            '#state': 'state',
            '#lease': 'leaseUntil',
            '#id': 'uploadId',
            '#bucket': 'bucket',
            '#key': 'key',
            '#version': 'versionId',
            '#etag': 'eTag',
            '#attempts': 'attempts',
          },
          ExpressionAttributeValues: {
            ':processing': 'processing',
            ':lease': now + leaseMs,
            ':now': now,
            ':id': id,
            ':bucket': ref.bucket,
            ':key': ref.key,
            ':version': ref.versionId,
            ':etag': ref.eTag,
            ':one': 1,
          },
          ReturnValues: 'ALL_NEW',
        }),
      );
      return { kind: 'claimed', attempts: Number(out.Attributes?.attempts ?? 1) };
    } catch (err) {
      if (!isConditionFailed(err)) throw err;
    }
    const record = await this.get(id);
    return record?.state === 'done' ? { kind: 'done', record } : { kind: 'busy' };
  }

  async get(id: string): Promise<UploadRecord | null> {
    const out = await this.db.send(
      new GetCommand({ TableName: this.table, Key: { pk: uploadKey(id) }, ConsistentRead: true }),
    );
    return (out.Item as UploadRecord | undefined) ?? null;
  }

  /** Marks the upload done with its outcome, and when (what `callsheet status` orders uploads by). */
  async finish(id: string, outcome: UploadOutcome, at = new Date()): Promise<void> {
    await this.db.send(
      new UpdateCommand({
        TableName: this.table,
        Key: { pk: uploadKey(id) },
        UpdateExpression: 'SET #state = :done, #outcome = :outcome, #at = :at REMOVE #lease',
        ExpressionAttributeNames: {
          '#state': 'state',
          '#outcome': 'outcome',
          '#lease': 'leaseUntil',
          '#at': 'finishedAt',
        },
        ExpressionAttributeValues: { ':done': 'done', ':outcome': outcome, ':at': at.toISOString() },
      }),
    );
  }

  /** Gives the upload back at once after a failure, so the retry need not wait out the lease. */
  async release(id: string): Promise<void> {
    try {
      await this.db.send(
        new UpdateCommand({
          TableName: this.table,
          Key: { pk: uploadKey(id) },
          UpdateExpression: 'SET #lease = :zero',
          ConditionExpression: '#state = :processing',
          ExpressionAttributeNames: { '#state': 'state', '#lease': 'leaseUntil' },
          ExpressionAttributeValues: { ':zero': 0, ':processing': 'processing' },
        }),
      );
    } catch (err) {
      if (!isConditionFailed(err)) throw err;
    }
  }

  /**
   * Records that this content was launched by upload `id`. Answers the earlier upload when another one already
   * launched the same bytes, or null when this is the first (or this upload's own earlier attempt).
   */
  async rememberContent(
    sha256: string,
    id: string,
    key: string,
    now: Date,
  ): Promise<{ uploadId: string; key: string; at: string } | null> {
    try {
      await this.db.send(
        new PutCommand({
          TableName: this.table,
          Item: { pk: contentKey(sha256), uploadId: id, key, at: now.toISOString() },
          ConditionExpression: 'attribute_not_exists(pk) OR #id = :id',
          ExpressionAttributeNames: { '#id': 'uploadId' },
          ExpressionAttributeValues: { ':id': id },
        }),
      );
      return null;
    } catch (err) {
      if (!isConditionFailed(err)) throw err;
    }
    const out = await this.db.send(
      new GetCommand({ TableName: this.table, Key: { pk: contentKey(sha256) }, ConsistentRead: true }),
    );
    const item = out.Item as { uploadId: string; key: string; at: string } | undefined;
    return item && item.uploadId !== id ? { uploadId: item.uploadId, key: item.key, at: item.at } : null;
  }
}
