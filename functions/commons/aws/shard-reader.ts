import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { batchGetAll, LARGE_ITEMS_PER_GET } from './batch.ts';
import { isE164, shardOf } from './number-shards.ts';

export type ShardItem = Record<string, unknown>;

/**
 * Reads the shards a stream of numbers falls in while the numbers still arrive: each shard is asked for once, as soon
 * as 40 new ones are wanted (one request each), so by the time intake has read an upload's last row the shards of
 * its numbers are mostly read too, instead of the reading starting after it. Nothing is waited for until `items`.
 */
export class ShardReader {
  private readonly asked = new Set<number>();
  private pending: ShardItem[];
  private readonly reads: Promise<ShardItem[]>[] = [];

  /** `first`: keys read with the first request (the list's index mark). */
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly table: string,
    private readonly shards: number,
    private readonly keyOf: (shard: number) => Record<string, string>,
    private readonly what: string,
    first: Record<string, string>[] = [],
  ) {
    this.pending = [...first];
  }

  /** This number's shard will be needed. Text that is not E.164 is in no shard. */
  want(phone: string): void {
    if (this.asked.size === this.shards || !isE164(phone)) return;
    const shard = shardOf(phone, this.shards);
    if (this.asked.has(shard)) return;
    this.asked.add(shard);
    this.pending.push(this.keyOf(shard));
    if (this.pending.length >= LARGE_ITEMS_PER_GET) this.flush();
  }

  private flush(): void {
    if (this.pending.length === 0) return;
    const read = batchGetAll(this.db, this.table, this.pending, this.what, { perRequest: LARGE_ITEMS_PER_GET });
    // Observed by `items`; a read nobody waits for (the upload was refused first) must not crash the process.
    read.catch(() => undefined);
    this.reads.push(read);
    this.pending = [];
  }

  /** Every item asked for so far and for these numbers, once read: what exists of them. */
  async items(phones: Iterable<string> = []): Promise<ShardItem[]> {
    for (const phone of phones) this.want(phone);
    this.flush();
    return (await Promise.all(this.reads)).flat();
  }
}
