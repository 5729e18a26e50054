import { describe, expect, it } from 'vitest';
import {
  instantOfWallTime,
  offsetSegments,
  parseDateTimeIn,
  type WallTime,
  wallTimeAt,
  zoneOffsetMs,
} from '#commons/zoned-time.ts';

const iso = (t: number) => new Date(t).toISOString();
const wall = (s: string): WallTime => {
  const [date, time] = s.split('T') as [string, string];
  const [year, month, day] = date.split('-').map(Number) as [number, number, number];
  const [hour, minute] = time.split(':').map(Number) as [number, number];
  return { year, month, day, hour, minute, second: 0 };
};
const wallText = (w: WallTime) =>
  `${w.year}-${String(w.month).padStart(2, '0')}-${String(w.day).padStart(2, '0')}T${String(w.hour).padStart(2, '0')}:${String(w.minute).padStart(2, '0')}`;

describe('zoned time', () => {
  it('reads a wall time in a zone as an instant, with or without DST', () => {
    expect(iso(parseDateTimeIn('2026-03-03T10:30:00', 'Asia/Kolkata'))).toBe('2026-03-03T05:00:00.000Z');
    expect(iso(parseDateTimeIn('2026-01-15T09:00', 'America/New_York'))).toBe('2026-01-15T14:00:00.000Z');
    expect(iso(parseDateTimeIn('2026-07-15T09:00', 'America/New_York'))).toBe('2026-07-15T13:00:00.000Z');
    expect(iso(parseDateTimeIn('2026-07-15T09:00:00Z', 'America/New_York'))).toBe('2026-07-15T09:00:00.000Z');
    expect(iso(parseDateTimeIn('2026-07-15T09:00:00+02:00', 'UTC'))).toBe('2026-07-15T07:00:00.000Z');
    expect(Number.isNaN(parseDateTimeIn('next tuesday', 'UTC'))).toBe(true);
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
    expect(() => zoneOffsetMs(0, 'Mars/Olympus_Mons')).toThrow(/not an IANA time zone/);
  });

  // Offsets beyond ±12 h and half-hour DST, which hand-written arithmetic around ±12 h got wrong.
  it.each([
    ['Pacific/Chatham', '2026-01-10T00:00:00Z', '2026-01-10T13:45', 13.75],
    ['Pacific/Chatham', '2026-07-10T00:00:00Z', '2026-07-10T12:45', 12.75],
    ['Pacific/Kiritimati', '2026-07-10T11:00:00Z', '2026-07-11T01:00', 14],
    ['Pacific/Auckland', '2026-01-10T11:00:00Z', '2026-01-11T00:00', 13],
    ['Australia/Lord_Howe', '2026-01-10T00:00:00Z', '2026-01-10T11:00', 11],
    ['Australia/Lord_Howe', '2026-07-10T00:00:00Z', '2026-07-10T10:30', 10.5],
    ['Pacific/Pago_Pago', '2026-07-10T00:00:00Z', '2026-07-09T13:00', -11],
  ])('%s at %s shows %s (UTC%+s h)', (zone, instant, shown, hours) => {
    const t = Date.parse(instant);
    expect(wallText(wallTimeAt(t, zone))).toBe(shown);
    expect(zoneOffsetMs(t, zone)).toBe(hours * 3_600_000);
    expect(iso(instantOfWallTime(wall(shown), zone))).toBe(iso(t));
  });

  it.each([
    // zone, transitions in 2026 (first instant with the new offset, new offset in minutes)
    [
      'America/New_York',
      [
        ['2026-03-08T07:00:00.000Z', -240],
        ['2026-11-01T06:00:00.000Z', -300],
      ],
    ],
    [
      'Europe/London',
      [
        ['2026-03-29T01:00:00.000Z', 60],
        ['2026-10-25T01:00:00.000Z', 0],
      ],
    ],
    [
      'Australia/Sydney',
      [
        ['2026-04-04T16:00:00.000Z', 600],
        ['2026-10-03T16:00:00.000Z', 660],
      ],
    ],
    [
      'Australia/Lord_Howe',
      [
        ['2026-04-04T15:00:00.000Z', 630],
        ['2026-10-03T15:30:00.000Z', 660],
      ],
    ],
    [
      'Pacific/Chatham',
      [
        ['2026-04-04T14:00:00.000Z', 765],
        ['2026-09-26T14:00:00.000Z', 825],
      ],
    ],
    [
      'Pacific/Auckland',
      [
        ['2026-04-04T14:00:00.000Z', 720],
        ['2026-09-26T14:00:00.000Z', 780],
      ],
    ],
    // Jerusalem springs forward at 02:00 local, exactly midnight UTC.
    [
      'Asia/Jerusalem',
      [
        ['2026-03-27T00:00:00.000Z', 180],
        ['2026-10-24T23:00:00.000Z', 120],
      ],
    ],
    ['Pacific/Kiritimati', []],
  ])('finds the offset changes of %s to the millisecond', (zone, changes) => {
    const segments = offsetSegments(zone, Date.parse('2026-01-01T00:00:00Z'), Date.parse('2027-01-01T00:00:00Z'));
    expect(segments.slice(1).map((s) => [iso(s.from), s.offsetMs / 60_000])).toEqual(changes);
    // The instant before each change still has the old offset.
    for (const s of segments.slice(1)) expect(zoneOffsetMs(s.from - 1, zone)).not.toBe(s.offsetMs);
  });

  it.each([
    // A wall time shown twice (fall-back) is its first instant.
    ['America/New_York', '2026-11-01T01:30', '2026-11-01T05:30:00.000Z'],
    ['Europe/London', '2026-10-25T01:30', '2026-10-25T00:30:00.000Z'],
    ['Australia/Sydney', '2026-04-05T02:30', '2026-04-04T15:30:00.000Z'],
    ['Australia/Lord_Howe', '2026-04-05T01:45', '2026-04-04T14:45:00.000Z'],
    ['Pacific/Chatham', '2026-04-05T03:00', '2026-04-04T13:15:00.000Z'],
    // A wall time skipped by spring-forward is read with the offset before the jump (moved later by the gap).
    ['America/New_York', '2026-03-08T02:30', '2026-03-08T07:30:00.000Z'],
    ['Europe/London', '2026-03-29T01:30', '2026-03-29T01:30:00.000Z'],
    ['Australia/Sydney', '2026-10-04T02:30', '2026-10-03T16:30:00.000Z'],
    ['Australia/Lord_Howe', '2026-10-04T02:15', '2026-10-03T15:45:00.000Z'],
    ['Pacific/Chatham', '2026-09-27T03:00', '2026-09-26T14:15:00.000Z'],
  ])('in %s, wall time %s is %s', (zone, shown, instant) => {
    expect(iso(instantOfWallTime(wall(shown), zone))).toBe(instant);
  });

  it('agrees with Intl on the wall time of every zone the runtime knows, at instants all year', () => {
    const reference = (zone: string) =>
      new Intl.DateTimeFormat('en-US', {
        timeZone: zone,
        hourCycle: 'h23',
        year: 'numeric',
        month: '2-digit',
        day: '2-digit',
        hour: '2-digit',
        minute: '2-digit',
      });
    const mismatches: string[] = [];
    for (const zone of Intl.supportedValuesOf('timeZone')) {
      const f = reference(zone);
      for (
        let t = Date.parse('2026-01-01T00:17:00Z');
        t < Date.parse('2027-01-01T00:00:00Z');
        t += 31 * 86_400_000 + 5 * 3_600_000
      ) {
        const p = Object.fromEntries(f.formatToParts(t).map((x) => [x.type, x.value]));
        const expected = `${p.year}-${p.month}-${p.day}T${p.hour}:${p.minute}`;
        const w = wallTimeAt(t, zone);
        if (wallText(w) !== expected) mismatches.push(`${zone} ${iso(t)}: ${wallText(w)} ≠ ${expected}`);
        // And back: the wall time maps to this instant, or to an earlier one showing the same time (an overlap).
        const back = instantOfWallTime(w, zone);
        if (back > Math.floor(t / 60_000) * 60_000 || wallText(wallTimeAt(back, zone)) !== expected)
          mismatches.push(`${zone} ${iso(t)}: back to ${iso(back)}`);
      }
    }
    expect(mismatches).toEqual([]);
  });
});
