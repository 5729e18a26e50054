/**
 * Wall-clock time in IANA time zones, exact for every zone: offsets beyond ±12 h (Pacific/Chatham +13:45,
 * Pacific/Kiritimati +14), half-hour DST (Australia/Lord_Howe), spring-forward gaps and fall-back overlaps.
 *
 * The zone data is the runtime's own (ICU via Intl), read through `tzOffset` from `@date-fns/tz`. Chosen by
 * measurement against `@js-temporal/polyfill` for the lifecycle Lambda: esbuild bundle 4.8 KB and about +10 ms cold
 * start, against 154 KB and +30–60 ms. Only `tzOffset` is used: `TZDate` resolves a fall-back overlap
 * inconsistently (the earlier instant in New York, the later in Sydney and Lord Howe) and `tzScan` steps a month,
 * then a day, then an hour, so it places Lord Howe's half-hour change at the wrong instant. Here every offset change
 * is found by sampling hourly and bisecting to the millisecond.
 */
import { tzOffset } from '@date-fns/tz';

export interface WallTime {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;

/** Offset of `timeZone` from UTC at `epochMs`, in milliseconds (east positive). Throws for an unknown zone. */
export function zoneOffsetMs(epochMs: number, timeZone: string): number {
  const minutes = tzOffset(timeZone, new Date(epochMs));
  if (!Number.isFinite(minutes)) throw new RangeError(`"${timeZone}" is not an IANA time zone`);
  // Local mean time before 1900 has offsets in seconds; tzOffset gives those as fractions of a minute.
  return Math.round(minutes * 60_000);
}

/**
 * Whether the runtime's zone data knows `timeZone`. Asked of the zone's own formatter, which its offsets then use:
 * listing every zone the runtime knows (`Intl.supportedValuesOf`) costs more than the few zones a run meets.
 */
export function isTimeZone(timeZone: string): boolean {
  try {
    zoneOffsetMs(0, timeZone);
    return true;
  } catch {
    return false;
  }
}

/** The wall-clock reading in `timeZone` at the instant `epochMs`. */
export function wallTimeAt(epochMs: number, timeZone: string): WallTime {
  const d = new Date(Math.floor(epochMs / 1000) * 1000 + zoneOffsetMs(epochMs, timeZone));
  return {
    year: d.getUTCFullYear(),
    month: d.getUTCMonth() + 1,
    day: d.getUTCDate(),
    hour: d.getUTCHours(),
    minute: d.getUTCMinutes(),
    second: d.getUTCSeconds(),
  };
}

/** A stretch of time with one offset: instants `from` ≤ t < `to` show wall time t + offsetMs. */
export interface OffsetSegment {
  from: number;
  to: number;
  offsetMs: number;
}

interface DayOffsets {
  /** Offset at the start of the UTC day. */
  start: number;
  /** Offset changes within the day: the first instant with the new offset. */
  changes: { at: number; offsetMs: number }[];
}

const dayCache = new Map<string, DayOffsets>();
const DAY_CACHE_LIMIT = 50_000;

/**
 * The offsets of one UTC day. A day whose offset is the same at its start, middle and end has no change (no zone in
 * the tz database changes its offset and back within 12 hours); any other day is sampled hourly and each change
 * bisected to the millisecond: exact as long as a zone never changes its offset twice within an hour, which none does.
 * The quick look matters: most days of most zones have no change, and each sample is an ICU lookup.
 */
function dayOffsets(timeZone: string, day: number): DayOffsets {
  const key = `${timeZone}|${day}`;
  const cached = dayCache.get(key);
  if (cached) return cached;
  const from = day * DAY_MS;
  const out: DayOffsets = { start: zoneOffsetMs(from, timeZone), changes: [] };
  if (zoneOffsetMs(from + DAY_MS / 2, timeZone) === out.start && zoneOffsetMs(from + DAY_MS, timeZone) === out.start) {
    if (dayCache.size >= DAY_CACHE_LIMIT) dayCache.clear();
    dayCache.set(key, out);
    return out;
  }
  let lo = from;
  let before = out.start;
  for (let hi = from + HOUR_MS; hi <= from + DAY_MS; hi += HOUR_MS) {
    const after = zoneOffsetMs(hi, timeZone);
    if (after !== before) {
      // Invariant: offset(a) = before, offset(b) = after.
      let a = lo;
      let b = hi;
      while (b - a > 1) {
        const mid = Math.floor((a + b) / 2);
        if (zoneOffsetMs(mid, timeZone) === before) a = mid;
        else b = mid;
      }
      // A change exactly at the next midnight belongs to the next day.
      if (b < from + DAY_MS) out.changes.push({ at: b, offsetMs: after });
    }
    lo = hi;
    before = after;
  }
  if (dayCache.size >= DAY_CACHE_LIMIT) dayCache.clear();
  dayCache.set(key, out);
  return out;
}

/** The stretches of constant offset that cover [from, to), in order. */
export function offsetSegments(timeZone: string, from: number, to: number): OffsetSegment[] {
  const segments: OffsetSegment[] = [];
  if (!(to > from)) return segments;
  let current: OffsetSegment = { from, to, offsetMs: zoneOffsetMs(from, timeZone) };
  for (let day = Math.floor(from / DAY_MS); day * DAY_MS < to; day++) {
    const offsets = dayOffsets(timeZone, day);
    // A change exactly at midnight UTC is the day's starting offset, not one of its changes.
    const midnight = day * DAY_MS;
    if (midnight > from && offsets.start !== current.offsetMs) {
      current.to = midnight;
      segments.push(current);
      current = { from: midnight, to, offsetMs: offsets.start };
    }
    for (const change of offsets.changes) {
      if (change.at <= from || change.at >= to || change.offsetMs === current.offsetMs) continue;
      current.to = change.at;
      segments.push(current);
      current = { from: change.at, to, offsetMs: change.offsetMs };
    }
  }
  segments.push(current);
  return segments;
}

/** Milliseconds since the epoch of a wall time read as if it were UTC ("naive"). */
const naiveMs = (w: WallTime) => Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute, w.second);

/**
 * The instant at which `timeZone` shows the given wall time. A wall time shown twice (fall-back overlap) maps to the
 * first instant; one skipped by a spring-forward gap is read with the offset before the gap, i.e. moved later by the
 * gap's length (02:30 on a New York spring-forward day is 03:30 EDT), as Temporal's "compatible" choice does.
 */
export function instantOfWallTime(w: WallTime, timeZone: string): number {
  const naive = naiveMs(w);
  // Most wall times lie far from any offset change: the same offset 12 and 24 hours either side (no zone changes its
  // offset and back within 12 hours) means no gap or overlap can hold this wall time.
  const offset = zoneOffsetMs(naive, timeZone);
  if (
    [naive - DAY_MS, naive - DAY_MS / 2, naive + DAY_MS / 2, naive + DAY_MS].every(
      (t) => zoneOffsetMs(t, timeZone) === offset,
    )
  )
    return naive - offset;
  // Offsets lie within ±15 h, so every instant showing this wall time lies within a day of it.
  const segments = offsetSegments(timeZone, naive - DAY_MS, naive + DAY_MS);
  for (const s of segments) {
    const t = naive - s.offsetMs;
    if (t >= s.from && t < s.to) return t;
  }
  // In a gap: the last segment whose wall clock has not yet reached it holds the offset before the jump.
  let before = segments[0] as OffsetSegment;
  for (const s of segments) if (s.from + s.offsetMs <= naive) before = s;
  return naive - before.offsetMs;
}

const LOCAL_ISO = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?$/;

/**
 * Reads an ISO 8601 date-time; one without an offset is a wall time in `timeZone`. Answers NaN when unreadable.
 */
export function parseDateTimeIn(value: string, timeZone: string | null): number {
  const m = LOCAL_ISO.exec(value.trim());
  if (m && timeZone) {
    const [, y, mo, d, h, mi, s] = m;
    return instantOfWallTime(
      {
        year: +(y as string),
        month: +(mo as string),
        day: +(d as string),
        hour: +(h as string),
        minute: +(mi as string),
        second: +(s ?? 0),
      },
      timeZone,
    );
  }
  return Date.parse(value);
}
