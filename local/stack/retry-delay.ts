/** One `Retry` entry of a Task state (Amazon States Language). */
export interface Retrier {
  ErrorEquals: string[];
  IntervalSeconds?: number;
  MaxAttempts?: number;
  BackoffRate?: number;
  MaxDelaySeconds?: number;
}

/**
 * How long Step Functions waits before retrying a task that failed with `errorName`, given the attempts each
 * retrier has made so far (counted here, as the service counts them): null when no retrier takes the error or
 * the one that does has run out. Matches as the service does: the first retrier naming the error, `States.ALL`
 * or `States.TaskFailed`. The service's FULL jitter picks a wait up to this one; the simulation waits it whole.
 */
export function retryDelayMs(retriers: readonly Retrier[], errorName: string, attempts: number[]): number | null {
  for (let i = 0; i < retriers.length; i++) {
    const r = retriers[i] as Retrier;
    const matches = r.ErrorEquals.some(
      (e) => e === errorName || e === 'States.ALL' || (e === 'States.TaskFailed' && errorName !== 'States.Timeout'),
    );
    if (!matches) continue;
    const made = attempts[i] ?? 0;
    if (made >= (r.MaxAttempts ?? 3)) return null;
    attempts[i] = made + 1;
    const seconds = (r.IntervalSeconds ?? 1) * (r.BackoffRate ?? 2) ** made;
    return Math.min(seconds, r.MaxDelaySeconds ?? Number.POSITIVE_INFINITY) * 1000;
  }
  return null;
}
