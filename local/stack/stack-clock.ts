import { AsyncLocalStorage } from 'node:async_hooks';
import type { Clock } from '#commons/voice-api/rate-limiter.ts';
import type { SettableClock, SimScheduler } from './sim-scheduler.ts';

/** Which of the scheduler's actors (an execution, the guard, the contact queue) the current work belongs to. */
const actors = new AsyncLocalStorage<string>();

/** Runs `work` as the scheduler's actor `id`: a wait inside it is that actor's sleep (SimScheduler.waitUntil). */
export function asActor<T>(id: string, work: () => Promise<T>): Promise<T> {
  return actors.run(id, work);
}

/**
 * The clock the stack's handlers wait on (the API budget's waits, the client's back-off), on simulated time: with
 * a scheduler, a wait is a sleep of the actor waiting, so the discrete-event clock moves past it only when everyone
 * else waits too, and nothing wakes late; without one (a test driving the clock by hand) the clock jumps ahead.
 */
export function stackClock(clock: SettableClock, scheduler: SimScheduler | null): Clock {
  return {
    now: () => clock.now(),
    sleep: async (ms) => {
      if (!(ms > 0)) return;
      const at = clock.now() + ms;
      if (scheduler) await scheduler.waitUntil(at, actors.getStore());
      else if (at > clock.now()) clock.set(at);
    },
  };
}
