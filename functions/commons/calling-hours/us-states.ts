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
function none(scope: string, act: string, more?: string): HoursRule {
  const note = 'no state calling-hours law found; the federal rule applies';
  return {
    scope: `US-${scope}`,
    hours: null,
    noHolidays: false,
    basis: 'none',
    source: { law: act, section: 'no calling-hours provision' },
    note: more ? `${note}; ${more}` : note,
  };
}
/** A state law whose hours are the federal ones: it adds nothing to them, but it is the state's rule and says so. */
const federalHours = (scope: string, source: RuleSource, note?: string) =>
  law(scope, 'daily 08:00-21:00', false, source, note);
/** Callsheet's hours only: rules on consent, live introductions or permits are the operator's to keep. */
const NOT_CONSENT = 'callsheet keeps the hours only, not this consent rule';
const UNCONFIRMED = 'section as summarized by compliance references, not yet checked against the statute text';

const STATES: HoursRule[] = [
  law(
    'AL',
    'Mon-Sat 08:00-20:00',
    true,
    {
      law: 'Alabama Public Service Commission telephone rules, Ala. Admin. Code',
      section:
        'r. 770-X-5-.17(1)(b) (automated solicitation calls: none on Sundays or holidays, none before 08:00 or after 20:00)',
    },
    "the rule does not define holidays: Alabama's legal holidays (Ala. Code § 1-3-8) are closed, on their own dates and on the weekday a weekend one moves to, with Mardi Gras, a holiday in Mobile and Baldwin counties, closed statewide as a number does not prove its county (the stricter reading)",
  ),
  none(
    'AK',
    'Alaska Stat. § 45.50.475 (telephone solicitations)',
    `§ 45.50.475(a)(4) makes a solicitation by an automated or recorded message an unfair trade practice; ${NOT_CONSENT}`,
  ),
  law('AZ', 'daily 08:00-21:00', false, { law: 'Arizona Revised Statutes', section: '§ 44-1278(B)' }),
  none(
    'AR',
    'Ark. Code §§ 4-99-401 to 4-99-408 (Arkansas Do-Not-Call)',
    `Ark. Code § 5-63-204 makes sales calls that combine automated dialing with recorded messages a crime, save narrow exceptions; ${NOT_CONSENT}`,
  ),
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
    {
      law: 'Connecticut General Statutes, as amended by Public Act 23-98',
      section: '§ 42-288a(c) (telemarketing only 09:00-20:00 local time)',
    },
    `the act also wants prior express written consent for sales calls; ${NOT_CONSENT}`,
  ),
  none('DE', 'Del. Code tit. 6, §§ 2501A-2507A (telemarketing)'),
  federalHours(
    'DC',
    {
      law: 'D.C. Code (telephone solicitation fraud)',
      section: '§ 22-3226.08(3) (no calls to a residence before 08:00 or after 21:00)',
    },
    `D.C. Code § 34-1701 bans automated dialing with a prerecorded or synthesized voice message for sales; ${NOT_CONSENT}`,
  ),
  law(
    'FL',
    'daily 08:00-20:00',
    false,
    {
      law: 'Florida Telemarketing Act, Fla. Stat.',
      section:
        '§ 501.616(6)(a) (no commercial solicitation call, automated or recorded ones included, before 08:00 or after 20:00)',
    },
    'at most three calls on the same subject to a person in 24 hours (§ 501.616(6)(b)), which callsheet does not count',
  ),
  none(
    'GA',
    'O.C.G.A. § 46-5-27 (telephone solicitation)',
    `O.C.G.A. § 46-5-23 holds automatic dialing-announcing devices to 08:00-21:00, as compliance references give it, and the Public Service Commission's Rule 515-12-1-.32 requires a permit to use one; ${NOT_CONSENT}`,
  ),
  federalHours(
    'HI',
    {
      law: 'Haw. Rev. Stat. ch. 481P (telemarketing fraud prevention)',
      section: '§ 481P-3(8) (08:00-21:00 at a residence)',
    },
    'the subsection as compliance references give it',
  ),
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
    'daily 09:00-20:00',
    false,
    {
      law: 'Regulation of Automatic Dialing Machines, Ind. Code ch. 24-5-14',
      section: '§ 24-5-14-8 (autodialed calls 09:00-20:00, as compliance tables cite it)',
    },
    '§ 24-5-14-5 sets consent rules and no hours; summaries differ on the end (20:00 in two compliance tables, 21:00 in others) and § 24-5-14-8 was not read: the stricter 20:00 is taken',
  ),
  none('IA', 'Iowa Code § 714D (telephone solicitation)'),
  none('KS', 'Kan. Stat. § 50-670 (telemarketing; no hours confirmed)'),
  law(
    'KY',
    'daily 10:00-21:00',
    false,
    { law: 'Kentucky Revised Statutes', section: '§ 367.46955(16) (calls to a residence only 10:00-21:00)' },
    `the text read stops before subsection (16): ${UNCONFIRMED}`,
  ),
  law(
    'LA',
    'Mon-Fri 08:00-20:00',
    true,
    {
      law: 'Louisiana Public Service Commission Do Not Call Program, General Order R-29617 (under La. R.S. 45:844.11 ff.)',
      section: '§ V(A) (none before 08:00 or after 20:00, none on Sundays or legal holidays)',
    },
    "no calls on legal holidays: the order's text was not read, only compliance references quoting it, so the legal holidays of La. R.S. 1:55 are closed, which add 8 January, 30 August and 1 November to the calendar's, and make every Saturday a holiday in Orleans parish, Baton Rouge and other parishes: as a number does not prove its parish, Saturdays are closed statewide (the stricter reading); La. R.S. 45:844.31 bans all telephone solicitation during a declared state of emergency, which callsheet cannot know: pause campaigns to Louisiana numbers then",
  ),
  law(
    'ME',
    'Mon-Fri 09:00-17:00',
    false,
    {
      law: 'Me. Rev. Stat. tit. 10',
      section: '§ 1498(3) (solicitation calls by an automated telephone calling device only on weekdays, 09:00-17:00)',
    },
    'an AI voice agent is taken to be an automated calling device (the stricter reading); the subsection was read as a 2003 bill reproduces it; at most one such call a number in 8 hours, which callsheet does not count',
  ),
  law(
    'MD',
    'daily 08:00-20:00',
    false,
    { law: 'Stop the Spam Calls Act of 2023, Md. Code, Com. Law', section: '§ 14-4502(c) (not 20:00-08:00)' },
    `the subsection as compliance references give it; automated or recorded-message solicitation needs prior express written consent (§ 14-4502(a)(3)); ${NOT_CONSENT}`,
  ),
  law(
    'MA',
    'daily 08:00-20:00',
    false,
    {
      law: 'Mass. Gen. Laws ch. 159C and 201 CMR 12.00',
      section: '§ 3; 201 CMR 12.02(2) (no unsolicited sales call 20:00-08:00)',
      url: 'https://regulations.justia.com/states/massachusetts/201-cmr/title-201-cmr-12-00/section-12-02',
    },
    `201 CMR 12.02(4) bans unsolicited sales calls by a recorded message device; ${NOT_CONSENT}`,
  ),
  law(
    'MI',
    'daily 09:00-21:00',
    false,
    {
      law: 'Michigan Penal Code, Mich. Comp. Laws',
      section: '§ 750.540e(1)(f) (unsolicited commercial calls received 21:00-09:00)',
    },
    `§ 445.111b, cited before, sets no hours; a Telephone Solicitation Act (SB 351 of 2025) passed the Senate and was not found enacted; ${UNCONFIRMED}`,
  ),
  law(
    'MN',
    'daily 09:00-21:00',
    false,
    {
      law: 'Minnesota Statutes',
      section: '§ 325E.30 (time of day limit: no solicitation before 09:00 or after 21:00)',
    },
    `the section as compliance references give it; § 325E.27 wants consent before an automatic dialing-announcing device is used; ${NOT_CONSENT}`,
  ),
  law(
    'MS',
    'Mon-Sat 09:00-20:00',
    true,
    {
      law: 'Mississippi Code',
      section: '§ 77-3-723(1) (only 08:00-20:00 Central Standard Time, never on a Sunday)',
    },
    'the text keeps the hours in Central Standard Time, and in summer 08:00 standard time is 09:00 on the clock: calls start at 09:00 all year (the stricter reading); the text names no holidays: they are closed as one summary lists them (the stricter reading)',
  ),
  federalHours('MO', {
    law: 'Mo. Rev. Stat.',
    section: '§ 407.1076(5) (telemarketing to a residence only 08:00-21:00)',
  }),
  federalHours(
    'MT',
    {
      law: 'Mont. Code (telemarketing)',
      section: '§ 30-14-1412(1)(d) (telemarketing to a residence only 08:00-21:00)',
    },
    `Mont. Code § 45-8-216 bars automated sales calls that play recorded messages unless a live operator first gets permission; ${NOT_CONSENT}`,
  ),
  law(
    'NE',
    'Mon-Sat 08:00-21:00; Sun 13:00-21:00',
    true,
    {
      law: 'Neb. Rev. Stat. and Nebraska Public Service Commission rules, Neb. Admin. Code tit. 291, ch. 11',
      section: '§ 86-248(1)(a) (ADAD solicitation not before 08:00 or after 21:00); ch. 11 § 3',
      url: 'https://nebraskalegislature.gov/laws/statutes.php?statute=86-248&print=true',
    },
    'the Commission rules, which compliance summaries read as recorded-message calls only 13:00-21:00 on Sundays and legal holidays, were not read: that Sunday and closed holidays are kept (the stricter reading); § 86-250 wants a Commission permit for ADAD solicitation, which callsheet does not check',
  ),
  law(
    'NV',
    'daily 09:00-20:00',
    false,
    {
      law: 'Nevada Revised Statutes',
      section: '§ 597.814(2)(a) (automatic dialing-announcing calls received 21:00-09:00 forbidden)',
    },
    'the 20:00 end, from an earlier reading of § 228.590 whose text was not found, is kept as a margin; § 597.814(1) wants a live introduction before a recorded message',
  ),
  none('NH', 'N.H. Rev. Stat. § 359-E (telephone sales)'),
  federalHours('NJ', {
    law: 'N.J. Stat. (no telemarketing call list)',
    section: '§ 56:8-128(d) (no unsolicited telemarketing sales call 21:00-08:00)',
  }),
  law(
    'NM',
    'daily 09:00-21:00',
    false,
    {
      law: 'New Mexico Statutes',
      section: '§ 57-12-22(B)(5) (no solicitation received before 09:00 or after 21:00)',
      url: 'https://law.justia.com/codes/new-mexico/2006/nmrc/jd_57-12-22-13117.html',
    },
    `§ 57-12-22(A) allows prerecorded solicitation only with an established business relationship and consent; ${NOT_CONSENT}`,
  ),
  law('NY', 'daily 08:00-21:00', false, {
    law: 'New York General Business Law',
    section: "§ 399-z(2) (telemarketing only 08:00-21:00 at the customer's location)",
  }),
  law(
    'NC',
    'daily 08:00-21:00',
    false,
    {
      law: 'North Carolina General Statutes',
      section: '§ 75-102(f) (no telephone solicitation before 08:00 or after 21:00)',
    },
    `§ 75-104, cited before, restricts automatic dialing and recorded messages; ${UNCONFIRMED}`,
  ),
  federalHours(
    'ND',
    {
      law: 'N.D. Cent. Code ch. 51-28 (telephone solicitations)',
      section: '§ 51-28-05 (time of day limit: 08:00-21:00)',
    },
    `§ 51-28-02 wants consent or a live operator first for a prerecorded or synthesized voice message; ${NOT_CONSENT}`,
  ),
  none('OH', 'Ohio Rev. Code §§ 4719.01-4719.99 (telephone solicitors)'),
  law(
    'OK',
    'daily 09:00-20:00',
    false,
    {
      law: 'Okla. Stat. tit. 15 (Oklahoma Telephone Solicitation Act of 2022; automatic dial announcing devices)',
      section: '§ 775C.4 (08:00-20:00); § 755.1(C)(2)(a) (no device call before 09:00 or after 21:00)',
      url: 'https://self-law.org/code/ok/title-15-contracts/15-755-1',
    },
    "the device rule covers prerecorded or synthesized voice messages, so an AI voice agent: its 09:00 start with the Act's 20:00 end; at most three calls a person in 24 hours, which callsheet does not count",
  ),
  law(
    'OR',
    'daily 08:00-20:00',
    false,
    {
      law: 'Oregon Laws 2025, House Bill 3865 (signed 24 July 2025, amending Or. Rev. Stat. §§ 646.561-646.578)',
      section: '§ 646.563(1)(b) as amended (no solicitation outside 08:00-20:00), in force 2026-01-01',
    },
    `narrowed from 08:00-21:00; at most three solicitations a person in 24 hours, which callsheet does not count; the enrolled text was not read, only reports of it; ${UNCONFIRMED}`,
  ),
  law(
    'PA',
    'Mon-Fri 09:00-19:00; Sat 09:00-12:00',
    true,
    {
      law: 'Telemarketer Registration Act, 73 P.S., as amended by Act 73 of 2019 and Senate Bill 992 of 2025-26',
      section:
        '§ 2245(a)(1) (hours: none before 08:00 or after 21:00), § 2245(a)(10) (legal holidays); SB 992 (no calls on Sundays or 19:00-09:00)',
    },
    "SB 992 is reported enacted as Act 47 of 2026 (approved 20 July 2026, in force 90 days later, about 18 October 2026), but its enrolled text was not found: its Mon-Sat 09:00-19:00 is taken over the Act's 08:00-21:00 (the stricter reading); no calls on the legal holidays of 44 P.S. § 11, which add Good Friday, Flag Day and Election Day to the calendar's public holidays, and make every Saturday from noon a half holiday: Saturdays end at 12:00 (the stricter reading, as § 2245(a)(10)'s own words were not read)",
  ),
  law(
    'RI',
    'Mon-Fri 09:00-18:00; Sat 10:00-17:00',
    true,
    {
      law: 'Rhode Island General Laws',
      section:
        '§ 5-61-3.6(a), within the hours of operation of § 5-61-2(2) (never on a state or federal holiday); state holidays as R.I. Gen. Laws § 25-1-1 names them (4 May, election day in even years, the Monday after a Sunday holiday)',
      url: 'http://webserver.rilin.state.ri.us/Statutes/TITLE5/5-61/5-61-3.6.HTM',
    },
    `§ 5-61-3.4 wants consent or a live operator first for a prerecorded or synthesized voice message; ${NOT_CONSENT}`,
  ),
  law(
    'SC',
    'Mon-Sat 08:00-19:00',
    false,
    {
      law: 'South Carolina Telephone Privacy Protection Act, S.C. Code',
      section:
        '§ 37-21-30 (no call before 08:00 or after 21:00); § 16-17-446(C)(3) (recorded-message calls not after 19:00)',
    },
    "§ 37-21-30 is the rule in force; § 16-17-446 is still printed in the code, though held unconstitutional and its enforcement enjoined (Cahaly v. LaRosa, aff'd 796 F.3d 399 (4th Cir. 2015)): its 19:00 end is kept as a margin (the stricter reading); Sundays are closed as a margin: no text read bans them",
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
  federalHours('TN', {
    law: 'Tenn. Code (ADAD equipment) and Tennessee Public Utility Commission rules',
    section: '§ 47-18-1502(a)(2); Tenn. Comp. R. & Regs. 1220-04-11-.02(1) (08:00-21:00)',
  }),
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
    "no solicitation without prior express consent between 21:00 and 08:00, on a Sunday or on a legal holiday: Utah's legal holidays (Utah Code § 63G-1-301) are closed as that section places them (Juneteenth on a Monday, weekend holidays on the Friday or Monday) as well as on their own dates, with Good Friday, which a 2026 amendment is reported to add (the stricter reading)",
  ),
  none('VT', 'Vt. Stat. tit. 9, § 2464a (telephone solicitation)'),
  federalHours('VA', {
    law: 'Virginia Telephone Privacy Protection Act, Va. Code',
    section: '§ 59.1-511 (telephone solicitation only 08:00-21:00)',
    url: 'http://law.lis.virginia.gov/vacodepopularnames/virginia-telephone-privacy-protection-act/',
  }),
  law(
    'WA',
    'daily 08:00-20:00',
    false,
    {
      law: 'Revised Code of Washington',
      section: '§ 19.158.040(2) (no call received before 08:00 or after 20:00)',
      url: 'https://app.leg.wa.gov/RCW/default.aspx?cite=19.158.040',
    },
    `§ 80.36.400(2) bans commercial solicitation by an automatic dialing and announcing device; ${NOT_CONSENT}`,
  ),
  federalHours('WV', {
    law: 'W. Va. Code (telemarketing)',
    section: '§ 46A-6F-601(a)(4) (only 08:00-21:00, Monday through Sunday)',
  }),
  federalHours(
    'WI',
    {
      law: 'Wis. Admin. Code ATCP 127 (direct marketing)',
      section: 'ATCP 127.16(3) (no calls before 08:00 or after 21:00)',
      url: 'https://datcp.wi.gov/Pages/Programs_Services/WIDoNotCallLaw.aspx',
    },
    'the hours as the regulator summarizes them; the subsection as compliance references give it',
  ),
  law(
    'WY',
    'daily 08:00-20:00',
    false,
    { law: 'Wyo. Stat. (telephone solicitation)', section: '§ 40-12-302(d) (no call before 08:00 or after 20:00)' },
    `hours as two compliance references give them, not checked against the statute text: the stricter 20:00 is taken; § 40-12-303 bars automated or recorded-message sales calls save its exceptions; ${NOT_CONSENT}`,
  ),
];

export const US_STATE_RULES: Readonly<Record<string, HoursRule>> = Object.fromEntries(STATES.map((r) => [r.scope, r]));
