import { describeWindow, intersectRules, type WindowRule } from '../commons/calling-window.ts';
import { DEFAULT_LEGAL_HOURS, type LegalHoursTable, legalHoursOf } from '../commons/legal-hours.ts';
import type { Contact, RejectReason } from './contacts.ts';
import { MAX_PART_ROWS, type Part, splitIntoParts } from './parts.ts';
import { type ZoneChoice, zonesForNumber } from './time-zones.ts';

/** Why a valid number cannot be placed in a part: nobody could say when calling it is legal. */
export type PlacementReason = Extract<RejectReason, 'no_time_zone' | 'no_legal_hours' | 'outside_legal_hours'>;

export interface Unplaced {
  row: number;
  reason: PlacementReason;
  input: string;
}

export interface Placement {
  parts: Part[];
  /** In row order. */
  rejected: Unplaced[];
  /** One line per country whose rows were refused for want of legal hours, in words the uploader can act on. */
  problems: string[];
}

/**
 * Places each contact in a part by its country and the zones it may ring in; never guesses a zone. A number the
 * zone data does not know is refused; so is one whose country has no legal hours when the upload set no window,
 * and one whose country's legal hours share no hour with the upload's window.
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
  /** zones[i] is placed[i]'s. */
  const zones: ZoneChoice[] = [];
  const refusedCountries = new Map<string, PlacementReason>();
  const windowMeetsLegal = new Map<string, boolean>();
  for (const c of contacts) {
    const zone = zonesForNumber(c.phone, now);
    let reason: PlacementReason | null = null;
    if (!zone) reason = 'no_time_zone';
    else {
      const hours = legalHoursOf(legal, c.country);
      if (!hours && !window) reason = 'no_legal_hours';
      else if (hours && window) {
        let meets = windowMeetsLegal.get(hours.country);
        if (meets === undefined) {
          meets = intersectRules(window, hours.rules).length > 0;
          windowMeetsLegal.set(hours.country, meets);
        }
        if (!meets) reason = 'outside_legal_hours';
      }
    }
    if (reason) {
      rejected.push({ row: c.row, reason, input: c.phone });
      if (reason !== 'no_time_zone') refusedCountries.set(c.country ?? '', reason);
      continue;
    }
    zones.push(zone as ZoneChoice);
    placed.push(c);
  }
  const problems = [...refusedCountries].map(([country, reason]) => {
    const who = country || 'these';
    if (reason === 'no_legal_hours')
      return `set a calling window for ${who} numbers: callsheet has no default legal hours for ${country || 'numbers of unknown country'}`;
    const hours = legalHoursOf(legal, country);
    return `the calling window (${describeWindow({ rules: [...(window ?? [])], holidays: [] })}) has no hour within ${country} legal hours (${hours?.spec}, ${hours?.source}): ${who} numbers were not placed`;
  });
  return { parts: splitIntoParts(placed, zones, maxRows), rejected, problems };
}
