import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DEFAULT_LEGAL_HOURS } from '#commons/legal-hours.ts';
import {
  calendarOf,
  HOLIDAY_DATES_PATH,
  LAST_YEAR,
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

  it('closes every day of a holiday that spans days, and the whole day of one that starts at noon', () => {
    // Christmas Eve in Germany is a half day from 14:00 (not public); the 25th and 26th are public holidays.
    const de = publicHolidaysOf('DE', 2026, 2026);
    expect(de['2026-12-25']).toBeDefined();
    expect(de['2026-12-26']).toBeDefined();
    expect(de['2026-12-24']).toBeUndefined();
  });
});
