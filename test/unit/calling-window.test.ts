import { describe, expect, it } from 'vitest';
import {
  type CallingWindow,
  describeWindow,
  parseHolidays,
  parseWindowRules,
  WindowSpecError,
  windowStateAt,
} from '../../functions/commons/calling-window.ts';

const window = (spec: string, holidays = ''): CallingWindow => ({
  rules: parseWindowRules(spec),
  holidays: parseHolidays(holidays),
});
const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

describe('calling window spec', () => {
  it('reads days, day ranges, day groups and several hour ranges', () => {
    expect(parseWindowRules('Mon-Fri 09:00-12:00,13:00-17:30; Sat 10:00-14:00')).toEqual([
      {
        days: [1, 2, 3, 4, 5],
        ranges: [
          { start: 540, end: 720 },
          { start: 780, end: 1050 },
        ],
      },
      { days: [6], ranges: [{ start: 600, end: 840 }] },
    ]);
    expect(parseWindowRules('weekends 10:00-24:00')[0]).toEqual({ days: [0, 6], ranges: [{ start: 600, end: 1440 }] });
    expect(parseWindowRules('Fri-Mon 20:00-02:00')[0]?.days).toEqual([0, 1, 5, 6]);
    expect(parseWindowRules('tuesday,Thu 08:00-09:00')[0]?.days).toEqual([2, 4]);
  });

  it('names what is wrong in a bad spec', () => {
    expect(() => parseWindowRules('Mon-Fry 09:00-17:00')).toThrow(/"Fry" is not a day of the week/);
    expect(() => parseWindowRules('Mon-Fri 9-17')).toThrow(WindowSpecError);
    expect(() => parseWindowRules('Mon-Fri 09:00-25:00')).toThrow(/"25:00" is not a time of day/);
    expect(() => parseWindowRules('Mon-Fri 09:00-09:00')).toThrow(/empty hour range/);
    expect(() => parseWindowRules('09:00-17:00')).toThrow(/days then hours/);
    expect(() => parseHolidays('2026-02-30')).toThrow(/"2026-02-30" is not a date/);
  });

  it('writes a window back in the form it reads', () => {
    const w = window('Mon-Fri 09:00-17:00; Sat 10:00-14:00', '2026-12-25');
    expect(describeWindow(w)).toBe('Mon,Tue,Wed,Thu,Fri 09:00-17:00; Sat 10:00-14:00 (closed 2026-12-25)');
    expect(parseWindowRules(describeWindow({ ...w, holidays: [] }))).toEqual(w.rules);
  });
});

describe('window state', () => {
  const weekdays = window('Mon-Fri 09:00-17:00');

  it('is open inside the hours and says when it closes, in the zone of the part', () => {
    // Monday 2026-03-02 10:00 in New York is 15:00 UTC.
    const s = windowStateAt(weekdays, 'America/New_York', Date.parse('2026-03-02T15:00:00Z'));
    expect(s).toEqual({ open: true, changesAt: Date.parse('2026-03-02T22:00:00Z') });
  });

  it('over a weekend, reopens on Monday morning', () => {
    const s = windowStateAt(weekdays, 'Asia/Kolkata', Date.parse('2026-03-06T12:00:00Z')); // Fri 17:30 IST
    expect(s.open).toBe(false);
    expect(iso(s.changesAt)).toBe('2026-03-09T03:30:00.000Z'); // Mon 09:00 IST
  });

  it('keeps local hours across a DST change', () => {
    // US clocks go forward on Sunday 2026-03-08: Friday 09:00 EST is 14:00Z, Monday 09:00 EDT is 13:00Z.
    const friday = windowStateAt(weekdays, 'America/New_York', Date.parse('2026-03-06T12:00:00Z'));
    expect(iso(friday.changesAt)).toBe('2026-03-06T14:00:00.000Z');
    const weekend = windowStateAt(weekdays, 'America/New_York', Date.parse('2026-03-07T12:00:00Z'));
    expect(iso(weekend.changesAt)).toBe('2026-03-09T13:00:00.000Z');
  });

  it('treats a range past midnight as one stretch, and opens in it after midnight', () => {
    const nights = window('Fri 22:00-02:00');
    const beforeMidnight = windowStateAt(nights, 'UTC', Date.parse('2026-03-06T23:00:00Z'));
    expect(beforeMidnight).toEqual({ open: true, changesAt: Date.parse('2026-03-07T02:00:00Z') });
    const afterMidnight = windowStateAt(nights, 'UTC', Date.parse('2026-03-07T01:00:00Z'));
    expect(afterMidnight).toEqual({ open: true, changesAt: Date.parse('2026-03-07T02:00:00Z') });
    const later = windowStateAt(nights, 'UTC', Date.parse('2026-03-07T03:00:00Z'));
    expect(later).toEqual({ open: false, changesAt: Date.parse('2026-03-13T22:00:00Z') });
  });

  it('joins back-to-back days into one open stretch', () => {
    const always = window('daily 00:00-24:00', '2026-03-10');
    const s = windowStateAt(always, 'UTC', Date.parse('2026-03-08T05:00:00Z'));
    expect(s).toEqual({ open: true, changesAt: Date.parse('2026-03-10T00:00:00Z') });
  });

  it('skips holidays, which close their whole local date', () => {
    const w = window('Mon-Fri 09:00-17:00', '2026-12-24, 2026-12-25');
    const s = windowStateAt(w, 'Europe/London', Date.parse('2026-12-23T17:00:00Z'));
    expect(s).toEqual({ open: false, changesAt: Date.parse('2026-12-28T09:00:00Z') });
    const nights = window('Thu 22:00-02:00', '2026-12-25');
    const christmasEve = windowStateAt(nights, 'UTC', Date.parse('2026-12-24T23:00:00Z'));
    expect(christmasEve).toEqual({ open: true, changesAt: Date.parse('2026-12-25T00:00:00Z') });
  });

  it('says when a window never opens within a year', () => {
    const w = window('Mon 09:00-10:00', parseHolidaysForAllMondays());
    const s = windowStateAt(w, 'UTC', Date.parse('2026-03-03T00:00:00Z'));
    expect(s).toEqual({ open: false, changesAt: null });
  });
});

function parseHolidaysForAllMondays(): string {
  const out: string[] = [];
  for (let t = Date.parse('2026-03-02T00:00:00Z'); t < Date.parse('2027-06-01T00:00:00Z'); t += 7 * 86_400_000)
    out.push(new Date(t).toISOString().slice(0, 10));
  return out.join(' ');
}
