import type { HoursRule, RuleSource } from './types.ts';

/**
 * State calling-hours rules for telephone solicitations, on top of the federal rule (47 CFR § 64.1200(c)(1),
 * 08:00-21:00, in the countries table). A state with no calling-hours law of its own says so (basis `none`) and
 * names the act that was read. Where a state's rule covers only autodialed, prerecorded or artificial-voice calls,
 * it applies: callsheet's calls are placed by an AI voice agent, an artificial voice. Where sources disagree, the
 * stricter reading is taken and the note says so. Not legal advice.
 */
function law(scope: string, hours: string, noHolidays: boolean, source: RuleSource, note?: string): HoursRule {
  return { scope: `US-${scope}`, hours, noHolidays, basis: 'law', source, ...(note ? { note } : {}) };
}
function none(scope: string, act: string): HoursRule {
  return {
    scope: `US-${scope}`,
    hours: null,
    noHolidays: false,
    basis: 'none',
    source: { law: act, section: 'no calling-hours provision' },
    note: 'no state calling-hours law found; the federal rule applies',
  };
}
const UNCONFIRMED = 'section as summarized by compliance references, not yet checked against the statute text';

const STATES: HoursRule[] = [
  law(
    'AL',
    'Mon-Sat 08:00-20:00',
    true,
    { law: 'Alabama Public Service Commission telephone solicitation rules, Ala. Admin. Code', section: 'ch. 770-X-6' },
    `no calls on Sundays or state holidays (Ala. Code § 1-3-8 moves a weekend holiday); ${UNCONFIRMED}`,
  ),
  none('AK', 'Alaska Stat. § 45.50.475 (telephone solicitations)'),
  law('AZ', 'daily 08:00-21:00', false, { law: 'Arizona Revised Statutes', section: '§ 44-1278(B)' }),
  none('AR', 'Ark. Code §§ 4-99-401 to 4-99-408 (Arkansas Do-Not-Call)'),
  law(
    'CA',
    'daily 09:00-21:00',
    false,
    {
      law: 'California Public Utilities Code (automatic dialing-announcing devices)',
      section: '§ 2872(c)',
      url: 'https://leginfo.legislature.ca.gov/faces/codes_displaySection.xhtml?lawCode=PUC&sectionNum=2872',
    },
    'no call by an automatic dialing-announcing device received in California between 21:00 and 09:00; an AI voice agent that dials stored numbers and speaks an artificial voice is taken to be one (the stricter reading)',
  ),
  none('CO', 'Colo. Rev. Stat. §§ 6-1-901 to 6-1-908 (Colorado No-Call List Act)'),
  law(
    'CT',
    'daily 09:00-20:00',
    false,
    { law: 'Connecticut General Statutes, as amended by Public Act 23-98', section: '§ 42-288a(c)' },
    'one summary gives 09:00-21:00; the stricter 20:00 is taken',
  ),
  none('DE', 'Del. Code tit. 6, §§ 2501A-2507A (telemarketing)'),
  none('DC', 'D.C. Code §§ 22-3226.01 to 22-3226.15 (telephone solicitation fraud)'),
  law('FL', 'daily 08:00-20:00', false, {
    law: 'Florida Telephone Solicitation Act, Fla. Stat.',
    section: '§ 501.059(8)(a)',
    url: 'http://www.leg.state.fl.us/statutes/index.cfm?App_mode=Display_Statute&URL=0500-0599/0501/Sections/0501.059.html',
  }),
  none('GA', 'O.C.G.A. § 46-5-27 (telephone solicitation)'),
  none('HI', 'Haw. Rev. Stat. ch. 481P (telemarketing fraud prevention)'),
  none('ID', 'Idaho Code §§ 48-1001 to 48-1010 (Telephone Solicitation Act)'),
  law(
    'IL',
    'daily 09:00-21:00',
    false,
    { law: 'Automatic Telephone Dialers Act, 815 ILCS 305', section: '§ 15 (calling hours)' },
    `applies to autodialed and recorded-message calls, so to an AI voice agent; live calls follow the federal 08:00-21:00; ${UNCONFIRMED}`,
  ),
  law(
    'IN',
    'daily 09:00-21:00',
    false,
    { law: 'Regulation of Automatic Dialing Machines, Ind. Code', section: 'ch. 24-5-14 (calling hours)' },
    'the chapter as read (§ 24-5-14-5) sets consent rules and no hours; the 09:00-21:00 that compliance summaries give is kept as the stricter reading until the official text is checked',
  ),
  none('IA', 'Iowa Code § 714D (telephone solicitation)'),
  none('KS', 'Kan. Stat. § 50-670 (telemarketing; no hours confirmed)'),
  law('KY', 'daily 10:00-21:00', false, { law: 'Kentucky Revised Statutes', section: '§ 367.46955' }, UNCONFIRMED),
  law(
    'LA',
    'Mon-Sat 08:00-20:00',
    true,
    { law: 'Louisiana Telephone Solicitation Relief Act, La. R.S. 45:844.11 et seq.', section: '§ 45:844.17' },
    `no calls on Sundays or the legal holidays the Public Service Commission names (the calendar's public holidays are closed: the stricter reading); ${UNCONFIRMED}`,
  ),
  none('ME', 'Me. Rev. Stat. tit. 10, § 1499-B (telephone solicitation)'),
  law('MD', 'daily 08:00-20:00', false, {
    law: 'Stop the Spam Calls Act of 2023, Md. Code, Com. Law',
    section: '§ 14-4503',
  }),
  law('MA', 'daily 08:00-20:00', false, { law: 'Mass. Gen. Laws ch. 159C', section: '§ 3' }),
  law(
    'MI',
    'daily 09:00-21:00',
    false,
    { law: 'Home Solicitation Sales Act, Mich. Comp. Laws', section: '§ 445.111b' },
    UNCONFIRMED,
  ),
  law('MN', 'daily 09:00-21:00', false, { law: 'Minnesota Statutes', section: '§ 325E.27' }),
  law(
    'MS',
    'Mon-Sat 08:00-20:00',
    true,
    { law: 'Mississippi Code', section: '§ 77-3-725(1)' },
    'no calls on Sundays; holidays are closed too, as one summary lists them (the stricter reading)',
  ),
  none('MO', 'Mo. Rev. Stat. §§ 407.1095-407.1110 (no-call list)'),
  none('MT', 'Mont. Code §§ 30-14-1401 to 30-14-1414 (telemarketing)'),
  law(
    'NE',
    'Mon-Sat 08:00-21:00; Sun 13:00-21:00',
    true,
    { law: 'Nebraska Public Service Commission rules, Neb. Admin. Code tit. 291, ch. 11', section: '§ 3' },
    'recorded-message calls only 13:00-21:00 on Sundays and legal holidays; holidays are closed whole (the stricter reading)',
  ),
  law('NV', 'daily 09:00-20:00', false, { law: 'Nevada Revised Statutes', section: '§ 228.590' }, UNCONFIRMED),
  none('NH', 'N.H. Rev. Stat. § 359-E (telephone sales)'),
  none('NJ', 'N.J. Stat. §§ 56:8-119 to 56:8-135 (no telemarketing call list)'),
  law('NM', 'daily 09:00-21:00', false, { law: 'New Mexico Statutes', section: '§ 57-12-22' }, UNCONFIRMED),
  law('NY', 'daily 08:00-21:00', false, { law: 'New York General Business Law', section: '§ 399-z(5)' }),
  law('NC', 'daily 08:00-21:00', false, { law: 'North Carolina General Statutes', section: '§ 75-104' }, UNCONFIRMED),
  none('ND', 'N.D. Cent. Code ch. 51-28 (telephone solicitations)'),
  none('OH', 'Ohio Rev. Code §§ 4719.01-4719.99 (telephone solicitors)'),
  law('OK', 'daily 08:00-20:00', false, {
    law: 'Oklahoma Telephone Solicitation Act of 2022, Okla. Stat. tit. 15',
    section: '§ 775C.4',
  }),
  law(
    'OR',
    'daily 08:00-20:00',
    false,
    {
      law: 'Oregon Laws 2025, House Bill 3865 (amending Or. Rev. Stat. §§ 646.561-646.578)',
      section: 'calling hours, in force 2026-01-01',
    },
    `narrowed from 08:00-21:00; ${UNCONFIRMED}`,
  ),
  law(
    'PA',
    'daily 08:00-21:00',
    true,
    {
      law: 'Telemarketer Registration Act, 73 P.S.',
      section: '§ 2245(a) (hours), § 2245.2 (legal holidays, Act 2019-84)',
    },
    `no calls on the legal holidays of 44 P.S. § 11, which add Good Friday and Election Day to the calendar's public holidays; ${UNCONFIRMED}`,
  ),
  law('RI', 'Mon-Fri 09:00-18:00; Sat 10:00-17:00', true, {
    law: 'Rhode Island General Laws',
    section: '§ 5-61-3.5',
  }),
  law(
    'SC',
    'Mon-Sat 08:00-21:00',
    false,
    { law: 'South Carolina Telephone Privacy Protection Act, S.C. Code', section: '§ 37-21-70' },
    `no calls on Sundays, the stricter reading of summaries; ${UNCONFIRMED}`,
  ),
  law(
    'SD',
    'Mon-Fri 09:00-21:00',
    false,
    {
      law: 'South Dakota Codified Laws',
      section: '§ 37-30-28',
      url: 'https://sdlegislature.gov/Statutes/37-30-28',
    },
    'solicitations by automated telephone dialing system only on weekdays, 09:00-21:00 state time; an AI voice agent is taken to be one (the stricter reading)',
  ),
  none('TN', 'Tenn. Code §§ 65-4-401 to 65-4-408 (telephone solicitation)'),
  law('TX', 'Mon-Sat 09:00-21:00; Sun 12:00-21:00', false, {
    law: 'Texas Business and Commerce Code',
    section: '§ 301.051',
  }),
  law(
    'UT',
    'Mon-Sat 08:00-21:00',
    true,
    {
      law: 'Utah Telephone and Facsimile Solicitation Act, Utah Code',
      section: '§ 13-25a-103(3)',
      url: 'https://le.utah.gov/xcode/Title13/Chapter25A/13-25a-S103.html',
    },
    'no solicitation without prior express consent between 21:00 and 08:00, on a Sunday or on a legal holiday',
  ),
  none('VT', 'Vt. Stat. tit. 9, § 2464a (telephone solicitation)'),
  none('VA', 'Va. Code §§ 59.1-510 to 59.1-518 (Telephone Privacy Protection Act)'),
  law('WA', 'daily 08:00-20:00', false, { law: 'Revised Code of Washington', section: '§ 80.36.390(2)' }),
  none('WV', 'W. Va. Code § 46A-6F (telemarketing)'),
  none('WI', 'Wis. Admin. Code ATCP 127 (direct marketing)'),
  none('WY', 'Wyo. Stat. §§ 40-12-301 to 40-12-305 (telephone solicitation)'),
];

export const US_STATE_RULES: Readonly<Record<string, HoursRule>> = Object.fromEntries(STATES.map((r) => [r.scope, r]));
