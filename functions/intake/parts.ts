import type { Contact } from './contacts.ts';
import type { ZoneChoice } from './time-zones.ts';

export const MAX_PART_ROWS = 1000;

export interface Part {
  /** 1-based, in the order parts are written and launched. */
  index: number;
  timeZone: string | null;
  zoneSource: ZoneChoice['source'] | null;
  contacts: Contact[];
}

/**
 * Splits contacts into campaign parts of at most `maxRows`, in row order. Contacts are first grouped by the time
 * zone they will be called in (groups in order of first appearance), so each part can keep its own local hours.
 */
export function splitIntoParts(
  contacts: readonly Contact[],
  zoneOf: (c: Contact) => ZoneChoice | null,
  maxRows = MAX_PART_ROWS,
): Part[] {
  const groups = new Map<string, { zone: ZoneChoice | null; contacts: Contact[] }>();
  for (const c of contacts) {
    const zone = zoneOf(c);
    const key = zone?.timeZone ?? '';
    let group = groups.get(key);
    if (!group) {
      group = { zone, contacts: [] };
      groups.set(key, group);
    }
    group.contacts.push(c);
  }
  const parts: Part[] = [];
  for (const { zone, contacts: members } of groups.values()) {
    for (let i = 0; i < members.length; i += maxRows) {
      parts.push({
        index: parts.length + 1,
        timeZone: zone?.timeZone ?? null,
        zoneSource: zone?.source ?? null,
        contacts: members.slice(i, i + maxRows),
      });
    }
  }
  return parts;
}
