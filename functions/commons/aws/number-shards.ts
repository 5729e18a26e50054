/**
 * Sets of phone numbers kept in a fixed number of DynamoDB items ("shards") instead of one item per number. A
 * 100,000-row upload checked one item per number is 1,000 BatchGetItem requests and 100,000 reads, each costing the
 * caller a signed request's CPU whatever the latency; in shards it is a handful of requests. A set is its numbers
 * sorted, each written as its distance from the one before in 7-bit groups (4 bytes for the distances of a set of
 * thousands, at most 8), stored as base64 text: a String attribute, because the SDK checks a Binary one's base64
 * with a regular expression that cost more than the rest of the lookup. One 400 KB item holds 40,000 to 70,000.
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

/** The numbers, sorted, as distances from the one before in 7-bit groups (the high bit: more groups follow). */
function pack(sorted: Float64Array): Uint8Array {
  const out = new Uint8Array(sorted.length * 8);
  let n = 0;
  let previous = 0;
  for (const v of sorted) {
    let d = v - previous;
    previous = v;
    while (d >= 128) {
      out[n++] = (d % 128) | 128;
      d = Math.floor(d / 128);
    }
    out[n++] = d;
  }
  return out.subarray(0, n);
}

/**
 * `pack` undone. A distance's first four groups (28 bits: the whole distance in a set of more than a few hundred) are
 * put together with integer shifts, the rest with floating-point arithmetic: all in floating point, unpacking a
 * million listed numbers took several times as long as reading their items.
 */
function unpack(bytes: Uint8Array): Float64Array {
  const end = bytes.length;
  let count = 0;
  for (let i = 0; i < end; i++) if ((bytes[i] as number) < 128) count++;
  const out = new Float64Array(count);
  let n = 0;
  let v = 0;
  let i = 0;
  while (i < end) {
    let b = bytes[i++] as number;
    let d = b & 127;
    for (let shift = 7; b & 128; shift += 7) {
      if (i === end) throw new RangeError('a packed number set ends inside a number');
      b = bytes[i++] as number;
      d = shift < 28 ? d | ((b & 127) << shift) : d + (b & 127) * 2 ** shift;
    }
    v += d;
    out[n++] = v;
  }
  return out;
}

/** A set of E.164 numbers, as `numberOf` gives them, kept in an item as text. */
export class NumberSet {
  private constructor(private readonly sorted: Float64Array) {}

  /** The set an attribute holds (absent: empty). */
  static from(text: string | undefined): NumberSet {
    return new NumberSet(text ? unpack(Buffer.from(text, 'base64')) : new Float64Array(0));
  }

  /** What the attribute stores. */
  get text(): string {
    const bytes = pack(this.sorted);
    return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
  }

  static of(phones: Iterable<string>): NumberSet {
    return NumberSet.ofValues([...phones].map(numberOf));
  }

  /** `of` for numbers already converted (`numberOf`). */
  static ofValues(values: Iterable<number>): NumberSet {
    // Sorted as doubles, then repeats dropped in place: a Set first cost twice the sort (a cap shard of an upload
    // sorts a thousand or more values, 64 times over).
    const sorted = (Array.isArray(values) ? new Float64Array(values) : Float64Array.from(values)).sort();
    let n = 0;
    for (let i = 0; i < sorted.length; i++)
      if (n === 0 || sorted[i] !== sorted[n - 1]) sorted[n++] = sorted[i] as number;
    return new NumberSet(n === sorted.length ? sorted : sorted.slice(0, n));
  }

  get size(): number {
    return this.sorted.length;
  }

  /** A string that is not E.164 is in no set. */
  has(phone: string): boolean {
    return E164.test(phone) && this.hasValue(Number(phone.slice(1)));
  }

  /** `has` for a number already checked and converted (`numberOf`): many sets asked about one number. */
  hasValue(v: number): boolean {
    const s = this.sorted;
    let lo = 0;
    let hi = s.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const at = s[mid] as number;
      if (at === v) return true;
      if (at < v) lo = mid + 1;
      else hi = mid - 1;
    }
    return false;
  }

  /** The numbers as `numberOf` gives them, in order. */
  values(): number[] {
    return Array.from(this.sorted);
  }

  phones(): string[] {
    return this.values().map((v) => `+${v}`);
  }

  /** This set with `add` in it and `remove` out of it. */
  with(add: Iterable<string>, remove: Iterable<string> = []): NumberSet {
    const out = new Set(this.sorted);
    for (const p of add) out.add(numberOf(p));
    for (const p of remove) if (E164.test(p)) out.delete(Number(p.slice(1)));
    return NumberSet.ofValues(out);
  }
}
