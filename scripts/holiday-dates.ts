/**
 * Writes functions/commons/calling-hours/holiday-dates.ts: the public holidays, from the date-holidays calendar, of
 * every scope whose rule bans calls on them, for a span of years. The run-time code reads this table instead of
 * loading date-holidays (with moment-timezone and astronomia, about 0.2 s of start-up in every process).
 * `npm run build:holidays` rewrites it; test/unit/holiday-dates.test.ts fails when it is stale or ends too soon.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import Holidays from 'date-holidays';
import { DEFAULT_LEGAL_HOURS } from '#commons/legal-hours.ts';

export const HOLIDAY_DATES_PATH = fileURLToPath(
  new URL('../functions/commons/calling-hours/holiday-dates.ts', import.meta.url),
);
export const FIRST_YEAR = 2025;
export const LAST_YEAR = 2031;

const DAY_MS = 86_400_000;
const addDays = (date: string, n: number) =>
  new Date(Date.parse(`${date}T00:00:00Z`) + n * DAY_MS).toISOString().slice(0, 10);

/** date-holidays' calendar of a scope, or null when it has none (such a scope must not pass as "no holidays"). */
export function calendarOf(scope: string): Holidays | null {
  const [country = '', state] = scope.split('-');
  const known = new Holidays();
  const ok = country in known.getCountries() && (!state || state in (known.getStates(country) ?? {}));
  return ok ? (state ? new Holidays(country, state) : new Holidays(country)) : null;
}

/** Day of the week of a date, 0 Sunday. */
const weekday = (date: string) => new Date(`${date}T00:00:00Z`).getUTCDay();

/** Easter Sunday of the scope's calendar in a year, moved by `days` (-2: Good Friday, -47: Mardi Gras). */
function fromEaster(cal: Holidays, year: number, scope: string, days: number): string {
  const easter = cal.getHolidays(year).find((h) => h.name === 'Easter Sunday');
  if (!easter) throw new Error(`date-holidays gives no Easter Sunday for ${scope} in ${year}`);
  return addDays(easter.date.slice(0, 10), days);
}

/** The Tuesday after the first Monday of November: a US general election day. */
function electionDay(year: number): string {
  const first = new Date(Date.UTC(year, 10, 1)).getUTCDay(); // 0 Sunday
  const firstMonday = 1 + ((8 - first) % 7);
  return `${year}-11-${String(firstMonday + 1).padStart(2, '0')}`;
}

/**
 * Legal holidays a state's law closes beyond date-holidays' public ones.
 * - Pennsylvania's Telemarketer Registration Act (73 P.S. § 2245(a)(10), added by Act 73 of 2019) bans calls on the
 *   legal holidays of 44 P.S. § 11, which add Good Friday and Election Day (date-holidays has Flag Day already);
 *   Election Day is taken every year, not only in election years (the stricter reading).
 * - British Columbia's telemarketing rules ban its statutory holidays, which since 2023 include the National Day for
 *   Truth and Reconciliation on 30 September (Employment Standards Act, as amended by the National Day for Truth and
 *   Reconciliation Act).
 * - Utah's legal holidays (Utah Code § 63G-1-301) keep Juneteenth on a Monday: the one before a Tuesday-Friday
 *   19 June, the one after a weekend one; Good Friday, which a 2026 amendment is reported to add, is closed too (the
 *   stricter reading).
 * - Rhode Island's (R.I. Gen. Laws § 25-1-1) add 4 May and election day in the years of a general election of state
 *   officers (even years).
 * - Louisiana's (La. R.S. 1:55(A)(1)) add 8 January, 30 August and 1 November.
 * - Alabama's (Ala. Code § 1-3-8) add Mardi Gras in Mobile and Baldwin counties, closed statewide (a number does not
 *   prove its county).
 * - Australia's standard bans national public holidays; some states give Anzac Day on a weekend a substitute Monday,
 *   closed nationwide, as a number does not prove its state (the stricter reading).
 */
const EXTRA_HOLIDAYS: Record<string, (year: number, cal: Holidays) => Record<string, string>> = {
  'US-PA': (year, cal) => ({
    [fromEaster(cal, year, 'US-PA', -2)]: 'Good Friday',
    [electionDay(year)]: 'Election Day',
  }),
  'CA-BC': (year) => ({ [`${year}-09-30`]: 'National Day for Truth and Reconciliation' }),
  'US-UT': (year, cal) => {
    const june19 = `${year}-06-19`;
    const day = weekday(june19);
    const monday = day === 0 ? addDays(june19, 1) : day === 6 ? addDays(june19, 2) : addDays(june19, 1 - day);
    return { [monday]: 'Juneteenth (Utah)', [fromEaster(cal, year, 'US-UT', -2)]: 'Good Friday' };
  },
  'US-RI': (year) => ({
    [`${year}-05-04`]: 'Rhode Island Independence Day',
    ...(year % 2 === 0 ? { [electionDay(year)]: 'Election Day' } : {}),
  }),
  'US-LA': (year) => ({
    [`${year}-01-08`]: 'Battle of New Orleans',
    [`${year}-08-30`]: 'Huey P. Long Day',
    [`${year}-11-01`]: "All Saints' Day",
  }),
  'US-AL': (year, cal) => ({
    [fromEaster(cal, year, 'US-AL', -47)]: 'Mardi Gras (Mobile and Baldwin counties)',
  }),
  AU: (year) => {
    const anzac = `${year}-04-25`;
    const day = weekday(anzac);
    return day === 6 || day === 0
      ? { [addDays(anzac, day === 6 ? 2 : 1)]: 'Anzac Day (substitute day in some states)' }
      : {};
  },
};

/**
 * Scopes whose holiday law moves a holiday that falls on a weekend to a weekday (Utah a Saturday one to the Friday
 * before, Rhode Island a Sunday one to the Monday after, Alabama both): a Saturday holiday closes the Friday before
 * too, a Sunday one the Monday after, and the day itself stays closed (the stricter reading).
 */
const WEEKEND_MOVED = new Set(['US-UT', 'US-RI', 'US-AL']);

/**
 * Countries whose calling-hours law bans regional holidays too (Spain's art. 96.2; the Rio de Janeiro law applied to
 * all of Brazil), where a number does not prove its region: every region's public holidays are closed everywhere.
 */
const ALL_REGIONS = new Set(['ES', 'BR']);

/**
 * Local date → name of each public holiday of the scope in the years. A holiday that starts at noon closes its
 * whole day, and one that spans days closes each of them: stricter than the calendar, never looser.
 */
export function publicHolidaysOf(scope: string, first = FIRST_YEAR, last = LAST_YEAR): Record<string, string> {
  const cal = calendarOf(scope);
  if (!cal) throw new Error(`date-holidays has no calendar for ${scope}`);
  const found: Record<string, string> = {};
  for (let year = first; year <= last; year++)
    for (const h of cal.getHolidays(year)) {
      if (h.type !== 'public') continue;
      // `end` is exclusive: a one-day holiday ends at the next midnight.
      const span = Math.max(1, Math.round((h.end.getTime() - h.start.getTime()) / DAY_MS));
      for (let i = 0; i < span; i++) {
        const day = addDays(h.date.slice(0, 10), i);
        found[day] ??= h.name;
      }
    }
  const extra = EXTRA_HOLIDAYS[scope];
  if (extra)
    for (let year = first; year <= last; year++) for (const [d, n] of Object.entries(extra(year, cal))) found[d] ??= n;
  if (ALL_REGIONS.has(scope))
    for (const region of Object.keys(new Holidays().getStates(scope) ?? {}))
      for (const [d, n] of Object.entries(publicHolidaysOf(`${scope}-${region}`, first, last)))
        found[d] ??= `${n} (${scope}-${region})`;
  if (WEEKEND_MOVED.has(scope))
    for (const [d, n] of Object.entries({ ...found })) {
      const day = weekday(d);
      if (day === 6) found[addDays(d, -1)] ??= `${n} (observed)`;
      if (day === 0) found[addDays(d, 1)] ??= `${n} (observed)`;
    }
  return Object.fromEntries(Object.entries(found).sort(([a], [b]) => (a < b ? -1 : 1)));
}

/**
 * A scope's holidays as the table holds them (decoded by calling-hours/holidays.ts): its holiday names once, joined
 * by tabs, then a line for each year, `YYYY` and for each holiday in date order ` MMDD` with the index of its name.
 * Each name is written once, not once a year: 56 KiB in every bundle that checks windows, not 193 (strings this
 * size cost next to nothing to load: emptying them changed no cold start measurably, docs/benchmarks.md).
 */
export function packedHolidays(scope: string): string {
  const names: string[] = [];
  const index = new Map<string, number>();
  const years = new Map<string, string[]>();
  for (const [day, name] of Object.entries(publicHolidaysOf(scope))) {
    if (/[\t\n\r]/.test(name)) throw new Error(`${scope} ${day}: a holiday name with a tab or a line break`);
    let i = index.get(name);
    if (i === undefined) {
      i = names.push(name) - 1;
      index.set(name, i);
    }
    const year = day.slice(0, 4);
    const days = years.get(year) ?? [];
    days.push(`${day.slice(5, 7)}${day.slice(8, 10)}${i}`);
    years.set(year, days);
  }
  return [names.join('\t'), ...[...years].map(([year, days]) => `${year} ${days.join(' ')}`)].join('\n');
}

export function renderHolidayDates(): string {
  const scopes = Object.values(DEFAULT_LEGAL_HOURS)
    .filter((r) => r.noHolidays)
    .map((r) => r.scope)
    .sort();
  const version = JSON.parse(readFileSync(new URL(import.meta.resolve('date-holidays/package.json')), 'utf8')).version;
  return [
    '// Generated by `npm run build:holidays` (scripts/holiday-dates.ts) from the date-holidays calendar; do not edit.',
    '',
    '/** Public holidays of every scope whose calling-hours rule bans them. */',
    'export const HOLIDAY_DATES: {',
    '  source: string;',
    '  firstYear: number;',
    '  lastYear: number;',
    "  /** Each scope's holidays, packed by scripts/holiday-dates.ts (packedHolidays), read by calling-hours/holidays.ts. */",
    '  scopes: Readonly<Record<string, string>>;',
    '} = {',
    `  source: ${JSON.stringify(`date-holidays ${version}, public holidays, with the state and provincial legal holidays of scripts/holiday-dates.ts (EXTRA_HOLIDAYS)`)},`,
    `  firstYear: ${FIRST_YEAR},`,
    `  lastYear: ${LAST_YEAR},`,
    // A string per scope, unpacked when a scope is first asked for: an object of dates per scope (160 KB in all)
    // cost 8 ms of every start to build, as an object literal or by JSON.parse alike.
    '  scopes: {',
    ...scopes.map((scope) => `    ${JSON.stringify(scope)}: ${JSON.stringify(packedHolidays(scope))},`),
    '  },',
    '};',
    '',
  ].join('\n');
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  writeFileSync(HOLIDAY_DATES_PATH, renderHolidayDates());
  console.log(`wrote ${HOLIDAY_DATES_PATH}`);
}
