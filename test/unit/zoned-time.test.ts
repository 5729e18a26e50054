import { describe, expect, it } from 'vitest';
import { instantOfWallTime, parseDateTimeIn, wallTimeAt, zoneOffsetMs } from '../../functions/commons/zoned-time.ts';

const iso = (t: number) => new Date(t).toISOString();

describe('zoned time', () => {
  it('reads a wall time in a zone as an instant, with or without DST', () => {
    expect(iso(parseDateTimeIn('2026-03-03T10:30:00', 'Asia/Kolkata'))).toBe('2026-03-03T05:00:00.000Z');
    expect(iso(parseDateTimeIn('2026-01-15T09:00', 'America/New_York'))).toBe('2026-01-15T14:00:00.000Z');
    expect(iso(parseDateTimeIn('2026-07-15T09:00', 'America/New_York'))).toBe('2026-07-15T13:00:00.000Z');
    expect(iso(parseDateTimeIn('2026-07-15T09:00:00Z', 'America/New_York'))).toBe('2026-07-15T09:00:00.000Z');
    expect(iso(parseDateTimeIn('2026-07-15T09:00:00+02:00', 'UTC'))).toBe('2026-07-15T07:00:00.000Z');
    expect(Number.isNaN(parseDateTimeIn('next tuesday', 'UTC'))).toBe(true);
  });

  it('maps a wall time skipped by spring-forward to the first instant after the gap, and a repeated one to the first', () => {
    // 2026-03-08 02:30 does not exist in New York (clocks jump 02:00 → 03:00 EDT).
    expect(
      iso(instantOfWallTime({ year: 2026, month: 3, day: 8, hour: 2, minute: 30, second: 0 }, 'America/New_York')),
    ).toBe('2026-03-08T07:30:00.000Z');
    // 2026-11-01 01:30 happens twice; the first is EDT (UTC-4).
    expect(
      iso(instantOfWallTime({ year: 2026, month: 11, day: 1, hour: 1, minute: 30, second: 0 }, 'America/New_York')),
    ).toBe('2026-11-01T05:30:00.000Z');
  });

  it('tells wall time and offset at an instant', () => {
    expect(wallTimeAt(Date.parse('2026-03-03T05:00:00Z'), 'Asia/Kolkata')).toEqual({
      year: 2026,
      month: 3,
      day: 3,
      hour: 10,
      minute: 30,
      second: 0,
    });
    expect(zoneOffsetMs(Date.parse('2026-07-01T00:00:00Z'), 'Europe/London')).toBe(3_600_000);
    expect(zoneOffsetMs(Date.parse('2026-01-01T00:00:00Z'), 'Europe/London')).toBe(0);
  });
});
