import type { HoursRule, RuleSource } from './types.ts';

/**
 * Calling hours by country (ISO 3166-1 alpha-2), for a call that markets, sells or collects. Where a statute or a
 * regulator's rule sets hours, that rule cited to its section (basis `law`); where none was found, callsheet's
 * conservative default (basis `default`), citing the law that was read and sets no hours. A state's or province's
 * rule and the upload's window narrow these further. Where a source was unsure or a sector code stricter than the
 * law, the stricter reading was taken and the note says so. Defaults with their sources, not legal advice.
 */

/**
 * The default where no law sets hours: weekdays 09:00-20:00, Saturdays 10:00-17:00, never on Sundays or public
 * holidays. It follows the general telemarketing laws found in Europe, the Americas and Oceania: 09:00 is the latest
 * start most of them set (AU, ES, IN, PT, NO), 20:00 the earliest weekday end of those (AU, ZA; Italy's telemarketing
 * code); Saturday sits inside AU 09:00-17:00 and Italy's code 10:00-19:00; Sundays and public holidays are closed as
 * in AU, ES, FR, NO, CO and ZA. Laws that end earlier or close Saturdays (AE, BR, CO, ID, PT, VN, ZA)
 * have rows of their own, which replace it. Stricter than the UK DMA code and Ireland's creditor and banking rules.
 * `LEGAL_HOURS` replaces or removes it.
 */
export const CONSERVATIVE_DEFAULT = {
  hours: 'Mon-Fri 09:00-20:00; Sat 10:00-17:00',
  noHolidays: true,
} as const;

/**
 * The same default where the weekly day of rest is Friday and the weekend Friday-Saturday (Saudi Arabia, Qatar,
 * Kuwait, Egypt, Bangladesh): the working week keeps the weekday hours, Saturday the short day, Friday is closed.
 */
export const FRIDAY_REST_DEFAULT = {
  hours: 'Sun-Thu 09:00-20:00; Sat 10:00-17:00',
  noHolidays: true,
} as const;

const DEFAULT_NOTE =
  "no calling-hours law found: callsheet's conservative default applies (LEGAL_HOURS can replace it)";
const FRIDAY_NOTE =
  "no calling-hours law found: callsheet's conservative default for a Friday-Saturday weekend applies (LEGAL_HOURS can replace it)";

function law(scope: string, hours: string, noHolidays: boolean, source: RuleSource, note?: string): HoursRule {
  return {
    scope,
    hours,
    noHolidays,
    basis: 'law',
    source,
    ...(note ? { note } : {}),
  };
}

/** A country with no calling-hours law: the default, and the law that was read. */
function byDefault(
  scope: string,
  source: RuleSource,
  more?: string,
  base: { hours: string; noHolidays: boolean } = CONSERVATIVE_DEFAULT,
): HoursRule {
  const note = base === FRIDAY_REST_DEFAULT ? FRIDAY_NOTE : DEFAULT_NOTE;
  return {
    scope,
    ...base,
    basis: 'default',
    source,
    note: more ? `${note}; ${more}` : note,
  };
}

/** date-holidays has no calendar for these, so their public holidays cannot be closed: the upload must list them. */
function withoutCalendar(rule: HoursRule): HoursRule {
  return {
    ...rule,
    noHolidays: false,
    note: `${rule.note}; callsheet has no public-holiday calendar for ${rule.scope} (date-holidays lacks it): list its holidays in the upload's holidays setting`,
  };
}

const RULES: HoursRule[] = [
  // North America
  law('US', 'daily 08:00-21:00', false, {
    law: 'TCPA rules, 47 CFR',
    section: '§ 64.1200(c)(1) (no telephone solicitation before 8 a.m. or after 9 p.m. local time)',
    url: 'https://www.ecfr.gov/current/title-47/chapter-I/subchapter-B/part-64/subpart-L/section-64.1200',
  }),
  law(
    'CA',
    'Mon-Fri 09:00-21:30; Sat,Sun 10:00-18:00',
    false,
    {
      law: 'CRTC Unsolicited Telecommunications Rules, Part III (Telemarketing Rules) and Part IV (Automatic Dialing-Announcing Device Rules), as modified by Telecom Regulatory Policy CRTC 2009-200',
      section: 'calling hours (weekdays 09:00-21:30, weekends 10:00-18:00)',
      url: 'https://crtc.gc.ca/eng/archive/2009/2009-200.htm',
    },
    "an AI voice agent is taken to be an automatic dialing-announcing device (the stricter reading), whose solicitation calls need express consent (Part IV), which callsheet does not check; CRTC 2009-200 modified the ADAD calling hours, and FEDMA and several others give them as the telemarketing hours since; the hours are the CRTC's own summary; the Rules' text and rule numbers were not read",
  ),
  byDefault(
    'MX',
    {
      law: 'Ley Federal de Protección al Consumidor',
      section: 'arts. 17-18 (REPEP register: no advertising to registered numbers)',
    },
    'a 2019 Senate bill (weekdays 08:00-19:00, no rest days) was not found in force',
  ),
  // South America
  law(
    'BR',
    'Mon-Fri 08:00-18:00',
    true,
    {
      law: 'Lei estadual RJ 4.896/2006 as amended by Lei 7.853/2018 (upheld by the STF, ADI 5962); Lei estadual CE 16.836/2019',
      section: 'RJ art. 1º-A (offers by phone Monday to Friday 08:00-18:00, never on Saturdays, Sundays or holidays)',
    },
    "the hours are art. 1º-A of Lei 4.896/2006, inserted by Lei 7.853/2018, for people not on the telephone privacy list; no federal law sets hours; state laws differ (ES Lei 10.626/2017 weekdays 08:00-19:00; SP Lei 15.426/2014 collection calls weekdays 08:00-20:00, Saturdays 08:00-14:00), and a number does not prove which state its holder is in, so the strictest found applies to all of Brazil; other states may be stricter; every state's public holidays are closed everywhere for the same reason, municipal ones are not in the calendar",
  ),
  byDefault(
    'AR',
    {
      law: 'Ley 26.951 (Registro Nacional "No Llame")',
      section: 'art. 7 (no calls to registered numbers)',
    },
    "Buenos Aires City's law on collection agencies (Ley 6171) is reported to fix calling hours; its enacted text was not found, and its bill barred non-working days: set a narrower window for collection calls there",
  ),
  law(
    'CO',
    'Mon-Fri 07:00-19:00; Sat 08:00-15:00',
    true,
    {
      law: 'Ley 2300 de 2023',
      section: 'art. 3 (contact only weekdays 07:00-19:00 and Saturdays 08:00-15:00, never Sundays or holidays)',
      url: 'http://www.secretariasenado.gov.co/senado/basedoc/ley_2300_2023.html',
    },
    'written for financial entities and debt collection; the law also covers advertising messages and calls, so it is applied to every call (the stricter reading)',
  ),
  byDefault(
    'CL',
    {
      law: 'Ley 19.496 sobre protección de los derechos de los consumidores',
      section: 'art. 28 B (promotional calls must allow opting out)',
    },
    'collection calls (art. 37, Ley 21.320) are limited to Monday-Saturday 08:00-20:00, within the default',
  ),
  law(
    'PE',
    'Mon-Fri 09:00-20:00',
    true,
    {
      law: 'Código de Protección y Defensa del Consumidor (Ley 29571), as amended by Ley 32323 (2025)',
      section:
        'art. 62(b) (no collection calls between 20:00 and 07:00, nor on Saturdays, Sundays or holidays); art. 58.1(e) (calls to promote products need prior express consent)',
      url: 'https://elegirservicio.pe/codigo-de-proteccion-y-defensa-del-consumidor/',
    },
    "written for debt collection, and applied to every call as Colombia's is (the stricter reading), inside callsheet's default weekday hours, as no law sets telemarketing hours; the letter (b) is from a secondary page; consent is not checked",
  ),
  // Europe
  byDefault(
    'GB',
    {
      law: 'Privacy and Electronic Communications (EC Directive) Regulations 2003',
      section: 'reg. 21 (Telephone Preference Service and opt-outs)',
      url: 'https://www.legislation.gov.uk/uksi/2003/2426/regulation/21',
    },
    "the DMA Code only asks members to avoid antisocial times; Ofcom's persistent-misuse policy sets no hours; automated calls that play a recorded message need prior consent (reg. 19), which callsheet does not check",
  ),
  byDefault(
    'IE',
    {
      law: 'European Communities (Electronic Communications Networks and Services) (Privacy and Electronic Communications) Regulations 2011, S.I. 336/2011',
      section: 'reg. 13 (unsolicited marketing calls)',
    },
    'creditors may not call 21:00-09:00 or on Sundays and public holidays (Consumer Credit Act 1995 s. 46), within the default',
  ),
  byDefault(
    'DE',
    {
      law: 'Gesetz gegen den unlauteren Wettbewerb (UWG)',
      section: '§ 7(2) Nr. 1 (calls to consumers need prior express consent)',
      url: 'https://www.gesetze-im-internet.de/uwg_2004/__7.html',
    },
    'advertising by an automatic calling machine needs prior express consent from anyone, businesses too (§ 7(2) Nr. 2), which callsheet does not check',
  ),
  law(
    'FR',
    'Mon-Fri 10:00-13:00,14:00-20:00',
    true,
    {
      law: 'Code de la consommation (art. L. 223-1 ff.), as completed by décret n° 2022-1313 du 13 octobre 2022',
      section: 'art. D. 223-9 (weekdays 10:00-13:00 and 14:00-20:00; never Saturdays, Sundays or public holidays)',
      url: 'https://www.legifrance.gouv.fr/jorf/id/JORFTEXT000046421823',
    },
    "at most four attempts per consumer in 30 days, none for 60 days after a refusal: callsheet does not count these; since 11 August 2026 canvassing calls need the consumer's prior consent (art. L. 223-1 as amended by loi n° 2025-594, art. 13), which callsheet does not check",
  ),
  law(
    'ES',
    'Mon-Fri 09:00-21:00',
    true,
    {
      law: 'Real Decreto Legislativo 1/2007 (TRLGDCU), as amended by Ley 3/2014',
      section: 'art. 96.2 (never before 09:00 or after 21:00, nor on holidays or weekends)',
      url: 'https://www.boe.es/buscar/act.php?id=BOE-A-2007-20555',
    },
    "regional holidays also count and a number does not prove its region: every region's public holidays are closed everywhere (the stricter reading); local holidays are not in the calendar; since 2023 unsolicited commercial calls also need consent (Ley 11/2022, art. 66.1.b), and automated calls without a person prior express consent (art. 96.3), which callsheet does not check",
  ),
  byDefault(
    'IT',
    {
      law: 'Codice di condotta per le attività di telemarketing e teleselling (Garante, provv. n. 148 del 7 marzo 2024, G.U. n. 73 del 27 marzo 2024)',
      section:
        'calling hours for its members (weekdays 09:00-20:00, Saturdays and eves of holidays 10:00-19:00, never Sundays or holidays); no statute sets hours',
    },
    'the code binds only companies that adhere to it; the default matches it except on weekday eves of holidays (10:00-19:00 under the code), whose hours callsheet does not model: set a narrower window on those dates',
  ),
  byDefault(
    'NL',
    {
      law: 'Telecommunicatiewet; Code Telemarketing (Stichting Reclame Code)',
      section:
        'telemarketing calls need consent since 1 July 2021 (opt-in); the code allows weekdays 09:00-22:00 and Saturdays 10:00-16:00',
    },
    "Saturday ends at the code's 16:00 (the stricter reading); the code also ends calls at 18:30 on 5 December, 24 December and 4 May and bars remembrance and mourning days, which callsheet does not model: set a narrower window on those dates; the article number of the opt-in rule was not found",
    { hours: 'Mon-Fri 09:00-20:00; Sat 10:00-16:00', noHolidays: true },
  ),
  byDefault('BE', {
    law: 'Code de droit économique / Wetboek van economisch recht',
    section:
      'art. VI.110 § 2, as replaced by the law of 19 February 2024, and arts. VI.111-VI.115 (no calls to numbers on the "Ne m\'appelez plus" / "Bel-me-niet-meer" list)',
  }),
  law(
    'PT',
    'Mon-Fri 09:00-20:00',
    true,
    {
      law: 'Decreto-Lei n.º 134/2009 (centros telefónicos de relacionamento), as amended',
      section:
        'art. 7.º, n.º 1 (calls must respect the rest periods in use and never start before 09:00 or after 22:00)',
    },
    "the law's outer limits are 09:00-22:00; the rest periods in use are not defined: a commentary reads them as Saturdays, Sundays and holidays, so those are closed, and the weekdays end at callsheet's default 20:00 (the stricter reading); automated calls need consent (Lei 41/2004, art. 13.º-A)",
  ),
  byDefault(
    'PL',
    {
      law: 'Prawo komunikacji elektronicznej (2024)',
      section: 'art. 398 ust. 1 (direct marketing by phone or automatic calling systems needs prior consent)',
    },
    'callsheet does not check consent',
  ),
  byDefault('SE', {
    law: 'Marknadsföringslag (2008:486)',
    section: '§§ 19-21 (automated calls need consent; objections and the NIX register)',
  }),
  byDefault('DK', {
    law: 'Forbrugeraftaleloven',
    section: '§ 4, stk. 1 (no unsolicited calls to consumers without their prior request)',
  }),
  law(
    'NO',
    'Mon-Fri 09:00-21:00',
    true,
    {
      law: 'Markedsføringsloven (LOV-2009-01-09-2)',
      section:
        '§ 14 (no telemarketing to consumers on Saturdays, Sundays and public holidays, or on weekdays before 09:00 or after 21:00)',
      url: 'https://lovdata.no/lov/2009-01-09-2/§14',
    },
    'days the law treats like holidays (1 and 17 May) are in the calendar',
  ),
  byDefault('FI', {
    law: 'Laki sähköisen viestinnän palveluista (917/2014)',
    section: '§ 200 (direct marketing to natural persons)',
  }),
  byDefault('AT', {
    law: 'Telekommunikationsgesetz 2021',
    section: '§ 174(1) (advertising calls need prior consent)',
  }),
  byDefault(
    'CH',
    {
      law: 'Bundesgesetz gegen den unlauteren Wettbewerb (UWG)',
      section: 'Art. 3 Abs. 1 lit. u (no calls to numbers marked in the directory)',
    },
    'the regulator (BAKOM) says advertising calls may not be fully automated, which callsheet does not check',
  ),
  byDefault(
    'GR',
    {
      law: 'Law 3471/2006',
      section: 'art. 11 (unsolicited communications; opt-out register)',
    },
    "calls without human intervention need the subscriber's express prior consent (art. 11), which callsheet does not check",
  ),
  byDefault('CZ', {
    law: 'Zákon č. 127/2005 Sb., o elektronických komunikacích',
    section:
      '§ 96 odst. 1 (telemarketing calls need consent: opt-in by zákon č. 374/2021 Sb., for calls from 1 July 2022)',
  }),
  byDefault(
    'RO',
    {
      law: 'Legea nr. 506/2004; the AMCC code of conduct for debt collection',
      section: 'art. 12 (unsolicited communications); the code allows Saturday calls 09:00-14:00 only',
    },
    "Saturday ends at the code's 14:00 (the stricter reading; the code binds the collection firms that adopted it)",
    { hours: 'Mon-Fri 09:00-20:00; Sat 10:00-14:00', noHolidays: true },
  ),
  // The Gulf
  law(
    'AE',
    'daily 09:00-18:00',
    false,
    {
      law: 'Cabinet Resolution No. 56 of 2024 regulating telemarketing',
      section:
        'obligations of companies marketing by phone (calls only between 09:00 and 18:00); in force 27 August 2024',
    },
    'the hours are as the Ministry of Economy and TDRA announced them; the article number was not found. No more than one call a day and two a week to a consumer who did not answer or ended the call: callsheet does not count these',
  ),
  byDefault(
    'SA',
    {
      law: 'CITC Decision 395/1439, Regulation for Reduction of SPAM',
      section: 'promotional messages (sets sending hours for SMS, none for voice calls)',
    },
    undefined,
    FRIDAY_REST_DEFAULT,
  ),
  withoutCalendar(
    byDefault(
      'QA',
      {
        law: 'Law No. 13 of 2016 on Protecting Personal Data Privacy',
        section: 'art. 22 (direct marketing needs consent)',
      },
      undefined,
      FRIDAY_REST_DEFAULT,
    ),
  ),
  withoutCalendar(
    byDefault(
      'KW',
      {
        law: 'CITRA Data Privacy Protection Regulation (Resolution 26/2024)',
        section:
          'binds CITRA licensees only since Decision 244/2023; no direct-marketing or calling-hours provision found',
      },
      'read in secondary sources only',
      FRIDAY_REST_DEFAULT,
    ),
  ),
  // South and East Asia
  law(
    'IN',
    'daily 09:00-21:00',
    false,
    {
      law: 'TRAI Telecom Commercial Communications Customer Preference Regulations, 2018 (TCCCPR)',
      section: 'no commercial communication between 21:00 and 09:00',
      url: 'https://trai.gov.in/tcccpr',
    },
    "the 21:00-09:00 ban is explicit in the 2010 regulations that TCCCPR 2018 replaced and is applied under the 2018 regulations' codes of practice; its regulation number in the 2018 text was not confirmed",
  ),
  byDefault('PK', {
    law: 'PTA Protection from Spam, Unsolicited, Fraudulent and Obnoxious Communication Regulations, 2009 (S.R.O. 713(I)/2009)',
    section: 'Do Not Call Register provisions (no calling hours)',
  }),
  byDefault(
    'BD',
    {
      law: 'Bangladesh Telecommunication Act, 2001',
      section: 'no provision on the hours of marketing calls was found',
    },
    undefined,
    FRIDAY_REST_DEFAULT,
  ),
  byDefault('SG', {
    law: 'Personal Data Protection Act 2012',
    section: 'Part 9 (Do Not Call Registry; no calling hours)',
  }),
  byDefault(
    'MY',
    {
      law: 'Personal Data Protection Act 2010',
      section: 's. 43 (right to stop direct marketing)',
    },
    'read for both weekends Malaysia keeps (Friday-Saturday in Kedah, Kelantan and Terengganu, Saturday-Sunday elsewhere), since a number does not tell which state its holder is in: no calls on Fridays or Sundays (the stricter reading)',
    { hours: 'Mon-Thu 09:00-20:00; Sat 10:00-17:00', noHolidays: true },
  ),
  byDefault(
    'PH',
    {
      law: 'Data Privacy Act of 2012 (Republic Act 10173)',
      section: 's. 16 (rights of the data subject, including objecting to direct marketing)',
    },
    'SEC and BSP rules limit collection calls to daytime hours that lie within the default',
  ),
  law(
    'ID',
    'Mon-Sat 08:00-18:00',
    true,
    {
      law: 'OJK consumer protection regulation (POJK No. 6/POJK.07/2022, replaced by POJK No. 22 of 2023)',
      section: 'art. 25 of POJK 6/2022 (offers by phone only Monday-Saturday 08:00-18:00, never on national holidays)',
    },
    "written for financial firms, and applied to every call as Colombia's is (the stricter reading); the offer also needs the consumer's prior consent, which callsheet does not check; the article in POJK 22/2023 that carries the rule was not found",
  ),
  byDefault('TH', {
    law: 'Direct Sales and Direct Marketing Act B.E. 2545 (2002)',
    section: 'direct marketing provisions (no calling hours)',
  }),
  law(
    'VN',
    'daily 08:00-17:00',
    false,
    {
      law: 'Decree 91/2020/ND-CP on fighting spam messages, emails and calls',
      section: 'art. 13 (advertising calls only 08:00-17:00; at most one call a day to a number)',
    },
    'advertising messages may go 07:00-22:00; the Decree is still cited as in force, but later telecom decrees may amend it',
  ),
  byDefault(
    'JP',
    {
      law: '特定商取引に関する法律 (Act on Specified Commercial Transactions)',
      section:
        'art. 17 (no renewed solicitation after a refusal); Ordinance art. 23 (no annoying manner of solicitation)',
    },
    'the Consumer Affairs Agency counts calls late at night or early in the morning as an annoying manner; the default avoids them',
  ),
  law(
    'KR',
    'daily 08:00-21:00',
    false,
    {
      law: '정보통신망 이용촉진 및 정보보호 등에 관한 법률 (Network Act)',
      section: 'art. 50(3) (advertising between 21:00 and 08:00 needs separate prior consent)',
    },
    'telephone advertising needs prior consent at any hour, save to existing customers (art. 50(2)), which callsheet does not check',
  ),
  byDefault('CN', {
    law: '中华人民共和国广告法 (Advertising Law)',
    section: 'art. 43 (no advertising by electronic means without consent)',
  }),
  byDefault(
    'HK',
    {
      law: 'Unsolicited Electronic Messages Ordinance (Cap. 593)',
      section: 's. 11 (no commercial electronic messages to numbers on a do-not-call register)',
      url: 'http://www.hklii.org/hk/legis/en/ord/593/sch1.html',
    },
    "Schedule 1 exempts only person-to-person calls without a pre-recorded or synthesized element, so an AI voice agent's calls are within the ordinance",
  ),
  byDefault('TW', {
    law: '個人資料保護法 (Personal Data Protection Act)',
    section: 'art. 20 (marketing use stops on objection)',
  }),
  // Oceania
  law(
    'AU',
    'Mon-Fri 09:00-20:00; Sat 09:00-17:00',
    true,
    {
      law: 'Telecommunications (Telemarketing and Research Calls) Industry Standard 2017',
      section: 's. 11 (calling times: never on Sundays or national public holidays)',
      url: 'https://www.legislation.gov.au/F2017L00323/latest/text',
    },
    'national public holidays only; research calls have other hours',
  ),
  byDefault('NZ', {
    law: 'Fair Trading Act 1986',
    section: 'Part 4A (uninvited direct sales)',
  }),
  // Africa
  law(
    'ZA',
    'Mon-Fri 08:00-20:00; Sat 09:00-13:00',
    true,
    {
      law: 'Consumer Protection Act 68 of 2008 and its Regulations (GN R293 of 1 April 2011)',
      section:
        '"Prohibited time for contacting consumers", made under s. 12(2) (never Sundays or public holidays; Saturdays 09:00-13:00; other days not 20:00-08:00)',
      url: 'https://www.acts.co.za/consumer-protection-act-2008/r293_prohibited_time_for_contacting_consumers',
    },
    'the text numbers its paragraphs as items; where it sits in GN R293 (not regulation 4, which is on blocking direct marketing) was not confirmed',
  ),
  byDefault('NG', {
    law: 'Nigeria Data Protection Act 2023',
    section: 's. 36 (right to object to direct marketing)',
  }),
  byDefault(
    'KE',
    {
      law: 'Data Protection Act 2019',
      section: 's. 37 (commercial use of personal data)',
    },
    'automated calling systems without human intervention need prior consent for direct marketing (Kenya Information and Communications (Consumer Protection) Regulations, reg. 17(1)), which callsheet does not check',
  ),
  byDefault(
    'EG',
    {
      law: 'Personal Data Protection Law No. 151 of 2020',
      section: 'art. 17 (electronic marketing needs consent)',
    },
    undefined,
    FRIDAY_REST_DEFAULT,
  ),
  byDefault(
    'MA',
    {
      law: 'Loi n° 09-08 relative à la protection des personnes physiques à l’égard du traitement des données à caractère personnel',
      section: 'art. 10 (direct marketing by automated means needs consent)',
    },
    'callsheet does not check consent',
  ),
];

export const COUNTRY_RULES: Readonly<Record<string, HoursRule>> = Object.freeze(
  Object.fromEntries(RULES.map((r) => [r.scope, r])),
);
