import { HOLIDAY_DATES } from './holiday-dates.ts';

/** Whether the holiday table has a calendar for the scope (`FR`, `US-FL`): every scope whose rule bans holidays. */
export const knowsHolidaysOf = (scope: string): boolean => Object.hasOwn(HOLIDAY_DATES.scopes, scope);

/** Why a holiday cannot be known, so the caller refuses to dial rather than treat the day as open. */
export class HolidaysUnknown extends Error {}

/** Each scope's `YYYY-MM-DD name` lines, in date order, unpacked when first asked for. */
const calendars = new Map<string, readonly string[]>();

/**
 * A scope's `YYYY-MM-DD name` lines from the table's packing (scripts/holiday-dates.ts, packedHolidays): the names
 * joined by tabs, then per year `YYYY` and ` MMDD<name index>` for each holiday in date order.
 */
export function unpackHolidays(packed: string): string[] {
  const [head = '', ...years] = packed.split('\n');
  const names = head.split('\t');
  const lines: string[] = [];
  for (const row of years) {
    const [year, ...days] = row.split(' ');
    for (const d of days) lines.push(`${year}-${d.slice(0, 2)}-${d.slice(2, 4)} ${names[Number(d.slice(4))]}`);
  }
  return lines;
}

function calendar(scope: string, from: string, to: string): readonly string[] {
  let lines = calendars.get(scope);
  if (!lines) {
    if (!knowsHolidaysOf(scope)) throw new HolidaysUnknown(`callsheet has no holiday calendar for ${scope}`);
    lines = unpackHolidays(HOLIDAY_DATES.scopes[scope] as string);
    calendars.set(scope, lines);
  }
  const first = Number(from.slice(0, 4));
  const last = Number(to.slice(0, 4));
  if (first < HOLIDAY_DATES.firstYear || last > HOLIDAY_DATES.lastYear)
    throw new HolidaysUnknown(
      `callsheet's holiday calendar covers ${HOLIDAY_DATES.firstYear}-${HOLIDAY_DATES.lastYear}, not ${first}-${last}: update callsheet (npm run build:holidays)`,
    );
  return lines;
}

/** The public holidays of the scope on local dates from `from` to `to` (YYYY-MM-DD, inclusive). */
export function publicHolidays(scope: string, from: string, to: string): string[] {
  const lines = calendar(scope, from, to);
  // The first line on or after `from` (a line sorts after its own date), found by halving: seven years of lines.
  let lo = 0;
  let hi = lines.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((lines[mid] as string) < from) lo = mid + 1;
    else hi = mid;
  }
  const days: string[] = [];
  for (let i = lo; i < lines.length; i++) {
    const day = (lines[i] as string).slice(0, 10);
    if (day > to) break;
    days.push(day);
  }
  return days;
}

/** The name of the scope's public holiday on a local date, or null. */
export function holidayName(scope: string, date: string): string | null {
  for (const line of calendar(scope, date, date)) if (line.slice(0, 10) === date) return line.slice(11);
  return null;
}
