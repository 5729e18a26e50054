import { regionsOfNumber } from '#commons/calling-hours/regions.ts';
import { describeWindow, intersectRules, type WindowRule } from '#commons/calling-window.ts';
import {
  citation,
  DEFAULT_LEGAL_HOURS,
  type LegalHoursTable,
  legalWindowOf,
  rulesThatApply,
} from '#commons/legal-hours.ts';
import type { Contact, RejectReason } from './contacts.ts';
import { MAX_PART_ROWS, type Part, splitIntoParts } from './parts.ts';
import { StatedPlaces, type StatedReason } from './stated-place.ts';
import { type ZoneChoice, zonesForNumber } from './time-zones.ts';

/**
 * Why a valid number cannot be placed in a part: nobody could say when calling it is legal, or its row's own Time
 * Zone or State/Region cell is unknown or contradicts the number.
 */
export type PlacementReason =
  | Extract<RejectReason, 'no_time_zone' | 'no_legal_hours' | 'outside_legal_hours'>
  | StatedReason;

export interface Unplaced {
  row: number;
  reason: PlacementReason;
  input: string;
}

export interface Placement {
  parts: Part[];
  /** In row order. */
  rejected: Unplaced[];
  /** One line per country or state whose rows were refused for want of legal hours, in words the uploader can act on. */
  problems: string[];
}

/** What the rules of one jurisdiction (a country, or the states an area code serves) allow with the upload's window. */
interface Verdict {
  reason: PlacementReason | null;
  problem: string | null;
}

function judge(
  legal: LegalHoursTable,
  country: string | null,
  regions: readonly string[],
  window: readonly WindowRule[] | null,
): Verdict {
  const rules = rulesThatApply(legal, country, regions);
  if (!rules && !window)
    return {
      reason: 'no_legal_hours',
      problem: `set a calling window for ${country || 'these'} numbers: callsheet has no default legal hours for ${country || 'numbers of unknown country'}`,
    };
  const hours = rules ? legalWindowOf(rules) : null;
  if (!hours || !window) return { reason: null, problem: null };
  if (intersectRules(window, hours).length > 0) return { reason: null, problem: null };
  const who = [country, ...regions].filter(Boolean).join(', ');
  const cited = (rules ?? []).map((r) => `${r.scope} ${r.hours ?? '-'} (${citation(r)})`).join('; ');
  return {
    reason: 'outside_legal_hours',
    problem: `the calling window (${describeWindow({ rules: [...window], holidays: [] })}) has no hour within the legal hours of ${who} (${cited}): those numbers were not placed`,
  };
}

/**
 * Places each contact in a part by its country, the states or provinces whose rules apply to it and the zones it
 * may ring in; never guesses a zone. A number the zone data does not know is refused; so is one whose country has
 * no legal hours when the upload set no window, and one whose rules share no hour with the upload's window. A row's
 * own Time Zone and State/Region cells narrow the number's zones and states, or add to them (stated-place.ts); a
 * cell naming nothing callsheet knows, or a zone or region of another country, refuses the row.
 */
export function placeContacts(
  contacts: readonly Contact[],
  window: readonly WindowRule[] | null,
  legal: LegalHoursTable = DEFAULT_LEGAL_HOURS,
  now = Date.now(),
  maxRows = MAX_PART_ROWS,
): Placement {
  const rejected: Unplaced[] = [];
  const placed: Contact[] = [];
  /** zones[i] and regions[i] are placed[i]'s. */
  const zones: ZoneChoice[] = [];
  const regions: (readonly string[])[] = [];
  // Keyed by the shared regions array of an area code, or by the country elsewhere.
  const verdicts = new Map<string | null | readonly string[], Verdict>();
  const problems = new Set<string>();
  // Made at the first row with a Time Zone or State/Region cell: a sheet without them costs nothing more per row.
  let stated: StatedPlaces | null = null;
  for (const c of contacts) {
    let zone = zonesForNumber(c.phone, now);
    let reason: PlacementReason | null = null;
    let own = regionsOfNumber(c.phone, c.country);
    let input = c.phone;
    if (zone && (c.timeZone || c.region)) {
      stated ??= new StatedPlaces(now);
      const zoneAnswer = c.timeZone ? stated.zones(zone, c.phone, c.country, c.timeZone) : zone;
      const regionAnswer = c.region ? stated.regions(own, c.country, c.region) : own;
      if (typeof zoneAnswer === 'string') {
        reason = zoneAnswer;
        input = c.timeZone as string;
      } else if (typeof regionAnswer === 'string') {
        reason = regionAnswer;
        input = c.region as string;
      } else {
        zone = zoneAnswer;
        own = regionAnswer;
      }
    }
    if (reason) {
      // The cell at fault is the one the user must fix: it is what the rejection shows.
      rejected.push({ row: c.row, reason, input });
      continue;
    }
    if (!zone) reason = 'no_time_zone';
    else {
      const key = own.length > 0 ? own : c.country;
      let verdict = verdicts.get(key);
      if (!verdict) {
        verdict = judge(legal, c.country, own, window);
        verdicts.set(key, verdict);
        if (verdict.problem) problems.add(verdict.problem);
      }
      reason = verdict.reason;
    }
    if (reason) {
      rejected.push({ row: c.row, reason, input: c.phone });
      continue;
    }
    zones.push(zone as ZoneChoice);
    regions.push(own);
    placed.push(c);
  }
  return { parts: splitIntoParts(placed, zones, maxRows, regions), rejected, problems: [...problems] };
}
