import type { EnvReader } from './config.ts';

/**
 * How often one number may be called across every campaign. A campaign that includes a number reserves the calls
 * it may place to it (1 + its retries) when the number is admitted; the reservation counts in the rolling day
 * and week that follow. Counting what may happen, not what did, keeps the cap true even when every retry dials.
 */
export interface CapLimits {
  /** Calls to one number in any 24 hours. */
  perDay: number;
  /** Calls to one number in any 7 days. */
  perWeek: number;
}

/** Defaults (docs/architecture.md, "Call outcomes"): one campaign with up to two retries a day, seven calls a week. */
export const DEFAULT_CAP_LIMITS: CapLimits = { perDay: 3, perWeek: 7 };

const DAY_MS = 24 * 3600_000;
const WEEK_MS = 7 * DAY_MS;

/** One admitted reservation: who asked (`key`, e.g. the part or campaign), when, and how many calls it may place. */
export interface CapEntry {
  key: string;
  at: string;
  calls: number;
}

export interface CapRequest {
  key: string;
  calls: number;
  at: Date;
}

export type CapDecision =
  | { admitted: true; alreadyCounted: boolean; day: number; week: number }
  | { admitted: false; reason: 'daily-cap' | 'weekly-cap'; message: string; day: number; week: number };

/** Calls counted within `ms` before `now` (an entry exactly `ms` old has left the window). */
function countWithin(entries: readonly CapEntry[], now: number, ms: number): number {
  let n = 0;
  for (const e of entries) {
    const at = Date.parse(e.at);
    if (at <= now && now - at < ms) n += e.calls;
  }
  return n;
}

/** The caps a number is held to, in the order they are checked: one home for their names, spans and settings. */
export const capWindows = (limits: CapLimits) =>
  [
    { reason: 'daily-cap', cap: limits.perDay, span: '24 hours', per: 'day', setting: 'CALL_CAP_PER_DAY' },
    { reason: 'weekly-cap', cap: limits.perWeek, span: '7 days', per: 'week', setting: 'CALL_CAP_PER_WEEK' },
  ] as const;

/**
 * Whether a number with these reservations may take `request.calls` more. The same key asking again is admitted
 * without counting twice (a retried intake must not lock a number out).
 */
export function capDecision(entries: readonly CapEntry[], request: CapRequest, limits: CapLimits): CapDecision {
  const now = request.at.getTime();
  const day = countWithin(entries, now, DAY_MS);
  const week = countWithin(entries, now, WEEK_MS);
  if (entries.some((e) => e.key === request.key)) return { admitted: true, alreadyCounted: true, day, week };
  const counted = { day, week };
  for (const w of capWindows(limits))
    if (counted[w.per] + request.calls > w.cap)
      return {
        admitted: false,
        reason: w.reason,
        message: `already ${counted[w.per]} call(s) booked in the last ${w.span}; ${request.calls} more would pass the cap of ${w.cap} a ${w.per}`,
        day,
        week,
      };
  return { admitted: true, alreadyCounted: false, day: day + request.calls, week: week + request.calls };
}

/** The entries still inside the weekly window, so a number's item never grows without bound. */
export const liveEntries = <T extends CapEntry>(entries: readonly T[], now: Date): T[] =>
  entries.filter((e) => now.getTime() - Date.parse(e.at) < WEEK_MS);

const parseCapLimit = (raw: string): number | { problem: string } =>
  /^\d+$/.test(raw) && Number(raw) >= 1 ? Number(raw) : { problem: 'a whole number of calls, at least 1' };

/** CALL_CAP_PER_DAY / CALL_CAP_PER_WEEK (whole numbers ≥ 1), the defaults above when unset. */
export function readCapLimits(env: EnvReader): CapLimits {
  const perDay = env.checked('CALL_CAP_PER_DAY', parseCapLimit) ?? DEFAULT_CAP_LIMITS.perDay;
  const perWeek = env.checked('CALL_CAP_PER_WEEK', parseCapLimit) ?? DEFAULT_CAP_LIMITS.perWeek;
  return { perDay, perWeek };
}
