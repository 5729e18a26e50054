import { HOLIDAY_DATES } from './holiday-dates.ts';

/** Whether the holiday table has a calendar for the scope (`FR`, `US-FL`): every scope whose rule bans holidays. */
export const knowsHolidaysOf = (scope: string): boolean => scope in HOLIDAY_DATES.scopes;

/** Why a holiday cannot be known, so the caller refuses to dial rather than treat the day as open. */
export class HolidaysUnknown extends Error {}

function calendar(scope: string, from: string, to: string): Readonly<Record<string, string>> {
  const days = HOLIDAY_DATES.scopes[scope];
  if (!days) throw new HolidaysUnknown(`callsheet has no holiday calendar for ${scope}`);
  const first = Number(from.slice(0, 4));
  const last = Number(to.slice(0, 4));
  if (first < HOLIDAY_DATES.firstYear || last > HOLIDAY_DATES.lastYear)
    throw new HolidaysUnknown(
      `callsheet's holiday calendar covers ${HOLIDAY_DATES.firstYear}-${HOLIDAY_DATES.lastYear}, not ${first}-${last}: update callsheet (npm run build:holidays)`,
    );
  return days;
}

/** The public holidays of the scope on local dates from `from` to `to` (YYYY-MM-DD, inclusive). */
export function publicHolidays(scope: string, from: string, to: string): string[] {
  return Object.keys(calendar(scope, from, to)).filter((d) => d >= from && d <= to);
}

/** The name of the scope's public holiday on a local date, or null. */
export const holidayName = (scope: string, date: string): string | null => calendar(scope, date, date)[date] ?? null;
