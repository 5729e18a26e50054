import type { HoursRule } from './types.ts';

/**
 * Canadian provinces and territories. The national CRTC Unsolicited Telecommunications Rules (in the countries
 * table) set the hours everywhere; British Columbia adds a ban on statutory holidays. No other province was found
 * to set calling hours of its own, so each of those names the consumer-protection act read and says so (basis
 * `none`). Not legal advice.
 */
const none = (code: string, act: string): HoursRule => ({
  scope: `CA-${code}`,
  hours: null,
  noHolidays: false,
  basis: 'none',
  source: { law: act, section: 'no calling-hours provision' },
  note: 'the CRTC Telemarketing Rules apply',
});

const PROVINCES: HoursRule[] = [
  none('AB', 'Consumer Protection Act, R.S.A. 2000, c. C-26.3'),
  {
    scope: 'CA-BC',
    hours: 'Mon-Fri 09:00-21:30; Sat,Sun 10:00-18:00',
    noHolidays: true,
    basis: 'law',
    source: {
      law: 'Business Practices and Consumer Protection Act, S.B.C. 2004, c. 2: Telemarketer Licensing Regulation',
      section: 'calling hours (weekdays 09:00-21:30, weekends 10:00-18:00, never on a statutory holiday)',
      url: 'https://www.consumerprotectionbc.ca/2023/03/5-rules-about-telemarketing-calls/',
    },
    note: "the hours and the holiday ban as Consumer Protection BC gives them; the regulation's number and section were not found",
  },
  none('MB', 'The Consumer Protection Act, C.C.S.M. c. C200'),
  none('NB', 'Consumer Protection Act (New Brunswick)'),
  none('NL', 'Consumer Protection and Business Practices Act, S.N.L. 2009, c. C-31.1'),
  none('NS', 'Consumer Protection Act, R.S.N.S. 1989, c. 92'),
  none('NT', 'Consumer Protection Act, R.S.N.W.T. 1988, c. C-17'),
  none('NU', 'Consumer Protection Act (Nunavut), R.S.N.W.T. (Nu) 1988, c. C-17'),
  none('ON', 'Consumer Protection Act, 2002, S.O. 2002, c. 30, Sched. A'),
  none('PE', 'Consumer Protection Act, R.S.P.E.I. 1988, c. C-19'),
  none('QC', 'Consumer Protection Act, CQLR c. P-40.1'),
  none('SK', 'The Consumer Protection and Business Practices Act, S.S. 2013, c. C-30.2'),
  none('YT', 'Consumers Protection Act, R.S.Y. 2002, c. 40'),
];

export const CA_PROVINCE_RULES: Readonly<Record<string, HoursRule>> = Object.fromEntries(
  PROVINCES.map((r) => [r.scope, r]),
);
