import { type DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { batchGetAll, batchWriteAll, LARGE_ITEMS_PER_GET } from './aws/batch.ts';
import { byShard, isE164, NumberSet, shardOf } from './aws/number-shards.ts';
import { scanAll } from './aws/scan-all.ts';
import { type ShardItem, ShardReader } from './aws/shard-reader.ts';
import { type Item, updateVersioned } from './aws/versioned-item.ts';
import { eachConcurrently } from './concurrently.ts';

export interface SuppressedNumber {
  phone: string;
  /** Why the number may not be called (opt-out, complaint, legal). */
  reason: string;
  /** Who added it: `cli`, `contact-sync`, … */
  source: string;
  addedAt: string;
}

/** The do-not-call check of one upload (`SuppressionList.lookup`). */
export interface SuppressionLookup {
  /** This number will be asked about: its shard may be read now. */
  want(phone: string): void;
  /** Which of these numbers are suppressed. */
  matching(phones: readonly string[]): Promise<Set<string>>;
}

/**
 * Shards of the index: 256 items of 400 KB hold 10 to 18 million numbers (see aws/number-shards.ts); a list of a
 * million is about 21 KB a shard, all of it read in 7 requests at once, and a 10-row upload reads 10 shards.
 */
const SHARDS = 256;
const WRITERS = 16;
// Keys no E.164 number can take (those start with `+`), in the table's own key attribute.
const shardKey = (shard: number) => ({ phone: `#shard-${String(shard).padStart(3, '0')}` });
const INDEXED = { phone: '#indexed' };

/**
 * The do-not-call list. Each number is an item of its own (`phone`, why, by whom, when), which is what `list` shows;
 * every number is also in one of 256 shard items (see aws/number-shards.ts), which is what intake checks: a
 * 100,000-row upload is a few requests, not 1,000. Intake removes these numbers from every upload; the CLI, opt-outs
 * and contact sync maintain it.
 *
 * The shards are trusted once `#indexed` says every number written before them is in them (`reindex`, which
 * runs after every deploy in AWS, functions/intake/reindex/, and which `callsheet suppress` and the local stack run
 * when it is missing); until then numbers are looked up one by one.
 * Adding writes the number's item, then its shard; removing deletes the item, then takes it from its shard, so a
 * failure between the two leaves a number suppressed, never one listed and callable.
 */
export class SuppressionList {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly table: string,
  ) {}

  /** Which of these numbers are suppressed. */
  async matching(phones: readonly string[]): Promise<Set<string>> {
    if (phones.length === 0) return new Set();
    return this.lookup().matching(phones);
  }

  /**
   * The check for an upload: `want` each number as it is read, and the shards it falls in are read meanwhile
   * (aws/shard-reader.ts); `matching` then answers from them.
   */
  lookup(): SuppressionLookup {
    const reader = new ShardReader(this.db, this.table, SHARDS, shardKey, 'suppression list', [INDEXED]);
    return {
      want: (phone) => reader.want(phone),
      matching: async (phones) => this.match(phones, await reader.items(phones)),
    };
  }

  private async match(phones: readonly string[], items: ShardItem[]): Promise<Set<string>> {
    const byKey = new Map(items.map((item) => [item.phone as string, item]));
    // Not yet indexed (a table from before the shards): every number asked on its own, as before.
    if (!byKey.has(INDEXED.phone)) return this.lookUpEach([...new Set(phones)]);
    // Each shard unpacked once, at its first number; a number asked twice is looked up twice, which costs less than
    // making the numbers unique first.
    const found = new Set<string>();
    const sets = new Array<NumberSet | undefined>(SHARDS);
    const odd = new Set<string>();
    for (const phone of phones) {
      if (!isE164(phone)) {
        odd.add(phone);
        continue;
      }
      const shard = shardOf(phone, SHARDS);
      let set = sets[shard];
      if (!set) {
        set = NumberSet.from(byKey.get(shardKey(shard).phone)?.numbers as string | undefined);
        sets[shard] = set;
      }
      if (set.hasValue(Number(phone.slice(1)))) found.add(phone);
    }
    // Text that is not E.164 is in no shard: asked of the items.
    for (const phone of odd.size > 0 ? await this.lookUpEach([...odd]) : []) found.add(phone);
    return found;
  }

  /** Which of these numbers have an entry: their keys only read back. */
  private async lookUpEach(phones: readonly string[]): Promise<Set<string>> {
    return new Set((await this.entries(phones, 'phone')).map((entry) => entry.phone));
  }

  /**
   * Lists the numbers not yet listed; a number already on the list keeps its entry (its reason, source and date:
   * a later opt-out or a second `add` does not overwrite a court order; two adds of a new number at the same
   * moment both write it, the last one's reason kept). Answers which were added and the entries of
   * those that already were. Every number's shard is written either way, so a shard a failed write left behind is
   * mended.
   */
  async add(
    phones: readonly string[],
    reason: string,
    source: string,
    now = new Date(),
  ): Promise<{ added: string[]; already: SuppressedNumber[] }> {
    const unique = [...new Set(phones)];
    const already = await this.entries(unique);
    const listed = new Set(already.map((s) => s.phone));
    const added = unique.filter((phone) => !listed.has(phone));
    const addedAt = now.toISOString();
    await this.write(added.map((phone) => ({ PutRequest: { Item: { phone, reason, source, addedAt } } })));
    // Text that is not E.164 (never intake's) keeps its item only, where `matching` asks for it.
    await this.changeShards(unique.filter(isE164), (set, group) => set.with(group));
    return { added, already };
  }

  /**
   * Takes the numbers off the list (their items and their shards, also for a number only a shard still held) and
   * answers which of them had an entry.
   */
  async remove(phones: readonly string[]): Promise<{ removed: string[]; notListed: string[] }> {
    const unique = [...new Set(phones)];
    const listed = await this.lookUpEach(unique);
    await this.write(unique.map((phone) => ({ DeleteRequest: { Key: { phone } } })));
    await this.changeShards(unique.filter(isE164), (set, group) => set.with([], group));
    return { removed: unique.filter((p) => listed.has(p)), notListed: unique.filter((p) => !listed.has(p)) };
  }

  /** The entries of those of these numbers that are listed (only `projection` of each when given), 100 a request. */
  private async entries(phones: readonly string[], projection?: string): Promise<SuppressedNumber[]> {
    if (phones.length === 0) return [];
    const keys = phones.map((phone) => ({ phone }));
    const items = await batchGetAll(this.db, this.table, keys, 'suppression list', projection ? { projection } : {});
    return items as unknown as SuppressedNumber[];
  }

  async list(): Promise<SuppressedNumber[]> {
    const items = await scanAll<SuppressedNumber>(this.db, {
      TableName: this.table,
      // The numbers' own items: not the shards or the index mark.
      FilterExpression: 'NOT begins_with(phone, :mark)',
      ExpressionAttributeValues: { ':mark': '#' },
    });
    return items.sort((a, b) => a.phone.localeCompare(b.phone));
  }

  /** Whether the shards hold every number (`reindex` has run on this table). */
  async indexed(): Promise<boolean> {
    const out = await this.db.send(new GetCommand({ TableName: this.table, Key: INDEXED, ConsistentRead: true }));
    return out.Item !== undefined;
  }

  /**
   * Puts every listed number in its shard, then marks the table indexed: for a table written before the shards
   * existed (and, on an empty one, just the mark). Safe to repeat and to run while numbers are added or removed:
   * a number removed while this runs may come back into its shard (suppressed, not listed); `remove` again clears it.
   */
  async reindex(): Promise<number> {
    const count = await this.fold();
    await this.markIndexed();
    return count;
  }

  /** Puts every listed number in its shard, leaving the mark alone; answers how many numbers that was. */
  async fold(): Promise<number> {
    const numbers = (await this.list()).map((s) => s.phone).filter(isE164);
    await this.changeShards(numbers, (set, group) => set.with(group));
    return numbers.length;
  }

  /** Says the shards hold every listed number: only after `fold` has run to its end. */
  async markIndexed(now = new Date()): Promise<void> {
    await this.db.send(new PutCommand({ TableName: this.table, Item: { ...INDEXED, at: now.toISOString() } }));
  }

  /** `reindex` unless the table is already indexed; answers whether it ran. */
  async ensureIndexed(): Promise<boolean> {
    if (await this.indexed()) return false;
    await this.reindex();
    return true;
  }

  private async changeShards(
    phones: readonly string[],
    change: (set: NumberSet, group: string[]) => NumberSet,
  ): Promise<void> {
    const groups = [...byShard(phones, SHARDS)];
    const read = await batchGetAll(
      this.db,
      this.table,
      groups.map(([shard]) => shardKey(shard)),
      'suppression list',
      { perRequest: LARGE_ITEMS_PER_GET },
    );
    const items = new Map(read.map((item) => [item.phone as string, item as Item]));
    await eachConcurrently(groups, WRITERS, async ([shard, group]) => {
      const key = shardKey(shard);
      await updateVersioned(
        this.db,
        this.table,
        key,
        (item) => {
          const before = NumberSet.from(item?.numbers as string | undefined);
          const after = change(before, group);
          return after.size === before.size && item ? null : { kind: 'dnc-shard', numbers: after.text };
        },
        'suppression list',
        { item: items.get(key.phone) },
      );
    });
  }

  private async write(requests: Record<string, unknown>[]): Promise<void> {
    await batchWriteAll(this.db, this.table, requests, 'suppression list');
  }
}
