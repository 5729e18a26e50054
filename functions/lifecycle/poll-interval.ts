import type { PollPlan } from '#commons/api-budget/poll-roll.ts';

export interface PollBounds {
  minSeconds: number;
  maxSeconds: number;
}

/**
 * The bounds for one of `pollers` parts sharing the plan's polls: no part looks more often than its share of the
 * plan allows (100 parts on 45 a minute and 375 an hour: every 960 s), which wins over POLL_MAX_SECONDS too.
 */
export function plannedBounds(bounds: PollBounds, pollers: number, plan: PollPlan | null): PollBounds {
  if (!plan || pollers < 1) return bounds;
  const spacing = (perWindow: number, seconds: number) => (perWindow > 0 ? (pollers * seconds) / perWindow : 0);
  const floor = Math.ceil(Math.max(spacing(plan.perMinute, 60), spacing(plan.perHour, 3600)));
  return { minSeconds: Math.max(bounds.minSeconds, floor), maxSeconds: Math.max(bounds.maxSeconds, floor) };
}

export interface PollMemory {
  /** Contacts finished (completed, failed, cancelled) at the last look, and when that was. */
  done: number;
  at: number;
  intervalSeconds: number;
}

/**
 * How long to wait before looking again: about half the time the current pace needs to finish (so completion is
 * noticed soon after it happens), doubling while nothing changes, and short once only calls in flight remain.
 */
export function nextInterval(
  previous: PollMemory | null,
  now: number,
  done: number,
  remaining: number,
  pending: number,
  bounds: PollBounds,
): number {
  const clamp = (s: number) => Math.min(bounds.maxSeconds, Math.max(bounds.minSeconds, Math.round(s)));
  if (!previous) return clamp(bounds.minSeconds * 2);
  const elapsed = (now - previous.at) / 1000;
  const finished = done - previous.done;
  let seconds: number;
  if (finished > 0 && elapsed > 0) {
    const eta = remaining / (finished / elapsed);
    seconds = eta / 2;
  } else {
    seconds = previous.intervalSeconds * 2;
  }
  // Nothing left to dial: the end is a few calls away, so look often.
  if (pending === 0) seconds = Math.min(seconds, Math.max(bounds.minSeconds, 60));
  return clamp(seconds);
}
