/**
 * Sets of phone numbers kept in a fixed number of DynamoDB items ("shards") instead of one item per number. A
 * 100,000-row upload checked one item per number is 1,000 BatchGetItem requests and 100,000 reads, each costing the
 * caller a signed request's CPU whatever the latency; in shards it is a handful of requests. Numbers are packed 8
 * bytes each, sorted, and stored as base64 text (a String attribute: the SDK checks a Binary one's base64 with a
 * regular expression that cost more than the rest of the lookup), so a shard of 37,000 numbers fits DynamoDB's
 * 400 KB item limit and is searched without decoding.
 */

/** E.164: up to 15 digits, below 2^53, so a double holds every one exactly. */
const E164 = /^\+[1-9]\d{1,14}$/;

export const isE164 = (phone: string): boolean => E164.test(phone);

/** The number an E.164 string stands for, as the sets hold it. */
export const numberOf = (phone: string): number => {
  if (!E164.test(phone)) throw new RangeError(`${JSON.stringify(phone)} is not an E.164 number`);
  return Number(phone.slice(1));
};

/** Which of `shards` items holds this number: FNV-1a of its text, so numbers spread evenly whatever their prefix. */
export function shardOf(phone: string, shards: number): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < phone.length; i++) h = Math.imul(h ^ phone.charCodeAt(i), 0x01000193);
  return (h >>> 0) % shards;
}

/** The numbers grouped by their shard. */
export function byShard(phones: Iterable<string>, shards: number): Map<number, string[]> {
  const groups = new Map<number, string[]>();
  for (const phone of phones) {
    const s = shardOf(phone, shards);
    const group = groups.get(s);
    if (group) group.push(phone);
    else groups.set(s, [phone]);
  }
  return groups;
}

/** Bytes a packed number takes (before base64). */
export const PACKED_BYTES = 8;

/** A sorted set of E.164 numbers as big-endian doubles, kept in an item as base64 text. */
export class NumberSet {
  private readonly view: DataView;

  private constructor(readonly bytes: Uint8Array) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  /** The set an attribute holds (absent: empty). */
  static from(text: string | undefined): NumberSet {
    const bytes = text ? Buffer.from(text, 'base64') : new Uint8Array(0);
    if (bytes.length % PACKED_BYTES !== 0) throw new RangeError('a packed number set is 8 bytes a number');
    return new NumberSet(bytes);
  }

  /** What the attribute stores. */
  get text(): string {
    return Buffer.from(this.bytes.buffer, this.bytes.byteOffset, this.bytes.byteLength).toString('base64');
  }

  static of(phones: Iterable<string>): NumberSet {
    return NumberSet.pack([...phones].map(numberOf));
  }

  /** `of` for numbers already converted (`numberOf`). */
  static ofValues(values: readonly number[]): NumberSet {
    return NumberSet.pack(values);
  }

  private static pack(values: readonly number[]): NumberSet {
    const sorted = Float64Array.from(values).sort();
    const bytes = new Uint8Array(sorted.length * PACKED_BYTES);
    const view = new DataView(bytes.buffer);
    let n = 0;
    for (const v of sorted)
      if (n === 0 || view.getFloat64((n - 1) * PACKED_BYTES) !== v) view.setFloat64(n++ * PACKED_BYTES, v);
    return new NumberSet(bytes.subarray(0, n * PACKED_BYTES));
  }

  get size(): number {
    return this.bytes.length / PACKED_BYTES;
  }

  /** Binary search over the packed bytes; a string that is not E.164 is in no set. */
  has(phone: string): boolean {
    return E164.test(phone) && this.hasValue(Number(phone.slice(1)));
  }

  /** `has` for a number already checked and converted (`numberOf`): many sets asked about one number. */
  hasValue(v: number): boolean {
    let lo = 0;
    let hi = this.size - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const at = this.view.getFloat64(mid * PACKED_BYTES);
      if (at === v) return true;
      if (at < v) lo = mid + 1;
      else hi = mid - 1;
    }
    return false;
  }

  /** The numbers as `numberOf` gives them, in order. */
  values(): number[] {
    return Array.from({ length: this.size }, (_, i) => this.view.getFloat64(i * PACKED_BYTES));
  }

  phones(): string[] {
    return this.values().map((v) => `+${v}`);
  }

  /** This set with `add` in it and `remove` out of it. */
  with(add: Iterable<string>, remove: Iterable<string> = []): NumberSet {
    const out = new Set(this.values());
    for (const p of add) out.add(numberOf(p));
    for (const p of remove) if (E164.test(p)) out.delete(Number(p.slice(1)));
    return NumberSet.pack([...out]);
  }
}
