import type { HoursRule, RuleSource } from './types.ts';

/**
 * Calling hours by country: where a statute or regulator rule sets them, that rule, cited to its section (basis
 * `law`); where none was found, callsheet's conservative default (basis `default`), citing the law that was read and
 * sets no hours. A deployment replaces an entry's hours through `LEGAL_HOURS`, or switches a default off with
 * `"off"` (numbers there then need the upload's own window). Defaults with their sources, not legal advice.
 */

/**
 * Where no law sets hours: weekday business hours and a short Saturday, never on Sundays or public holidays; within
 * what the TCPA, the CRTC and the Australian standard allow, and closed on the days the strictest laws close.
 */
export const CONSERVATIVE_DEFAULT = { hours: 'Mon-Fri 09:00-20:00; Sat 10:00-17:00', noHolidays: true } as const;

const UNCONFIRMED = 'section as summarized by secondary sources, not yet checked against the official text';

function law(scope: string, hours: string, noHolidays: boolean, source: RuleSource, note?: string): HoursRule {
  return { scope, hours, noHolidays, basis: 'law', source, ...(note ? { note } : {}) };
}

function fallback(scope: string, act: string, section: string, note?: string): HoursRule {
  return {
    scope,
    hours: CONSERVATIVE_DEFAULT.hours,
    noHolidays: CONSERVATIVE_DEFAULT.noHolidays,
    basis: 'default',
    source: { law: act, section: `${section}; sets no calling hours` },
    note: note ?? "no calling-hours law found: callsheet's conservative default applies (LEGAL_HOURS can replace it)",
  };
}

/** date-holidays has no calendar for these: their public holidays cannot be closed for them. */
function noCalendar(rule: HoursRule): HoursRule {
  return {
    ...rule,
    noHolidays: false,
    note: `${rule.note}; callsheet has no holiday calendar for ${rule.scope}: list its public holidays in the upload's holidays setting`,
  };
}

const RULES: HoursRule[] = [
  // North America
  law('US', 'daily 08:00-21:00', false, {
    law: 'Telephone Consumer Protection Act rules, 47 CFR',
    section: '§ 64.1200(c)(1)',
    url: 'https://www.ecfr.gov/current/title-47/chapter-I/subchapter-B/part-64/subpart-L/section-64.1200',
  }),
  law('CA', 'Mon-Fri 09:00-21:30; Sat,Sun 10:00-18:00', false, {
    law: 'CRTC Unsolicited Telecommunications Rules, Part III (Telemarketing Rules)',
    section: 'rule 31 (weekdays 09:00-21:30, weekends 10:00-18:00)',
    url: 'https://crtc.gc.ca/eng/trvs-tdvs/mod.htm',
  }),
  fallback('MX', 'Ley Federal de Protección al Consumidor', 'art. 17 (REPEP do-not-call register)'),
  // South America
  fallback(
    'BR',
    'Código de Defesa do Consumidor (Lei 8.078/1990) and Anatel Resolução 765/2023',
    'arts. 6 and 39',
    'no federal calling-hours law (some states\' laws and the "Não Me Perturbe" register add to it): callsheet\'s conservative default applies',
  ),
  fallback('AR', 'Ley 26.951 (Registro Nacional "No Llame") and Decreto 2501/2014', 'arts. 7-8'),
  law(
    'CO',
    'Mon-Fri 07:00-19:00; Sat 08:00-15:00',
    true,
    { law: 'Ley 2300 de 2023 ("dejen de fregar")', section: 'art. 3 (contact hours)' },
    `no contact on Sundays or public holidays; ${UNCONFIRMED}`,
  ),
  fallback('CL', 'Ley 19.496 sobre protección de los derechos de los consumidores', 'art. 28 B'),
  fallback('PE', 'Código de Protección y Defensa del Consumidor (Ley 29571)', 'art. 58(1)(e)'),
  // Europe
  fallback(
    'GB',
    'Privacy and Electronic Communications (EC Directive) Regulations 2003',
    'regs. 19 and 21 (consent and the Telephone Preference Service)',
  ),
  fallback(
    'IE',
    'European Communities (Electronic Communications Networks and Services) (Privacy) Regulations 2011, S.I. 336/2011',
    'reg. 13',
  ),
  fallback('DE', 'Gesetz gegen den unlauteren Wettbewerb (UWG)', '§ 7(2) Nr. 1 (prior consent required)'),
  law(
    'FR',
    'Mon-Fri 10:00-13:00,14:00-20:00',
    true,
    {
      law: 'Code de la consommation, art. L. 223-1; décret n° 2022-1313 du 13 octobre 2022',
      section: 'art. D. 223-8',
      url: 'https://www.legifrance.gouv.fr/jorf/id/JORFTEXT000046415347',
    },
    'never on Saturdays, Sundays or public holidays',
  ),
  law(
    'ES',
    'Mon-Fri 09:00-21:00',
    true,
    { law: 'Real Decreto Legislativo 1/2007 (TRLGDCU), as amended by Ley 3/2014', section: 'art. 96.2' },
    'never on weekends or public holidays',
  ),
  fallback(
    'IT',
    'Registro pubblico delle opposizioni, D.P.R. 26/2022',
    'arts. 1-2',
    "no statutory calling hours (the 2024 telemarketing code of conduct sets its own): callsheet's conservative default applies",
  ),
  fallback('NL', 'Telecommunicatiewet', 'art. 11.7 (consent for unsolicited calls)'),
  fallback('BE', 'Wetboek van economisch recht / Code de droit économique', 'art. VI.110 ("Ne m\'appelez plus")'),
  fallback('PT', 'Lei n.º 41/2004 (comunicações eletrónicas e privacidade)', 'art. 13.º-A'),
  fallback('PL', 'Prawo komunikacji elektronicznej (2024)', 'art. 398 (prior consent)'),
  fallback('SE', 'Marknadsföringslag (2008:486)', '§ 19 and the NIX register'),
  fallback('DK', 'Markedsføringsloven (LBK nr 866 af 15/06/2022)', '§ 10'),
  law(
    'NO',
    'Mon-Sat 09:00-16:00',
    true,
    { law: 'Markedsføringsloven (LOV-2009-01-09-2)', section: '§ 13 (telephone marketing)' },
    `the law allows weekdays until 21:00 but only until 16:00 on Saturdays and on the eve of a Sunday or holiday; callsheet cannot tell eves apart, so it stops at 16:00 every day (the stricter reading); ${UNCONFIRMED}`,
  ),
  fallback('FI', 'Kuluttajansuojalaki (38/1978)', 'ch. 2, § 7 and the Robinson register'),
  fallback('AT', 'Telekommunikationsgesetz 2021', '§ 174 (prior consent)'),
  fallback('CH', 'Bundesgesetz gegen den unlauteren Wettbewerb (UWG)', 'Art. 3 Abs. 1 lit. u'),
  fallback('GR', 'Law 3471/2006', 'art. 11'),
  fallback('CZ', 'Zákon č. 127/2005 Sb., o elektronických komunikacích', '§ 96'),
  fallback('RO', 'Legea nr. 506/2004', 'art. 12'),
  // The Gulf
  law(
    'AE',
    'daily 09:00-18:00',
    false,
    { law: 'Cabinet Resolution No. 56 of 2024 on the regulation of telemarketing', section: 'calling hours' },
    UNCONFIRMED,
  ),
  fallback('SA', 'Communications and Information Technology Act (2022)', 'CST consumer protection regulations'),
  noCalendar(fallback('QA', 'Law No. 13 of 2016 on Personal Data Privacy', 'art. 22')),
  noCalendar(fallback('KW', 'CITRA Data Privacy Protection Regulation (2024)', 'direct marketing provisions')),
  // South and East Asia
  law(
    'IN',
    'daily 09:00-21:00',
    false,
    {
      law: 'TRAI Telecom Commercial Communications Customer Preference Regulations (TCCCPR) 2018',
      section: 'regulation 6 and Schedule-I',
    },
    UNCONFIRMED,
  ),
  fallback(
    'PK',
    'PTA Protection from Spam, Unsolicited, Fraudulent and Obnoxious Communication Regulations, 2009',
    'reg. 4',
  ),
  fallback('BD', 'Bangladesh Telecommunication Act, 2001', 's. 69'),
  fallback('SG', 'Personal Data Protection Act 2012', 'Part 9 (Do Not Call Registry)'),
  fallback('MY', 'Personal Data Protection Act 2010', 's. 43 (direct marketing)'),
  fallback('PH', 'Data Privacy Act of 2012 (Republic Act 10173)', 's. 16'),
  fallback('ID', 'Undang-Undang No. 27/2022 (Pelindungan Data Pribadi)', 'art. 20'),
  fallback('TH', 'Personal Data Protection Act B.E. 2562 (2019)', 's. 19'),
  law(
    'VN',
    'daily 08:00-17:00',
    false,
    { law: 'Decree 91/2020/ND-CP on fighting spam messages, emails and calls', section: 'art. 12' },
    `advertising calls only 08:00-17:00 (messages 07:00-22:00); ${UNCONFIRMED}`,
  ),
  fallback('JP', 'Act on Specified Commercial Transactions', 'art. 17 (no renewed solicitation after refusal)'),
  law('KR', 'daily 08:00-21:00', false, {
    law: 'Act on Promotion of Information and Communications Network Utilization and Information Protection',
    section: 'art. 50(3) (21:00-08:00 needs separate consent)',
  }),
  fallback('CN', 'Personal Information Protection Law (2021)', 'art. 24; MIIT rules on commercial calls'),
  fallback('HK', 'Unsolicited Electronic Messages Ordinance (Cap. 593)', 'person-to-person calls outside its scope'),
  fallback('TW', 'Personal Data Protection Act', 'art. 20'),
  // Oceania
  law(
    'AU',
    'Mon-Fri 09:00-20:00; Sat 09:00-17:00',
    true,
    {
      law: 'Telecommunications (Telemarketing and Research Calls) Industry Standard 2017',
      section: 's. 11 (calling hours)',
      url: 'https://www.legislation.gov.au/F2017L00422/latest/text',
    },
    'never on Sundays or national public holidays',
  ),
  fallback('NZ', 'Fair Trading Act 1986', 'ss. 36K-36M (uninvited direct sales)'),
  // Africa
  law(
    'ZA',
    'Mon-Fri 08:00-20:00; Sat 09:00-13:00',
    true,
    { law: 'Consumer Protection Act 68 of 2008, Regulations (GN R293 of 2011)', section: 'reg. 4(3)' },
    'never on Sundays or public holidays',
  ),
  fallback(
    'NG',
    'Nigerian Communications Commission Consumer Code of Practice Regulations 2007',
    'reg. 18 (Do-Not-Disturb)',
  ),
  fallback('KE', 'Kenya Information and Communications (Consumer Protection) Regulations 2010', 'reg. 15'),
  fallback('EG', 'Telecommunication Regulation Law No. 10 of 2003', 'art. 2'),
  fallback('MA', 'Loi n° 31-08 édictant des mesures de protection du consommateur', 'art. 15'),
];

export const COUNTRY_RULES: Readonly<Record<string, HoursRule>> = Object.fromEntries(RULES.map((r) => [r.scope, r]));
