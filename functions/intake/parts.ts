import type { Contact } from './contacts.ts';
import { type ZoneChoice, zoneGroupKey } from './time-zones.ts';

export const MAX_PART_ROWS = 1000;

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
  contacts: Contact[];
}

type Group = { zone: ZoneChoice; country: string | null; contacts: Contact[] };

/**
 * Splits contacts into campaign parts of at most `maxRows`, in row order. Contacts are first grouped by their country
 * and the set of zones they may ring in (groups in order of first appearance), so each part keeps one set of local
 * and legal hours. Every contact has zones here (`zones[i]` is `contacts[i]`'s): intake rejects a number without any
 * before splitting.
 */
export function splitIntoParts(
  contacts: readonly Contact[],
  zones: readonly ZoneChoice[],
  maxRows = MAX_PART_ROWS,
): Part[] {
  const groups = new Map<string, Group>();
  // Numbers under one prefix share one ZoneChoice object, so a contact's group is found by that object and its
  // country; the text key, which merges equal choices of different prefixes, is built once per pair rather than
  // once per contact (hashing a new string per contact was most of the split).
  const byChoice = new Map<ZoneChoice, Map<string | null, Group>>();
  for (let i = 0; i < contacts.length; i++) {
    const c = contacts[i] as Contact;
    const zone = zones[i] as ZoneChoice;
    let byCountry = byChoice.get(zone);
    if (!byCountry) {
      byCountry = new Map();
      byChoice.set(zone, byCountry);
    }
    let group = byCountry.get(c.country);
    if (!group) {
      const key = zoneGroupKey(zone, c.country);
      group = groups.get(key);
      if (!group) {
        group = { zone, country: c.country, contacts: [] };
        groups.set(key, group);
      }
      byCountry.set(c.country, group);
    }
    group.contacts.push(c);
  }
  const parts: Part[] = [];
  for (const { zone, country, contacts: members } of groups.values()) {
    for (let i = 0; i < members.length; i += maxRows) {
      parts.push({
        index: parts.length + 1,
        zones: zone.zones,
        timeZone: zone.zones[0] as string,
        zoneSource: zone.source,
        country,
        contacts: members.slice(i, i + maxRows),
      });
    }
  }
  return parts;
}
