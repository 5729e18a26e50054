import { offsetSegments } from './zoned-time.ts';

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

/** Quotes a piece of the user's text in a message, shortened so a pasted novel does not become the message. */
const shown = (text: string) => `"${text.length > 40 ? `${text.slice(0, 40)}…` : text}"`;

const DAY_NAMES = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'];
const DAY_GROUPS: Record<string, number[]> = {
  daily: [0, 1, 2, 3, 4, 5, 6],
  weekdays: [1, 2, 3, 4, 5],
  weekends: [0, 6],
};

function dayIndex(word: string): number {
  const w = word.toLowerCase();
  const i = w.length >= 3 ? DAY_NAMES.findIndex((name) => name.startsWith(w)) : -1;
  if (i < 0)
    throw new WindowSpecError(`${shown(word)} is not a day of the week (use Mon, Tue, Wed, Thu, Fri, Sat, Sun)`);
  return i;
}

function parseDays(text: string): number[] {
  const group = DAY_GROUPS[text.toLowerCase()];
  if (group) return group;
  const days = new Set<number>();
  for (const item of text.split(',')) {
    const [from, to, extra] = item.split('-').map((s) => s.trim());
    if (!from || extra !== undefined) throw new WindowSpecError(`${shown(item)} is not a day or a range of days`);
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
    throw new WindowSpecError(`${shown(text)} is not a time of day (use HH:MM, 24-hour, e.g. 09:00 or 17:30)`);
  return h * 60 + min;
}

function parseRanges(text: string): HourRange[] {
  return text.split(',').map((item) => {
    const [a, b, extra] = item.split('-');
    if (a === undefined || b === undefined || extra !== undefined)
      throw new WindowSpecError(`${shown(item.trim())} is not an hour range (use HH:MM-HH:MM, e.g. 09:00-17:00)`);
    const start = parseClock(a, false);
    const end = parseClock(b, true);
    if (start === end) throw new WindowSpecError(`${shown(item.trim())} is an empty hour range`);
    return { start, end };
  });
}

/** Longer specs are refused before any parsing: no real window needs this much text. */
const MAX_SPEC_LENGTH = 2000;

/**
 * Splits one rule into its days and its hours at the first word that starts with a digit. A plain scan, linear in
 * the text: the regular expression it replaces backtracked exponentially on a long list of day names without hours.
 */
function splitRule(rule: string): { days: string; hours: string } | null {
  for (let i = 1; i < rule.length; i++) {
    const c = rule.charCodeAt(i);
    if (c >= 48 && c <= 57 && /\s/.test(rule[i - 1] as string)) {
      const days = rule.slice(0, i).trim();
      return days ? { days, hours: rule.slice(i) } : null;
    }
  }
  return null;
}

/**
 * Reads a window such as `Mon-Fri 09:00-12:00,13:00-17:00; Sat 10:00-14:00`. Days: names, ranges of names, or
 * `daily`, `weekdays`, `weekends`. A range whose end is not after its start (22:00-02:00) runs past midnight.
 * Linear in the length of the spec, whatever it holds.
 */
export function parseWindowRules(spec: string): WindowRule[] {
  if (spec.length > MAX_SPEC_LENGTH)
    throw new WindowSpecError(
      `the calling window is ${spec.length} characters long; write it in at most ${MAX_SPEC_LENGTH}, e.g. "Mon-Fri 09:00-17:00"`,
    );
  const rules = spec
    .split(';')
    .map((s) => s.trim())
    .filter(Boolean)
    .map((rule) => {
      const parts = splitRule(rule);
      if (!parts) throw new WindowSpecError(`${shown(rule)} should be days then hours, e.g. "Mon-Fri 09:00-17:00"`);
      return { days: parseDays(parts.days.replace(/\s+/g, '')), ranges: parseRanges(parts.hours) };
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
        throw new WindowSpecError(`${shown(d)} is not a date (use YYYY-MM-DD, e.g. 2026-12-25)`);
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

/** A stretch of instants, epoch ms, `from` ≤ t < `to`. */
export interface Interval {
  from: number;
  to: number;
}

const DAY_MS = 86_400_000;
const MINUTE_MS = 60_000;

/**
 * The open minutes of each weekday (0 = Sunday), as sorted, disjoint ranges within that local date: a range past
 * midnight is split, its tail belonging to the next date (so a holiday closes exactly its own date).
 */
export function dailyRanges(rules: readonly WindowRule[]): HourRange[][] {
  const days: HourRange[][] = [[], [], [], [], [], [], []];
  for (const rule of rules)
    for (const day of rule.days)
      for (const r of rule.ranges) {
        if (r.end > r.start) days[day]?.push({ start: r.start, end: r.end });
        else {
          days[day]?.push({ start: r.start, end: 1440 });
          if (r.end > 0) days[(day + 1) % 7]?.push({ start: 0, end: r.end });
        }
      }
  return days.map(mergeRanges);
}

function mergeRanges(ranges: HourRange[]): HourRange[] {
  const sorted = [...ranges].sort((a, b) => a.start - b.start);
  const out: HourRange[] = [];
  for (const r of sorted) {
    const last = out[out.length - 1];
    if (last && r.start <= last.end) last.end = Math.max(last.end, r.end);
    else out.push({ ...r });
  }
  return out;
}

function intersectRanges(a: readonly HourRange[], b: readonly HourRange[]): HourRange[] {
  const out: HourRange[] = [];
  for (const x of a)
    for (const y of b) {
      const start = Math.max(x.start, y.start);
      const end = Math.min(x.end, y.end);
      if (end > start) out.push({ start, end });
    }
  return mergeRanges(out);
}

/** Rules from per-weekday ranges, weekdays with the same hours sharing one rule (Monday first, as people read). */
function rulesOf(days: readonly HourRange[][]): WindowRule[] {
  const rules: WindowRule[] = [];
  for (const d of [1, 2, 3, 4, 5, 6, 0]) {
    const ranges = days[d] ?? [];
    if (ranges.length === 0) continue;
    const same = rules.find((r) => JSON.stringify(r.ranges) === JSON.stringify(ranges));
    if (same) same.days.push(d);
    else rules.push({ days: [d], ranges: ranges.map((r) => ({ ...r })) });
  }
  return rules;
}

/** The hours open under both sets of rules, on the same local dates. */
export function intersectRules(a: readonly WindowRule[], b: readonly WindowRule[]): WindowRule[] {
  const da = dailyRanges(a);
  const db = dailyRanges(b);
  return rulesOf(da.map((ranges, d) => intersectRanges(ranges, db[d] ?? [])));
}

/** Whether two sets of rules open the same minutes of the week. */
export function sameHours(a: readonly WindowRule[], b: readonly WindowRule[]): boolean {
  return JSON.stringify(dailyRanges(a)) === JSON.stringify(dailyRanges(b));
}

/** Sorted intervals joined where they touch or overlap. */
function mergeIntervals(raw: Interval[]): Interval[] {
  raw.sort((a, b) => a.from - b.from);
  const merged: Interval[] = [];
  for (const iv of raw) {
    if (!(iv.to > iv.from)) continue;
    const last = merged[merged.length - 1];
    if (last && iv.from <= last.to) last.to = Math.max(last.to, iv.to);
    else merged.push({ ...iv });
  }
  return merged;
}

/** The instants in both lists of sorted, disjoint intervals. */
export function intersectIntervals(a: readonly Interval[], b: readonly Interval[]): Interval[] {
  const out: Interval[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const x = a[i] as Interval;
    const y = b[j] as Interval;
    const from = Math.max(x.from, y.from);
    const to = Math.min(x.to, y.to);
    if (to > from) out.push({ from, to });
    if (x.to < y.to) i++;
    else j++;
  }
  return out;
}

const isoDate = (dayIndex: number) => new Date(dayIndex * DAY_MS).toISOString().slice(0, 10);

/**
 * The instants in [from, to) at which the window is open in `timeZone`, exactly: t is open when its local wall time
 * falls in a range of its local date's weekday and that date is not a holiday. Worked per stretch of constant
 * offset, so a fall-back hour that is shown twice is open (or closed) both times, and wall times skipped by a
 * spring-forward gap simply do not occur. Sorted, disjoint, touching stretches joined.
 */
export function openIntervals(w: CallingWindow, timeZone: string, from: number, to: number): Interval[] {
  const days = dailyRanges(w.rules);
  const holidays = new Set(w.holidays);
  const raw: Interval[] = [];
  for (const seg of offsetSegments(timeZone, from, to)) {
    const o = seg.offsetMs;
    const wallFrom = seg.from + o;
    const wallTo = seg.to + o;
    for (let day = Math.floor(wallFrom / DAY_MS); day * DAY_MS < wallTo; day++) {
      const ranges = days[new Date(day * DAY_MS).getUTCDay()] ?? [];
      if (ranges.length === 0 || holidays.has(isoDate(day))) continue;
      for (const r of ranges) {
        const a = Math.max(wallFrom, day * DAY_MS + r.start * MINUTE_MS);
        const b = Math.min(wallTo, day * DAY_MS + r.end * MINUTE_MS);
        if (b > a) raw.push({ from: a - o, to: b - o });
      }
    }
  }
  return mergeIntervals(raw);
}

export interface WindowState {
  open: boolean;
  /** When the window next closes (if open) or opens (if closed); null when that does not happen within the horizon. */
  changesAt: number | null;
}

/** How far `windowStateAt` looks for a change. */
export const WINDOW_HORIZON_MS = 400 * DAY_MS;

/**
 * The state at `nowMs` of a list of open intervals computed up to `until`, and when it changes, with no call allowed
 * to start within `marginMs` of a close: a stretch that reaches `until` has no close in sight.
 */
export function stateOfIntervals(
  intervals: readonly Interval[],
  nowMs: number,
  until: number,
  marginMs = 0,
): WindowState {
  const usable = (iv: Interval) => iv.to >= until || iv.to - marginMs > iv.from;
  const closeOf = (iv: Interval) => (iv.to >= until ? null : iv.to - marginMs);
  for (const iv of intervals) {
    if (iv.to <= nowMs || !usable(iv)) continue;
    const close = closeOf(iv);
    if (iv.from <= nowMs) {
      if (close === null || nowMs < close) return { open: true, changesAt: close };
      continue; // in the closing margin: closed until the next usable stretch
    }
    return { open: false, changesAt: iv.from };
  }
  return { open: false, changesAt: null };
}

/**
 * Whether calls may be placed at `nowMs` in `timeZone`, and when that next changes (null when nothing changes within
 * `WINDOW_HORIZON_MS`: an always-open window never closes, a window with no open hour left never opens). Works on
 * local wall time, so a 09:00 opening is 09:00 on both sides of a DST change, and a range past midnight stays one
 * stretch.
 */
export function windowStateAt(w: CallingWindow, timeZone: string, nowMs: number): WindowState {
  // Look a little way first: nearly every answer lies within days.
  for (const span of [9 * DAY_MS, 60 * DAY_MS, WINDOW_HORIZON_MS]) {
    const until = nowMs + span;
    const state = stateOfIntervals(openIntervals(w, timeZone, nowMs, until), nowMs, until);
    if (state.changesAt !== null || span === WINDOW_HORIZON_MS) return state;
  }
  return { open: false, changesAt: null };
}
