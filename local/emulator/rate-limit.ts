import type { EmulatorSettings } from './state.ts';

/** The account's request counts in its current fixed windows (simulated epoch ms). */
export interface RateWindows {
  start: number;
  count: number;
  hourStart?: number;
  hourCount?: number;
}

export interface RateDecision {
  headers: Record<string, string>;
  exceeded: boolean;
  /** Which window refused the request (for the 429's message). */
  window?: 'minute' | 'hour';
}

const MINUTE = 60_000;
const HOUR = 3_600_000;

/** The hour limit in force: as set, or ten times the minute limit (the contract's first tier: 100 → 1,000). */
export const hourLimit = (s: Pick<EmulatorSettings, 'rateLimitPerMinute' | 'rateLimitPerHour'>): number =>
  s.rateLimitPerHour ?? s.rateLimitPerMinute * 10;

/**
 * The plan's limits: one fixed minute and one fixed hour window per API key over every developer path; a request
 * counts in both when it is let through. The headers describe the window closest to running out (the minute on a
 * tie); a 429 names the window that is full, with `Retry-After` until it resets (in real seconds when the clock runs
 * faster than real time). A limit of 0 turns its window off.
 */
export function rateLimit(
  settings: Pick<EmulatorSettings, 'rateLimitPerMinute' | 'rateLimitPerHour'>,
  w: RateWindows,
  now: number,
  speed: number,
): RateDecision {
  const minuteStart = Math.floor(now / MINUTE) * MINUTE;
  const hourStart = Math.floor(now / HOUR) * HOUR;
  if (w.start !== minuteStart) {
    w.start = minuteStart;
    w.count = 0;
  }
  if (w.hourStart !== hourStart) {
    w.hourStart = hourStart;
    w.hourCount = 0;
  }
  const windows = [
    { name: 'minute' as const, limit: settings.rateLimitPerMinute, used: w.count, end: minuteStart + MINUTE },
    { name: 'hour' as const, limit: hourLimit(settings), used: w.hourCount ?? 0, end: hourStart + HOUR },
  ].filter((x) => x.limit > 0);
  if (windows.length === 0) return { headers: {}, exceeded: false };
  const full = windows.find((x) => x.used >= x.limit);
  const headersOf = (x: (typeof windows)[number], remaining: number): Record<string, string> => ({
    'X-RateLimit-Limit': String(x.limit),
    'X-RateLimit-Remaining': String(Math.max(0, remaining)),
    'X-RateLimit-Reset': String(Math.ceil(x.end / 1000)),
  });
  if (full) {
    const retryAfter = Math.max(1, Math.ceil((full.end - now) / 1000 / Math.max(1, speed)));
    return {
      exceeded: true,
      window: full.name,
      headers: { ...headersOf(full, 0), 'Retry-After': String(retryAfter) },
    };
  }
  w.count++;
  w.hourCount = (w.hourCount ?? 0) + 1;
  let binding = windows[0] as (typeof windows)[number];
  for (const x of windows) if (x.limit - (x.used + 1) < binding.limit - (binding.used + 1)) binding = x;
  return { exceeded: false, headers: headersOf(binding, binding.limit - (binding.used + 1)) };
}
