import { instantOfWallTime, wallTimeAt } from './zoned-time.ts';

/** Minutes after local midnight; `end` may be 1440 (24:00). An end at or before the start crosses midnight. */
export interface HourRange {
  start: number;
  end: number;
}

export interface WindowRule {
  /** 0 = Sunday … 6 = Saturday. */
  days: number[];
  ranges: HourRange[];
}

/** When calls may be placed, in the part's own time zone. */
export interface CallingWindow {
  rules: WindowRule[];
  /** Local dates (YYYY-MM-DD) on which no call is placed at any hour. */
  holidays: string[];
}

export class WindowSpecError extends Error {}

const DAY_NAMES = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'];
const DAY_GROUPS: Record<string, number[]> = {
  daily: [0, 1, 2, 3, 4, 5, 6],
  weekdays: [1, 2, 3, 4, 5],
  weekends: [0, 6],
};

function dayIndex(word: string): number {
  const w = word.toLowerCase();
  const i = w.length >= 3 ? DAY_NAMES.findIndex((name) => name.startsWith(w)) : -1;
  if (i < 0) throw new WindowSpecError(`"${word}" is not a day of the week (use Mon, Tue, Wed, Thu, Fri, Sat, Sun)`);
  return i;
}

function parseDays(text: string): number[] {
  const group = DAY_GROUPS[text.toLowerCase()];
  if (group) return group;
  const days = new Set<number>();
  for (const item of text.split(',')) {
    const [from, to, extra] = item.split('-').map((s) => s.trim());
    if (!from || extra !== undefined) throw new WindowSpecError(`"${item}" is not a day or a range of days`);
    const a = dayIndex(from);
    const b = to === undefined ? a : dayIndex(to);
    for (let d = a; ; d = (d + 1) % 7) {
      days.add(d);
      if (d === b) break;
    }
  }
  return [...days].sort();
}

function parseClock(text: string, isEnd: boolean): number {
  const m = /^(\d{1,2}):(\d{2})$/.exec(text.trim());
  const h = Number(m?.[1]);
  const min = Number(m?.[2]);
  if (!m || min > 59 || h > 24 || (h === 24 && (min !== 0 || !isEnd)))
    throw new WindowSpecError(`"${text}" is not a time of day (use HH:MM, 24-hour, e.g. 09:00 or 17:30)`);
  return h * 60 + min;
}

function parseRanges(text: string): HourRange[] {
  return text.split(',').map((item) => {
    const [a, b, extra] = item.split('-');
    if (a === undefined || b === undefined || extra !== undefined)
      throw new WindowSpecError(`"${item.trim()}" is not an hour range (use HH:MM-HH:MM, e.g. 09:00-17:00)`);
    const start = parseClock(a, false);
    const end = parseClock(b, true);
    if (start === end) throw new WindowSpecError(`"${item.trim()}" is an empty hour range`);
    return { start, end };
  });
}

/**
 * Reads a window such as `Mon-Fri 09:00-12:00,13:00-17:00; Sat 10:00-14:00`. Days: names, ranges of names, or
 * `daily`, `weekdays`, `weekends`. A range whose end is not after its start (22:00-02:00) runs past midnight.
 */
export function parseWindowRules(spec: string): WindowRule[] {
  const rules = spec
    .split(';')
    .map((s) => s.trim())
    .filter(Boolean)
    .map((rule) => {
      const m = /^(\S+(?:\s*,\s*\S+)*)\s+(\d.*)$/.exec(rule);
      if (!m) throw new WindowSpecError(`"${rule}" should be days then hours, e.g. "Mon-Fri 09:00-17:00"`);
      return { days: parseDays((m[1] as string).replace(/\s+/g, '')), ranges: parseRanges(m[2] as string) };
    });
  if (rules.length === 0) throw new WindowSpecError('the calling window is empty');
  return rules;
}

const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** Reads holiday dates separated by commas, semicolons or spaces. */
export function parseHolidays(text: string): string[] {
  return text
    .split(/[\s,;]+/)
    .filter(Boolean)
    .map((d) => {
      const m = ISO_DATE.exec(d);
      const date = m ? new Date(Date.UTC(+(m[1] as string), +(m[2] as string) - 1, +(m[3] as string))) : null;
      if (!date || date.toISOString().slice(0, 10) !== d)
        throw new WindowSpecError(`"${d}" is not a date (use YYYY-MM-DD, e.g. 2026-12-25)`);
      return d;
    });
}

/** Writes a window back in the form `parseWindowRules` reads, for reports. */
export function describeWindow(w: CallingWindow): string {
  const clock = (m: number) => `${String(Math.floor(m / 60)).padStart(2, '0')}:${String(m % 60).padStart(2, '0')}`;
  const day = (d: number) => {
    const n = DAY_NAMES[d] as string;
    return n[0]?.toUpperCase() + n.slice(1, 3);
  };
  const rules = w.rules
    .map((r) => `${r.days.map(day).join(',')} ${r.ranges.map((x) => `${clock(x.start)}-${clock(x.end)}`).join(',')}`)
    .join('; ');
  return w.holidays.length > 0 ? `${rules} (closed ${w.holidays.join(', ')})` : rules;
}

interface Interval {
  from: number;
  to: number;
}

const DAY_MS = 86_400_000;

/** A civil date moved by `n` days, as a UTC-midnight timestamp (no zone involved). */
const civil = (y: number, m: number, d: number, n = 0) => Date.UTC(y, m - 1, d) + n * DAY_MS;
const isoOf = (civilMs: number) => new Date(civilMs).toISOString().slice(0, 10);

/** Open intervals (epoch ms) of the local days [firstDay, firstDay + days), holidays cut out, merged. */
function openIntervals(w: CallingWindow, timeZone: string, firstDay: number, days: number): Interval[] {
  const holidays = new Set(w.holidays);
  const at = (dayMs: number, minutes: number) => {
    const d = new Date(dayMs + Math.floor(minutes / 1440) * DAY_MS);
    const m = minutes % 1440;
    return instantOfWallTime(
      {
        year: d.getUTCFullYear(),
        month: d.getUTCMonth() + 1,
        day: d.getUTCDate(),
        hour: Math.floor(m / 60),
        minute: m % 60,
        second: 0,
      },
      timeZone,
    );
  };
  const raw: Interval[] = [];
  for (let i = 0; i < days; i++) {
    const day = firstDay + i * DAY_MS;
    const weekday = new Date(day).getUTCDay();
    for (const rule of w.rules) {
      if (!rule.days.includes(weekday)) continue;
      for (const r of rule.ranges) {
        const end = r.end > r.start ? r.end : r.end + 1440;
        // Cut at local midnights so a holiday closes exactly its own date.
        for (let from = r.start; from < end; from = Math.floor(from / 1440) * 1440 + 1440) {
          const to = Math.min(end, Math.floor(from / 1440) * 1440 + 1440);
          if (holidays.has(isoOf(day + Math.floor(from / 1440) * DAY_MS))) continue;
          raw.push({ from: at(day, from), to: at(day, to) });
        }
      }
    }
  }
  raw.sort((a, b) => a.from - b.from);
  const merged: Interval[] = [];
  for (const iv of raw) {
    const last = merged[merged.length - 1];
    if (last && iv.from <= last.to) last.to = Math.max(last.to, iv.to);
    else if (iv.to > iv.from) merged.push({ ...iv });
  }
  return merged;
}

export interface WindowState {
  open: boolean;
  /** When the window next closes (if open) or opens (if closed); null if that is more than a year away. */
  changesAt: number | null;
}

const HORIZON_DAYS = 400;

/**
 * Whether calls may be placed at `nowMs` in `timeZone`, and when that next changes. Works on local wall time, so a
 * 09:00 opening is 09:00 on both sides of a DST change, and a range past midnight stays one stretch.
 */
export function windowStateAt(w: CallingWindow, timeZone: string, nowMs: number): WindowState {
  const wall = wallTimeAt(nowMs, timeZone);
  // Start a day early: yesterday's range may run past midnight into today.
  const first = civil(wall.year, wall.month, wall.day, -1);
  for (let span = 9; ; span = Math.min(span * 4, HORIZON_DAYS)) {
    const intervals = openIntervals(w, timeZone, first, span);
    const current = intervals.find((iv) => iv.from <= nowMs && nowMs < iv.to);
    if (current) {
      // The close may be followed at once by the next day's opening; merged intervals already joined those.
      const tailReachesEnd = current === intervals[intervals.length - 1] && span < HORIZON_DAYS;
      if (!tailReachesEnd) return { open: true, changesAt: current.to };
    } else {
      const next = intervals.find((iv) => iv.from > nowMs);
      if (next) return { open: false, changesAt: next.from };
    }
    if (span >= HORIZON_DAYS) return { open: current !== undefined, changesAt: current ? current.to : null };
  }
}
