import { type CountryCode, getCountryCallingCode } from 'libphonenumber-js/core';
import { PLACES } from '#commons/calling-hours/places.ts';
import { PHONE_METADATA } from '#commons/phone/metadata.ts';
import type { RejectReason } from './contacts.ts';
import { RENAMED_ZONES } from './phone-zone-data.ts';
import { clockSignature, type ZoneChoice, zonesOf, zonesUnderPrefix } from './time-zones.ts';

/**
 * A row may say where its contact is: a `Time Zone` cell (an IANA name) and a `State` / `Region` / `Province` cell
 * (a subdivision code, `FL` or `US-FL`, or its full name). What a cell says is weighed against what the number's own
 * data says (its prefix's zones, its area code's states):
 * - blank: no effect;
 * - a name callsheet does not know: the row is refused (`unknown_time_zone`, `unknown_region`);
 * - a zone the number's country does not use, or a region of another country: refused (`zone_contradicts_number`,
 *   `region_contradicts_number`): the cell or the number is wrong, and callsheet cannot tell which;
 * - one of the number's own candidates: the candidates narrow to it;
 * - one of the number's country but not among the number's candidates (a mobile that moved, a number kept after a
 *   move): the stricter reading, it is added to them, so the row is called only when legal everywhere it may be.
 */
export type StatedReason = Extract<
  RejectReason,
  'unknown_time_zone' | 'zone_contradicts_number' | 'unknown_region' | 'region_contradicts_number'
>;

const resolved = new Map<string, string | null>();
/** Names kept resolved per process: the zone data's and the few a sheet writes; a sheet of odd names is not kept. */
const MAX_RESOLVED = 4096;

/** The name the runtime knows a zone by, with the zone table's renames (Asia/Calcutta is Asia/Kolkata). */
function resolveZone(text: string): string | null {
  let zone = resolved.get(text);
  if (zone === undefined) {
    try {
      // Case and links resolve here: `america/new_york` and `US/Eastern` are America/New_York.
      const name = new Intl.DateTimeFormat('en-US', { timeZone: text }).resolvedOptions().timeZone;
      zone = RENAMED_ZONES[name] ?? name;
    } catch {
      zone = null;
    }
    if (resolved.size < MAX_RESOLVED) resolved.set(text, zone);
  }
  return zone;
}

const countryZones = new Map<string, ReadonlySet<string>>();

/**
 * The zones numbers of a country may ring in, to judge a Time Zone cell by: the country's zones in date-holidays'
 * data (the tz database's zones by country). Not the phone table's zones under the country's calling code, which
 * is shared: +1 is the US, Canada and twenty-odd other countries, so America/Toronto would pass for a US number.
 * Only for a country date-holidays has no zones for does the phone table speak: every zone of every prefix of its
 * calling code. Names as `resolveZone` gives them; a number's own zones are added by the caller.
 */
export function zonesOfCountry(country: string): ReadonlySet<string> {
  let zones = countryZones.get(country);
  if (!zones) {
    let names: string[] = [];
    names = [...(PLACES[country]?.zones ?? [])];
    if (names.length === 0) {
      try {
        names = zonesUnderPrefix(getCountryCallingCode(country as CountryCode, PHONE_METADATA));
      } catch {
        // Not a country libphonenumber knows: only the number's own zones are its country's.
      }
    }
    zones = new Set(names.map(resolveZone).filter((z): z is string => z !== null));
    countryZones.set(country, zones);
  }
  return zones;
}

/**
 * The number's candidate zones once its row's Time Zone cell is weighed (the cell is not blank): `choice` is what the
 * number's prefix gave (`zonesForNumber`), `numberZones` that prefix's zones before one was kept per clock
 * (`zonesOf`). A zone keeping the clock of one candidate is that candidate (America/Denver on a 208 number is
 * America/Boise time); a number of one clock is then unchanged. A zone of the country that keeps none of the
 * candidates' clocks is added to them: the stricter reading (source `sheet-added`).
 */
export function statedZones(
  choice: ZoneChoice,
  numberZones: readonly string[],
  country: string | null,
  stated: string,
  now: number,
): ZoneChoice | StatedReason {
  const zone = resolveZone(stated);
  if (zone === null) return 'unknown_time_zone';
  const ofCountry =
    (country !== null && zonesOfCountry(country).has(zone)) ||
    choice.zones.some((z) => resolveZone(z) === zone) ||
    numberZones.some((z) => resolveZone(z) === zone);
  if (!ofCountry) return 'zone_contradicts_number';
  const clock = clockSignature(zone, now);
  const same = choice.zones.find((z) => clockSignature(z, now) === clock);
  if (same !== undefined) return choice.zones.length === 1 ? choice : { zones: [same], source: 'sheet' };
  // Not where the number's data places it, but in its country: the contact may be there, or where the number says.
  // Both are kept, and the row is called only when legal in each.
  return { zones: [...choice.zones, zone].sort(), source: 'sheet-added' };
}

const nameKey = (s: string): string =>
  s
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .replace(/[\s.]+/g, ' ')
    .trim()
    .toLowerCase();

/** A country's subdivisions by code and by name (name keys as `nameKey`), from date-holidays; empty when it has none. */
const subdivisions = new Map<string, { codes: ReadonlySet<string>; byName: ReadonlyMap<string, string> }>();
function subdivisionsOf(country: string) {
  let s = subdivisions.get(country);
  if (!s) {
    const states = PLACES[country]?.states ?? {};
    s = {
      codes: new Set(Object.keys(states)),
      byName: new Map(Object.entries(states).map(([code, name]) => [nameKey(name), code])),
    };
    subdivisions.set(country, s);
  }
  return s;
}

/** Whether some country's subdivision has this code or name (`ON`, `Ontario`): only asked of a cell that fails. */
function anyCountryHas(upperCode: string, name: string): boolean {
  for (const country of Object.keys(PLACES)) {
    const s = subdivisionsOf(country);
    if (s.codes.has(upperCode) || s.byName.has(name)) return true;
  }
  return false;
}

/**
 * What a State/Region cell names (`FL`, `US-FL`, `Florida`, `québec`), as a scope of the rule tables (`US-FL`,
 * `CA-QC`), for a number of `country`. A bare code or a name is read as one of the number's country; one that is
 * only another country's, or a code prefixed with another country, contradicts the number.
 */
export function statedRegion(stated: string, country: string | null): string | StatedReason {
  const text = stated.trim();
  const prefixed = /^([a-z]{2})-([a-z0-9]{1,3})$/i.exec(text);
  if (prefixed) {
    const of = (prefixed[1] as string).toUpperCase();
    const code = (prefixed[2] as string).toUpperCase();
    if (!subdivisionsOf(of).codes.has(code)) return 'unknown_region';
    return of === country ? `${of}-${code}` : 'region_contradicts_number';
  }
  const upper = text.toUpperCase();
  const name = nameKey(text);
  if (country !== null) {
    const own = subdivisionsOf(country);
    const code = own.codes.has(upper) ? upper : own.byName.get(name);
    if (code !== undefined) return `${country}-${code}`;
  }
  return anyCountryHas(upper, name) ? 'region_contradicts_number' : 'unknown_region';
}

/**
 * The states or provinces whose rules apply once the row's State/Region cell is weighed: `own` is what the number's
 * area code gave (`regionsOfNumber`). One of them: just it (an unchanged array when it was the only one). One of the
 * country that the area code does not serve: the stricter reading, both apply (`own` and the stated one).
 */
export function statedRegions(
  own: readonly string[],
  country: string | null,
  stated: string,
): readonly string[] | StatedReason {
  const region = statedRegion(stated, country);
  if (region === 'unknown_region' || region === 'region_contradicts_number') return region;
  if (own.includes(region)) return own.length === 1 ? own : [region];
  return [...own, region].sort();
}

const isReason = <T>(v: T | StatedReason): v is StatedReason => typeof v === 'string';

/**
 * `statedZones` and `statedRegions` for one intake, each answer worked out once per number prefix (or area code),
 * country and cell text, and equal answers shared as one object: parts group contacts by the identity of their zone
 * choice and regions array first. Made only when a row has such a cell.
 */
export class StatedPlaces {
  private readonly zoneAnswers = new Map<ZoneChoice, Map<string | null, Map<string, ZoneChoice | StatedReason>>>();
  private readonly choices = new Map<string, ZoneChoice>();
  private readonly regionAnswers = new Map<
    readonly string[] | string | null,
    Map<string, readonly string[] | StatedReason>
  >();
  private readonly regionArrays = new Map<string, readonly string[]>();

  constructor(private readonly now: number) {}

  /** For a number (`e164`) whose prefix gave `choice`. */
  zones(choice: ZoneChoice, e164: string, country: string | null, stated: string): ZoneChoice | StatedReason {
    let byCountry = this.zoneAnswers.get(choice);
    if (!byCountry) {
      byCountry = new Map();
      this.zoneAnswers.set(choice, byCountry);
    }
    let byText = byCountry.get(country);
    if (!byText) {
      byText = new Map();
      byCountry.set(country, byText);
    }
    let answer = byText.get(stated);
    if (answer === undefined) {
      answer = statedZones(choice, zonesOf(e164), country, stated, this.now);
      if (!isReason(answer) && answer !== choice) {
        const key = `${answer.source}|${answer.zones.join(' ')}`;
        const shared = this.choices.get(key);
        if (shared) answer = shared;
        else this.choices.set(key, answer);
      }
      byText.set(stated, answer);
    }
    return answer;
  }

  regions(own: readonly string[], country: string | null, stated: string): readonly string[] | StatedReason {
    // The area code's arrays are shared, each of one country; elsewhere the country stands for its (empty) regions.
    const key = own.length > 0 ? own : country;
    let byText = this.regionAnswers.get(key);
    if (!byText) {
      byText = new Map();
      this.regionAnswers.set(key, byText);
    }
    let answer = byText.get(stated);
    if (answer === undefined) {
      answer = statedRegions(own, country, stated);
      if (!isReason(answer) && answer !== own) {
        const text = answer.join(' ');
        const shared = this.regionArrays.get(text);
        if (shared) answer = shared;
        else this.regionArrays.set(text, Object.freeze(answer));
      }
      byText.set(stated, answer);
    }
    return answer;
  }
}
