/** Wall-clock time in IANA time zones, with nothing but Intl (no tz database to ship or update). */

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    formatters.set(timeZone, f);
  }
  return f;
}

export interface WallTime {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

/** The wall-clock reading in `timeZone` at the instant `epochMs`. */
export function wallTimeAt(epochMs: number, timeZone: string): WallTime {
  const parts: Record<string, number> = {};
  for (const p of formatter(timeZone).formatToParts(new Date(epochMs))) {
    if (p.type !== 'literal') parts[p.type] = Number(p.value);
  }
  return {
    year: parts.year as number,
    month: parts.month as number,
    day: parts.day as number,
    hour: parts.hour as number,
    minute: parts.minute as number,
    second: parts.second as number,
  };
}

/** Offset of `timeZone` from UTC at `epochMs`, in milliseconds (east positive). */
export function zoneOffsetMs(epochMs: number, timeZone: string): number {
  const w = wallTimeAt(epochMs, timeZone);
  const asUtc = Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute, w.second);
  return asUtc - Math.floor(epochMs / 1000) * 1000;
}

/**
 * The instant at which `timeZone` shows the given wall time. A wall time skipped by a DST jump maps to the
 * instant after the jump; one that occurs twice maps to the first.
 */
export function instantOfWallTime(w: WallTime, timeZone: string): number {
  const naive = Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute, w.second);
  const before = naive - zoneOffsetMs(naive - 86_400_000 / 2, timeZone);
  const after = naive - zoneOffsetMs(naive + 86_400_000 / 2, timeZone);
  const candidates = [before, after].filter((t) => {
    const back = wallTimeAt(t, timeZone);
    return Date.UTC(back.year, back.month - 1, back.day, back.hour, back.minute, back.second) === naive;
  });
  if (candidates.length > 0) return Math.min(...candidates);
  return Math.max(before, after); // in a spring-forward gap: the first valid instant after it
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
