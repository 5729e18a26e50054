export interface PollBounds {
  minSeconds: number;
  maxSeconds: number;
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
  if (!previous) return bounds.minSeconds * 2;
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
