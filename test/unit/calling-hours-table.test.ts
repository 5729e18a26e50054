import { getExampleNumber } from 'libphonenumber-js/max';
import examples from 'libphonenumber-js/mobile/examples';
import { describe, expect, it } from 'vitest';
import { holidayName, knowsHolidaysOf, publicHolidays } from '#commons/calling-hours/holidays.ts';
import { DEFAULT_LEGAL_HOURS } from '#commons/legal-hours.ts';
import { hoursFor } from '#local/cli/hours-for.ts';

/**
 * One case per rule in the table, written from the rule's source (not computed from the table's own text): the hours
 * a call may start on a weekday, a Saturday and a Sunday, in the number's (first) zone, and nothing on a public holiday
 * where the rule bans them. Numbers of countries with several zones are landlines of one zone.
 */
const WEEKDAY = '2026-07-15'; // a Wednesday: Colombia keeps many holidays on Mondays, France July 14
const SAT = '2026-07-18';
const SUN = '2026-07-19';

type Case = [scope: string, phone: string | null, weekday: string[], sat: string[], sun: string[]];

const FEDERAL = ['08:00-21:00'];
const DEFAULT: [string[], string[], string[]] = [['09:00-20:00'], ['10:00-17:00'], []];
// Where Friday is the day of rest, Sunday is a working day.
const FRIDAY_REST: [string[], string[], string[]] = [['09:00-20:00'], ['10:00-17:00'], ['09:00-20:00']];
const every = (h: string[]): [string[], string[], string[]] => [h, h, h];

const COUNTRIES: Case[] = [
  ['US', '+12125550143', ...every(FEDERAL)],
  ['CA', '+14165550143', ['09:00-21:30'], ['10:00-18:00'], ['10:00-18:00']],
  ['MX', '+525512345678', ...DEFAULT],
  ['BR', '+551123456789', ['08:00-18:00'], [], []],
  ['AR', null, ...DEFAULT],
  ['CO', null, ['07:00-19:00'], ['08:00-15:00'], []],
  ['CL', '+56221234567', ...DEFAULT],
  // Ley 29571 art. 62(b): no collection calls on Saturdays, applied to every call.
  ['PE', null, ['09:00-20:00'], [], []],
  ['GB', null, ...DEFAULT],
  ['IE', null, ...DEFAULT],
  ['DE', null, ...DEFAULT],
  ['FR', null, ['10:00-13:00', '14:00-20:00'], [], []],
  ['ES', '+34912345678', ['09:00-21:00'], [], []],
  ['IT', null, ...DEFAULT],
  // Saturday ends at the industry code's 16:00.
  ['NL', null, ['09:00-20:00'], ['10:00-16:00'], []],
  ['BE', null, ...DEFAULT],
  ['PT', '+351212345678', ['09:00-20:00'], [], []],
  ['PL', null, ...DEFAULT],
  ['SE', null, ...DEFAULT],
  ['DK', null, ...DEFAULT],
  ['NO', null, ['09:00-21:00'], [], []],
  ['FI', null, ...DEFAULT],
  ['AT', null, ...DEFAULT],
  ['CH', null, ...DEFAULT],
  ['GR', null, ...DEFAULT],
  ['CZ', null, ...DEFAULT],
  // Saturday ends at the collection code's 14:00.
  ['RO', null, ['09:00-20:00'], ['10:00-14:00'], []],
  ['AE', null, ...every(['09:00-18:00'])],
  ['SA', null, ...FRIDAY_REST],
  ['QA', null, ...FRIDAY_REST],
  ['KW', null, ...FRIDAY_REST],
  ['IN', null, ...every(['09:00-21:00'])],
  ['PK', null, ...DEFAULT],
  ['BD', null, ...FRIDAY_REST],
  ['SG', null, ...DEFAULT],
  ['MY', null, ['09:00-20:00'], ['10:00-17:00'], []],
  ['PH', null, ...DEFAULT],
  ['ID', '+62215551234', ['08:00-18:00'], ['08:00-18:00'], []],
  ['TH', null, ...DEFAULT],
  ['VN', null, ...every(['08:00-17:00'])],
  ['JP', null, ...DEFAULT],
  ['KR', null, ...every(['08:00-21:00'])],
  ['CN', null, ...DEFAULT],
  ['HK', null, ...DEFAULT],
  ['TW', null, ...DEFAULT],
  ['AU', '+61293744000', ['09:00-20:00'], ['09:00-17:00'], []],
  ['NZ', '+6493456789', ...DEFAULT],
  ['ZA', null, ['08:00-20:00'], ['09:00-13:00'], []],
  ['NG', null, ...DEFAULT],
  ['KE', null, ...DEFAULT],
  ['EG', null, ...FRIDAY_REST],
  ['MA', null, ...DEFAULT],
];

/** A number of each state, from an area code wholly in it; split codes give the hours in their first zone. */
const STATES: Case[] = [
  ['US-AL', '+12052345678', ['08:00-20:00'], ['08:00-20:00'], []],
  // 907 rings in Adak too (the first zone): 08:00 Anchorage is 07:00 there, 21:00 Anchorage 20:00.
  ['US-AK', '+19072345678', ...every(['08:00-20:00'])],
  ['US-AZ', '+16022345678', ...every(FEDERAL)],
  ['US-AR', '+15012345678', ...every(FEDERAL)],
  ['US-CA', '+12132345678', ...every(['09:00-21:00'])],
  ['US-CO', '+13032345678', ...every(FEDERAL)],
  ['US-CT', '+12032345678', ...every(['09:00-20:00'])],
  ['US-DE', '+13022345678', ...every(FEDERAL)],
  ['US-DC', '+12022345678', ...every(FEDERAL)],
  ['US-FL', '+13052345678', ...every(['08:00-20:00'])],
  ['US-GA', '+14042345678', ...every(FEDERAL)],
  ['US-HI', '+18082345678', ...every(FEDERAL)],
  // 208 rings in Los Angeles too: 08:00 there is 09:00 in Boise.
  ['US-ID', '+12082345678', ...every(['09:00-21:00'])],
  ['US-IL', '+13122345678', ...every(['09:00-21:00'])],
  ['US-IN', '+13172345678', ...every(['09:00-20:00'])],
  ['US-IA', '+15152345678', ...every(FEDERAL)],
  ['US-KS', '+13162345678', ...every(FEDERAL)],
  ['US-KY', '+15022345678', ...every(['10:00-21:00'])],
  // Saturdays are legal holidays in New Orleans and Baton Rouge (La. R.S. 1:55): closed statewide.
  ['US-LA', '+15042345678', ['08:00-20:00'], [], []],
  ['US-ME', '+12072345678', ['09:00-17:00'], [], []],
  ['US-MD', '+14102345678', ...every(['08:00-20:00'])],
  ['US-MA', '+16172345678', ...every(['08:00-20:00'])],
  ['US-MI', '+13132345678', ...every(['09:00-21:00'])],
  ['US-MN', '+16122345678', ...every(['09:00-21:00'])],
  // 08:00-20:00 Central Standard Time: 09:00 on the clock in summer, taken all year.
  ['US-MS', '+16012345678', ['09:00-20:00'], ['09:00-20:00'], []],
  ['US-MO', '+13142345678', ...every(FEDERAL)],
  ['US-MT', '+14062345678', ...every(FEDERAL)],
  ['US-NE', '+14022345678', ['08:00-21:00'], ['08:00-21:00'], ['13:00-21:00']],
  ['US-NV', '+17022345678', ...every(['09:00-20:00'])],
  ['US-NH', '+16032345678', ...every(FEDERAL)],
  ['US-NJ', '+19732345678', ...every(FEDERAL)],
  ['US-NM', '+15052345678', ...every(['09:00-21:00'])],
  ['US-NY', '+12122345678', ...every(FEDERAL)],
  ['US-NC', '+19192345678', ...every(FEDERAL)],
  // 701 rings in Denver too: 08:00 there is 09:00 in Chicago.
  ['US-ND', '+17012345678', ...every(['09:00-21:00'])],
  ['US-OH', '+16142345678', ...every(FEDERAL)],
  ['US-OK', '+14052345678', ...every(['09:00-20:00'])],
  ['US-OR', '+15032345678', ...every(['08:00-20:00'])],
  // Saturday from noon is a legal half holiday (44 P.S. § 11).
  ['US-PA', '+12152345678', ['09:00-19:00'], ['09:00-12:00'], []],
  ['US-RI', '+14012345678', ['09:00-18:00'], ['10:00-17:00'], []],
  ['US-SC', '+18032345678', ['08:00-19:00'], ['08:00-19:00'], []],
  // 605 rings in Mountain time too: 09:00 there is 10:00 Central.
  ['US-SD', '+16052345678', ['10:00-21:00'], [], []],
  ['US-TN', '+16152345678', ...every(FEDERAL)],
  ['US-TX', '+12142345678', ['09:00-21:00'], ['09:00-21:00'], ['12:00-21:00']],
  ['US-UT', '+18012345678', ['08:00-21:00'], ['08:00-21:00'], []],
  ['US-VT', '+18022345678', ...every(FEDERAL)],
  ['US-VA', '+18042345678', ...every(FEDERAL)],
  ['US-WA', '+12062345678', ...every(['08:00-20:00'])],
  ['US-WV', '+13042345678', ...every(FEDERAL)],
  ['US-WI', '+14142345678', ...every(FEDERAL)],
  ['US-WY', '+13072345678', ...every(['08:00-20:00'])],
];

const numberOf = (scope: string, phone: string | null): string =>
  phone ?? (getExampleNumber(scope as never, examples)?.number as string);

function local(phone: string, on: string): string[] {
  const a = hoursFor(phone, { on });
  if ('error' in a) throw new Error(`${phone} on ${on}: ${a.error}`);
  return a.allowed.map((w) => `${w.from.slice(11, 16)}-${w.to.slice(11, 16)}`);
}

/**
 * The first public holiday of 2026 on a Monday to Thursday, where the scope's rule bans holidays: a day every rule's
 * week keeps open (Friday is the day of rest in some), so only the holiday can close it.
 */
const weekdayHoliday = (scope: string): string | undefined =>
  publicHolidays(scope, '2026-01-01', '2026-12-31').find((d) =>
    [1, 2, 3, 4].includes(new Date(`${d}T12:00:00Z`).getUTCDay()),
  );

describe.each([
  ['countries', COUNTRIES],
  ['US states and DC', STATES],
])('every rule of the %s table at its edges', (_what, cases) => {
  it.each(cases)('%s', (scope, phone, weekday, sat, sun) => {
    const number = numberOf(scope.startsWith('US-') ? 'US' : scope, phone);
    const a = hoursFor(number, { on: WEEKDAY });
    // The number is of that country or state, so this rule is one that shaped its hours.
    expect('error' in a ? a.error : a.rules.map((r) => r.scope)).toContain(scope);
    for (const day of [WEEKDAY, SAT, SUN]) {
      const closed = knowsHolidaysOf(scope) ? holidayName(scope, day) : null;
      expect(closed, `${day} is a holiday in ${scope}: pick other dates`).toBeNull();
    }
    expect([local(number, WEEKDAY), local(number, SAT), local(number, SUN)]).toEqual([weekday, sat, sun]);
    const rule = DEFAULT_LEGAL_HOURS[scope];
    if (rule?.noHolidays) {
      const holiday = weekdayHoliday(scope) as string;
      expect(holiday, `a 2026 Monday-Thursday holiday of ${scope}`).toBeDefined();
      expect(local(number, holiday)).toEqual([]);
    }
  });

  it('has a case for every entry of the table', () => {
    const prefix = cases === STATES ? 'US-' : null;
    const scopes = Object.keys(DEFAULT_LEGAL_HOURS).filter((s) => (prefix ? s.startsWith(prefix) : !s.includes('-')));
    expect(cases.map((c) => c[0]).sort()).toEqual(scopes.sort());
  });
});

describe('state and provincial legal holidays beyond the public calendar', () => {
  // Legal holidays the states' own holiday laws name, which date-holidays lacks or does not move.
  it.each([
    ['US-UT', '+18015550123', '2026-06-15', /Juneteenth/], // § 63G-1-301: the Monday before a Friday 19 June
    ['US-UT', '+18015550123', '2027-07-23', /Pioneer Day/], // a Saturday 24 July moves to the Friday
    ['US-RI', '+14015550123', '2027-05-04', /Independence Day/], // § 25-1-1
    ['US-RI', '+14015550123', '2028-11-07', /Election Day/],
    ['US-LA', '+15045550123', '2027-01-08', /Battle of New Orleans/], // La. R.S. 1:55
    ['US-AL', '+12055550123', '2028-11-10', /Veterans Day/], // § 1-3-8: a Saturday holiday on the Friday
    ['ES', '+34912345678', '2026-04-02', /Jueves Santo/], // a regional holiday: any region's closes Spain
    ['BR', '+551123456789', '2026-04-23', /São Jorge/], // Rio de Janeiro's, under the Rio law applied to Brazil
    ['AU', '+61212345678', '2026-04-27', /Anzac Day/], // a Saturday Anzac Day's Monday in some states
  ])('closes %s numbers on %s (%s)', (scope, phone, day, name) => {
    expect(holidayName(scope, day)).toMatch(name);
    expect(local(phone, day)).toEqual([]);
  });

  // British Columbia's statutory holidays include 30 September since 2023; date-holidays lacks it.
  it('closes British Columbia on 30 September and not the day before', () => {
    expect(holidayName('CA-BC', '2026-09-30')).toBe('National Day for Truth and Reconciliation');
    expect(local('+16045550143', '2026-09-30')).toEqual([]);
    expect(local('+16045550143', '2026-09-29')).toEqual(['09:00-21:30']);
  });

  // 44 P.S. § 11 names Good Friday and Election Day; date-holidays lists neither as public in Pennsylvania.
  it.each([
    ['2026-04-03', 'Good Friday'],
    ['2026-11-03', 'Election Day'],
  ])('closes Pennsylvania on %s (%s) and not the day before', (day, name) => {
    expect(holidayName('US-PA', day)).toBe(name);
    expect(local('+12152345678', day)).toEqual([]);
    const before = new Date(Date.parse(`${day}T12:00:00Z`) - 86_400_000).toISOString().slice(0, 10);
    expect(local('+12152345678', before)).toEqual(['09:00-19:00']);
  });
});
