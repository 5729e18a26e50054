import type { Contact } from './contacts.ts';
import { type ZoneChoice, zoneGroupKey } from './time-zones.ts';

export const MAX_PART_ROWS = 1000;

const NO_REGIONS: readonly string[] = [];

export interface Part {
  /** 1-based, in the order parts are written and launched. */
  index: number;
  /** Every zone the part's numbers may ring in (one per clock); it is called only when open in all of them. */
  zones: string[];
  /** zones[0], for display. */
  timeZone: string;
  zoneSource: ZoneChoice['source'];
  /** The one country of the part's numbers, whose legal calling hours apply. */
  country: string | null;
  /** The states or provinces whose rules apply to every number of the part too (`US-FL`); often none. */
  regions: readonly string[];
  contacts: Contact[];
}

type Group = { zone: ZoneChoice; country: string | null; regions: readonly string[]; contacts: Contact[] };

/**
 * Splits contacts into campaign parts of at most `maxRows`, in row order. Contacts are first grouped by their country,
 * the states or provinces whose rules apply and the set of zones they may ring in (groups in order of first
 * appearance), so each part keeps one set of local and legal hours. Every contact has zones here (`zones[i]` is
 * `contacts[i]`'s, `regions[i]` likewise): intake rejects a number without any before splitting.
 */
export function splitIntoParts(
  contacts: readonly Contact[],
  zones: readonly ZoneChoice[],
  maxRows = MAX_PART_ROWS,
  regions: readonly (readonly string[])[] = [],
): Part[] {
  const groups = new Map<string, Group>();
  // Numbers under one prefix share one ZoneChoice object, so a contact's group is found by that object and its
  // country; the text key, which merges equal choices of different prefixes, is built once per pair rather than
  // once per contact (hashing a new string per contact was most of the split).
  // A number's regions are one of the shared arrays of the area-code table, each of a single country, so a
  // non-empty array stands for its country too.
  const byChoice = new Map<ZoneChoice, Map<string | null | readonly string[], Group>>();
  for (let i = 0; i < contacts.length; i++) {
    const c = contacts[i] as Contact;
    const zone = zones[i] as ZoneChoice;
    const own = regions[i] ?? NO_REGIONS;
    let byJurisdiction = byChoice.get(zone);
    if (!byJurisdiction) {
      byJurisdiction = new Map();
      byChoice.set(zone, byJurisdiction);
    }
    const jurisdiction = own.length > 0 ? own : c.country;
    let group = byJurisdiction.get(jurisdiction);
    if (!group) {
      const key = `${zoneGroupKey(zone, c.country)}|${own.join(' ')}`;
      group = groups.get(key);
      if (!group) {
        group = { zone, country: c.country, regions: own, contacts: [] };
        groups.set(key, group);
      }
      byJurisdiction.set(jurisdiction, group);
    }
    group.contacts.push(c);
  }
  const parts: Part[] = [];
  for (const { zone, country, regions: scopes, contacts: members } of groups.values()) {
    for (let i = 0; i < members.length; i += maxRows) {
      parts.push({
        index: parts.length + 1,
        zones: zone.zones,
        timeZone: zone.zones[0] as string,
        zoneSource: zone.source,
        country,
        regions: scopes,
        contacts: members.slice(i, i + maxRows),
      });
    }
  }
  return parts;
}
