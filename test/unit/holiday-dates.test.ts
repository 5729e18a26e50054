import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { holidayName, publicHolidays, unpackHolidays } from '#commons/calling-hours/holidays.ts';
import { DEFAULT_LEGAL_HOURS } from '#commons/legal-hours.ts';
import {
  calendarOf,
  FIRST_YEAR,
  HOLIDAY_DATES_PATH,
  LAST_YEAR,
  packedHolidays,
  publicHolidaysOf,
  renderHolidayDates,
} from '#scripts/holiday-dates.ts';

describe('the holiday table the code reads', () => {
  it('is what date-holidays says today (regenerate with npm run build:holidays)', () => {
    expect(readFileSync(HOLIDAY_DATES_PATH, 'utf8')).toBe(renderHolidayDates());
  });

  it('reaches at least two years past this one, so a window made now never looks past it', () => {
    expect(LAST_YEAR).toBeGreaterThanOrEqual(new Date().getUTCFullYear() + 2);
  });

  it('has a calendar for every scope whose rule bans holidays', () => {
    for (const rule of Object.values(DEFAULT_LEGAL_HOURS).filter((r) => r.noHolidays))
      expect(calendarOf(rule.scope), rule.scope).not.toBeNull();
    expect(calendarOf('US-ZZ')).toBeNull();
  });

  it('reads back, scope by scope, every holiday of the calendar under its name', () => {
    const scopes = Object.values(DEFAULT_LEGAL_HOURS)
      .filter((r) => r.noHolidays)
      .map((r) => r.scope);
    for (const scope of scopes) {
      const expected = publicHolidaysOf(scope);
      expect(publicHolidays(scope, `${FIRST_YEAR}-01-01`, `${LAST_YEAR}-12-31`), scope).toEqual(Object.keys(expected));
      for (const [day, name] of Object.entries(expected)) expect(holidayName(scope, day), `${scope} ${day}`).toBe(name);
    }
  });

  it.each([
    ['one name, two years', 'New Year\n2026 01010\n2027 01010', ['2026-01-01 New Year', '2027-01-01 New Year']],
    [
      'a name index past 9',
      `${Array.from({ length: 12 }, (_, i) => `H${i}`).join('\t')}\n2026 031511 12319`,
      ['2026-03-15 H11', '2026-12-31 H9'],
    ],
  ])('unpacks %s', (_, packed, lines) => {
    expect(unpackHolidays(packed)).toEqual(lines);
  });

  it('packs a scope so that unpacking gives its lines back', () => {
    const lines = Object.entries(publicHolidaysOf('US-PA')).map(([day, name]) => `${day} ${name}`);
    expect(unpackHolidays(packedHolidays('US-PA'))).toEqual(lines);
  });

  it('closes every day of a holiday that spans days, and the whole day of one that starts at noon', () => {
    // Christmas Eve in Germany is a half day from 14:00 (not public); the 25th and 26th are public holidays.
    const de = publicHolidaysOf('DE', 2026, 2026);
    expect(de['2026-12-25']).toBeDefined();
    expect(de['2026-12-26']).toBeDefined();
    expect(de['2026-12-24']).toBeUndefined();
  });
});
