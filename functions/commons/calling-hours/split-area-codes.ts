import type { SplitAreaCode } from './types.ts';

// Seed; the full sourced table replaces this file.
export const SPLIT_AREA_CODES: Readonly<Record<string, SplitAreaCode>> = {
  '208': {
    zones: ['America/Boise', 'America/Los_Angeles'],
    source: { law: 'Standard Time Zone Boundaries, 49 CFR Part 71', section: '§ 71.10 (Pacific zone: northern Idaho)' },
    note: 'northern Idaho (the panhandle) keeps Pacific time; the rest of the state Mountain',
  },
  '907': {
    zones: ['America/Anchorage', 'America/Adak'],
    source: { law: 'Standard Time Zone Boundaries, 49 CFR Part 71', section: '§ 71.11 (Hawaii-Aleutian zone)' },
    note: 'the Aleutian Islands west of 169°30′ W keep Hawaii-Aleutian time',
  },
};
