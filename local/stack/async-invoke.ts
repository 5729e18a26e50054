import { setTimeout as delay } from 'node:timers/promises';
import type { SimScheduler } from './sim-scheduler.ts';

/**
 * Lambda's waits before the retries of an asynchronous invocation that threw: one minute before the second attempt,
 * two before the third ("How Lambda handles errors and retries with asynchronous invocation", AWS Lambda guide).
 */
export const ASYNC_RETRY_WAITS_MS = [60_000, 120_000] as const;

/**
 * Runs `invoke` as Lambda runs an asynchronous invocation (an EventBridge target): one that throws is run again up
 * to `retries` times, after the waits above, each a `sleep` on the stack's clock. `retrying` hears each failure
 * that will be tried again; the last failure is thrown.
 */
export async function invokeAsync<T>(
  invoke: () => Promise<T>,
  retries: number,
  sleep: (ms: number) => Promise<void>,
  retrying: (err: unknown, attempt: number, waitMs: number) => void,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await invoke();
    } catch (err) {
      if (attempt > retries) throw err;
      const waitMs = ASYNC_RETRY_WAITS_MS[Math.min(attempt, ASYNC_RETRY_WAITS_MS.length) - 1] as number;
      retrying(err, attempt, waitMs);
      await sleep(waitMs);
    }
  }
}

/**
 * One promise per signal, settled when it aborts: every guard of a run waits on the stack's one `closing` signal, and
 * a listener each would pile up on it for the whole run (Node warns of a leak past ten).
 */
const closedBySignal = new WeakMap<AbortSignal, Promise<void>>();
function closedOf(signal: AbortSignal): Promise<void> {
  let closed = closedBySignal.get(signal);
  if (!closed) {
    closed = new Promise<void>((resolve) =>
      signal.aborted ? resolve() : signal.addEventListener('abort', () => resolve(), { once: true }),
    );
    closedBySignal.set(signal, closed);
  }
  return closed;
}

/**
 * A retry's wait for actor `id`: a sleep on the simulated clock as a Wait state's is (so a timer firing meanwhile
 * cannot make the clock jump over the others' wake-ups), or in real time without a scheduler. `closing` cuts it
 * short: the retry then runs at once (a closing stack still lets its guard secure the campaign).
 */
export function retryWait(
  scheduler: SimScheduler | null,
  id: string,
  closing: AbortSignal,
): (ms: number) => Promise<void> {
  const closed = closedOf(closing);
  return async (ms) => {
    if (scheduler) scheduler.sleep(id, scheduler.now() + ms);
    await Promise.race([scheduler ? scheduler.gate(id) : delay(ms, undefined, { ref: false }), closed]);
    if (closing.aborted) scheduler?.wake(id);
  };
}
