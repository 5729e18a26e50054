import type { HoursRule } from './types.ts';

// Seed entries (the six of the earlier table); the full table replaces this file.
export const CONSERVATIVE_DEFAULT = { hours: 'Mon-Fri 09:00-20:00; Sat 10:00-17:00', noHolidays: true } as const;

export const COUNTRY_RULES: Readonly<Record<string, HoursRule>> = {
  US: {
    scope: 'US',
    hours: 'daily 08:00-21:00',
    noHolidays: false,
    basis: 'law',
    source: { law: 'Telephone Consumer Protection Act rules, 47 CFR', section: '§ 64.1200(c)(1)' },
  },
  CA: {
    scope: 'CA',
    hours: 'Mon-Fri 09:00-21:30; Sat,Sun 10:00-18:00',
    noHolidays: false,
    basis: 'law',
    source: { law: 'CRTC Unsolicited Telecommunications Rules, Part III (Telemarketing Rules)', section: 's. 31' },
  },
  IN: {
    scope: 'IN',
    hours: 'daily 09:00-21:00',
    noHolidays: false,
    basis: 'law',
    source: { law: 'TRAI Telecom Commercial Communications Customer Preference Regulations 2018', section: 'Schedule' },
  },
  FR: {
    scope: 'FR',
    hours: 'Mon-Fri 10:00-13:00,14:00-20:00',
    noHolidays: true,
    basis: 'law',
    source: { law: 'Code de la consommation; décret n° 2022-1313 du 13 octobre 2022', section: 'art. D. 223-8' },
  },
  AU: {
    scope: 'AU',
    hours: 'Mon-Fri 09:00-20:00; Sat 09:00-17:00',
    noHolidays: true,
    basis: 'law',
    source: { law: 'Telecommunications (Telemarketing and Research Calls) Industry Standard 2017', section: 's. 11' },
  },
  ES: {
    scope: 'ES',
    hours: 'Mon-Fri 09:00-21:00',
    noHolidays: true,
    basis: 'law',
    source: { law: 'Real Decreto Legislativo 1/2007 (TRLGDCU), as amended by Ley 3/2014', section: 'art. 96.2' },
  },
};
