import { type DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { byShard, NumberSet, numberOf, shardOf } from './aws/number-shards.ts';
import { ShardReader } from './aws/shard-reader.ts';
import { type Item, updateVersioned } from './aws/versioned-item.ts';
import { eachConcurrently } from './concurrently.ts';
import { type CapDecision, type CapEntry, type CapLimits, capDecision, liveEntries } from './frequency-cap.ts';
import { type LegacyCaps, readLegacyCaps, scanLegacyCaps } from './legacy-caps.ts';

/**
 * Shards of the reservations: 64 items of 400 KB hold 2.5 to 4.5 million number reservations in a rolling week (see
 * aws/number-shards.ts), and a 100,000-number upload is 64 conditional writes, not 100,000. Each write costs the
 * caller a signed request's CPU (2 to 5 ms on a busy 2-core machine), which is what keeps the count this low.
 */
const SHARDS = 64;
/**
 * Shard writes at once: an upload's 64 in two waves rather than four (each wave a round trip the upload waits for),
 * and under the SDK's 50 sockets to the endpoint, past which it queues requests and logs a warning. At most 48 shard
 * items (400 KB each at most) are in flight.
 */
const WRITERS = 48;
const shardKey = (shard: number) => ({ pk: `caps#${String(shard).padStart(3, '0')}` });
/** Set once the shards hold every reservation counted before them (`reindex`); until then those are read too. */
const INDEXED = { pk: 'caps#indexed' };

/** One admission in one shard: who (`key`), when, how many calls, for which of the shard's numbers. */
interface Reservation {
  key: string;
  at: string;
  calls: number;
  /** NumberSet text. */
  numbers: string;
}

export type CapSkip = { phone: string; reason: string; message: string };
export type CapAdmission = { admitted: string[]; skipped: CapSkip[] };

/** The cap check of one upload (`FrequencyCapStore.lookup`). */
export interface CapLookup {
  /** The caps it admits under. */
  readonly limits: CapLimits;
  /** This number will be admitted or not: its shard may be read now. */
  want(phone: string): void;
  /** `FrequencyCapStore.turnedAway` on the shards read meanwhile. */
  turnedAway(phones: readonly string[], key: string, calls: number, now: Date): Promise<CapSkip[]>;
}

/**
 * Call counts per number in the outcomes table, in 64 shard items (`caps#<n>`, see aws/number-shards.ts): each
 * holds the reservations of the last 7 days for its numbers and a version. Admitting is a read of the shards the
 * numbers fall in and, per shard, one write conditional on the version read, so two campaigns admitting the same
 * number at once cannot both squeeze under the cap: the one whose write lost reads the shard again and decides
 * again on what the other wrote.
 *
 * Before the shards each number had a `cap#<phone>` item (legacy-caps.ts). Until the table carries the `caps#indexed`
 * mark, admitting also reads those items of its numbers and counts their live reservations (a key found in both
 * counts once), so a number called before an upgrade is not called past its cap after it. `reindex` (run after
 * every deploy in AWS, functions/intake/reindex/; `callsheet caps reindex`; the local stack at start) folds them
 * into the shards and then sets the mark.
 */
export class FrequencyCapStore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly table: string,
    readonly limits: CapLimits,
  ) {}

  /** Decides for one number and, when admitted, counts the calls. Safe to repeat with the same key. */
  async admit(phone: string, key: string, calls: number, now: Date): Promise<CapDecision> {
    const [group] = await this.decideAll(this.reader(), [phone], key, calls, now);
    return group?.decisions[0] as CapDecision;
  }

  /**
   * The check for an upload: `want` each number as it is read, and the shards it falls in are read meanwhile
   * (aws/shard-reader.ts); `admitAll` then decides on them, and reads again only a shard someone wrote since.
   */
  lookup(): CapLookup {
    const reader = this.reader();
    return {
      limits: this.limits,
      want: (phone) => reader.want(phone),
      turnedAway: (phones, key, calls, now) => this.turnedAwayWith(reader, phones, key, calls, now),
    };
  }

  private reader(): ShardReader {
    return new ShardReader(this.db, this.table, SHARDS, shardKey, 'frequency caps', [INDEXED]);
  }

  /**
   * The check follow-up rounds make for their numbers: each admitted one is counted under `key` (again with the same
   * key, nothing more is counted); the others come back with the reason they must be skipped. Each number once, in
   * the order asked.
   */
  async admitAll(phones: readonly string[], key: string, calls: number, now: Date): Promise<CapAdmission> {
    const away = new Map((await this.turnedAway(phones, key, calls, now)).map((s) => [s.phone, s]));
    const admitted: string[] = [];
    const skipped: CapSkip[] = [];
    for (const phone of new Set(phones)) {
      const skip = away.get(phone);
      if (skip) skipped.push(skip);
      else admitted.push(phone);
    }
    return { admitted, skipped };
  }

  /**
   * `admitAll` for a caller that needs only the numbers turned away (intake): each admitted number is counted, and
   * no list of them is built (for an upload, 100,000 numbers kept twice more).
   */
  async turnedAway(phones: readonly string[], key: string, calls: number, now: Date): Promise<CapSkip[]> {
    return this.turnedAwayWith(this.reader(), phones, key, calls, now);
  }

  /** The numbers turned away, each once, in no set order; a number asked twice is decided and counted once. */
  private async turnedAwayWith(
    reader: ShardReader,
    phones: readonly string[],
    key: string,
    calls: number,
    now: Date,
  ): Promise<CapSkip[]> {
    // Almost every number is admitted: only the few turned away are kept, by number.
    const away = new Map<string, CapSkip>();
    for (const { phones: group, decisions } of await this.decideAll(reader, phones, key, calls, now))
      for (let i = 0; i < group.length; i++) {
        const d = decisions[i] as CapDecision;
        const phone = group[i] as string;
        if (!d.admitted) away.set(phone, { phone, reason: d.reason, message: d.message });
      }
    return [...away.values()];
  }

  /**
   * The decisions for `phones` by shard: `decisions[i]` is `phones[i]`'s. A number asked twice is in its group twice,
   * decided on the same reservations, and counted once (a NumberSet holds it once).
   */
  private async decideAll(
    reader: ShardReader,
    phones: readonly string[],
    key: string,
    calls: number,
    now: Date,
  ): Promise<{ phones: string[]; decisions: CapDecision[] }[]> {
    const groups = new Map<number, { phones: string[]; values: number[] }>();
    for (const phone of phones) {
      const v = numberOf(phone); // throws for text that is not E.164: intake and rounds only hold E.164
      const shard = shardOf(phone, SHARDS);
      const group = groups.get(shard);
      if (group) {
        group.phones.push(phone);
        group.values.push(v);
      } else groups.set(shard, { phones: [phone], values: [v] });
    }
    const items = new Map((await reader.items(phones)).map((item) => [item.pk as string, item as Item]));
    // Before `reindex` has run, the numbers' items from before the shards count too (read once: nothing writes them).
    const legacy = items.has(INDEXED.pk)
      ? undefined
      : await readLegacyCaps(
          this.db,
          this.table,
          [...groups.values()].flatMap((g) => g.phones),
          now,
        );
    const request = { key, calls, at: now };
    // A number no reservation of the week names (most of them) gets this one answer, decided once.
    const fresh = capDecision([], request, this.limits);
    const decided: { phones: string[]; decisions: CapDecision[] }[] = [];
    await eachConcurrently([...groups], WRITERS, async ([shard, { phones: group, values }]) => {
      const k = shardKey(shard);
      let out: CapDecision[] = [];
      await updateVersioned(
        this.db,
        this.table,
        k,
        (item) => {
          // Decided afresh on every read: only the decisions of the write that held are kept.
          const live = liveReservations(item, now);
          const held = new Map<number, Reservation[]>();
          for (const r of live)
            for (const v of NumberSet.from(r.numbers).values()) {
              const of = held.get(v);
              if (of) of.push(r);
              else held.set(v, [r]);
            }
          out = new Array<CapDecision>(values.length);
          const counted: number[] = [];
          for (let i = 0; i < values.length; i++) {
            const v = values[i] as number;
            const entries = withLegacy(held.size > 0 ? held.get(v) : undefined, legacy?.get(v));
            const d = entries ? capDecision(entries, request, this.limits) : fresh;
            out[i] = d;
            if (d.admitted && !d.alreadyCounted) counted.push(v);
          }
          if (counted.length === 0) return null;
          const mine: Reservation = { key, at: now.toISOString(), calls, numbers: NumberSet.ofValues(counted).text };
          return { kind: 'cap-shard', reservations: [...live, mine] };
        },
        'frequency caps',
        { item: items.get(k.pk) },
      );
      decided.push({ phones: group, decisions: out });
    });
    return decided;
  }

  /** Whether the shards hold every reservation counted before them (`reindex` has run on this table). */
  async indexed(): Promise<boolean> {
    const out = await this.db.send(new GetCommand({ TableName: this.table, Key: INDEXED, ConsistentRead: true }));
    return out.Item !== undefined;
  }

  /**
   * Folds every live reservation of the `cap#<phone>` items kept from before the shards into the shards (`fold`),
   * then marks the table indexed (`markIndexed`), after which admitting reads the shards only.
   */
  async reindex(now = new Date()): Promise<{ numbers: number; added: number }> {
    const folded = await this.fold(now);
    await this.markIndexed(folded.numbers, now);
    return folded;
  }

  /**
   * Puts every live reservation of the `cap#<phone>` items into the shards, leaving the mark alone. Each shard is
   * written once, conditionally on the version read, so admissions running meanwhile stay exact; a reservation
   * already in the shard for its number (by key) is not added again, so running it twice, or two at once, counts
   * nothing twice. Answers how many numbers had live reservations there, and how many of those (number,
   * reservation) pairs this run added to the shards.
   */
  async fold(now = new Date()): Promise<{ numbers: number; added: number }> {
    let added = 0;
    const legacy = await scanLegacyCaps(this.db, this.table, now);
    const groups = byShard(
      [...legacy.keys()].map((v) => `+${v}`),
      SHARDS,
    );
    await eachConcurrently([...groups], WRITERS, async ([shard, phones]) => {
      let pairs = 0;
      await updateVersioned(
        this.db,
        this.table,
        shardKey(shard),
        (item) => {
          const live = liveReservations(item, now);
          const folded = fold(live, phones.map(numberOf), legacy);
          pairs = folded.reduce((n, r) => n + NumberSet.from(r.numbers).size, 0);
          return folded.length === 0 ? null : { kind: 'cap-shard', reservations: [...live, ...folded] };
        },
        'frequency caps',
      );
      // Counted from the write that held (a lost write decides again on what the winner wrote).
      added += pairs;
    });
    return { numbers: legacy.size, added };
  }

  /** Says the shards hold every reservation counted before them: only after `fold` has run to its end. */
  async markIndexed(numbers: number, now = new Date()): Promise<void> {
    await this.db.send(
      new PutCommand({
        TableName: this.table,
        Item: { ...INDEXED, kind: 'cap-index', at: now.toISOString(), numbers },
      }),
    );
  }

  /** `reindex` unless the table is already indexed; answers whether it ran. */
  async ensureIndexed(now = new Date()): Promise<boolean> {
    if (await this.indexed()) return false;
    await this.reindex(now);
    return true;
  }
}

/** A number's reservations in its shard and, before `reindex`, those of its legacy item whose key the shard lacks. */
function withLegacy(inShard: CapEntry[] | undefined, old: CapEntry[] | undefined): CapEntry[] | undefined {
  if (!old) return inShard;
  if (!inShard) return old;
  return [...inShard, ...old.filter((e) => !inShard.some((s) => s.key === e.key))];
}

/**
 * The reservations to add to a shard for these numbers' legacy ones: those whose key the shard does not yet hold
 * for the number, grouped so that one admission of many numbers (one key, time and count) is one reservation.
 */
function fold(live: readonly Reservation[], values: readonly number[], legacy: LegacyCaps): Reservation[] {
  const held = new Map<number, Set<string>>();
  for (const r of live)
    for (const v of NumberSet.from(r.numbers).values()) {
      const keys = held.get(v);
      if (keys) keys.add(r.key);
      else held.set(v, new Set([r.key]));
    }
  const added = new Map<string, { entry: CapEntry; values: number[] }>();
  for (const v of values)
    for (const entry of legacy.get(v) ?? []) {
      if (held.get(v)?.has(entry.key)) continue;
      const id = JSON.stringify([entry.key, entry.at, entry.calls]);
      const group = added.get(id);
      if (group) group.values.push(v);
      else added.set(id, { entry, values: [v] });
    }
  return [...added.values()].map(({ entry, values: of }) => ({
    key: entry.key,
    at: entry.at,
    calls: entry.calls,
    numbers: NumberSet.ofValues(of).text,
  }));
}

/** The shard's reservations still inside the weekly window, so an item never grows past a week's worth. */
const liveReservations = (item: Item | undefined, now: Date): Reservation[] =>
  liveEntries((item?.reservations as Reservation[] | undefined) ?? [], now);
