import type { HoursRule } from './types.ts';

// Seed entries; the full table of 50 states and DC replaces this file.
export const US_STATE_RULES: Readonly<Record<string, HoursRule>> = {
  'US-FL': {
    scope: 'US-FL',
    hours: 'daily 08:00-20:00',
    noHolidays: false,
    basis: 'law',
    source: { law: 'Florida Telephone Solicitation Act, Fla. Stat.', section: '§ 501.059(8)(a)' },
  },
  'US-ID': {
    scope: 'US-ID',
    hours: null,
    noHolidays: false,
    basis: 'none',
    source: {
      law: 'Idaho Telephone Solicitation Act, Idaho Code',
      section: '§§ 48-1001 to 48-1010 (no calling hours)',
    },
    note: 'the federal rule applies',
  },
};
