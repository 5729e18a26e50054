import { AsyncLocalStorage } from 'node:async_hooks';
import { type RequestTiming, realTiming } from '#commons/voice-api/http.ts';
import type { Clock } from '#commons/voice-api/rate-limiter.ts';
import type { HoldAnswer } from '#local/emulator/server.ts';
import type { SettableClock, SimScheduler } from './sim-scheduler.ts';

/** Which of the scheduler's actors (an execution, the guard, the contact queue) the current work belongs to. */
const actors = new AsyncLocalStorage<string>();

/** Runs `work` as the scheduler's actor `id`: a wait inside it is that actor's sleep (SimScheduler.waitUntil). */
export function asActor<T>(id: string, work: () => Promise<T>): Promise<T> {
  return actors.run(id, work);
}

/**
 * `handler` with each invocation an actor of the scheduler (`<name>:<n>`), as a function in AWS takes seconds:
 * time stands still while it works, and its waits are its sleeps. `handler` itself when there is no scheduler.
 */
export function invocationsAsActors<A extends unknown[], R>(
  scheduler: SimScheduler | null,
  name: string,
  handler: (...args: A) => Promise<R>,
): (...args: A) => Promise<R> {
  if (!scheduler) return handler;
  let invocations = 0;
  return (...args) => {
    const id = `${name}:${++invocations}`;
    scheduler.join(id);
    return asActor(id, () => handler(...args)).finally(() => scheduler.leave(id));
  };
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

const realSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** `ms` as the sleep of `actor` when the scheduler knows it; in real time otherwise (nothing would move the clock). */
function sleepAs(scheduler: SimScheduler, actor: unknown, ms: number): Promise<void> {
  return typeof actor === 'string' && scheduler.has(actor)
    ? scheduler.waitUntil(scheduler.now() + ms, actor)
    : realSleep(ms);
}

/**
 * The Voice API client's clock on the stack: the scheduler's time, and a back-off that is the waiting actor's sleep,
 * so a retried 500 takes simulated seconds and no real ones. Outside any actor (intake while the run sets up) it
 * sleeps in real time, as `simulatedRequests` does.
 */
export function actorClock(scheduler: SimScheduler): Clock {
  return {
    now: () => scheduler.now(),
    sleep: async (ms) => {
      if (ms > 0) await sleepAs(scheduler, actors.getStore(), ms);
    },
  };
}

/** Names the actor a request to the emulator is made for (only ever sent to the embedded stack's own emulator). */
export const ACTOR_HEADER = 'x-callsheet-actor';

/**
 * Requests to an emulator on the scheduler's clock, as a workflow lives them: a request made inside an actor names
 * it (ACTOR_HEADER) and its time limit is a timer on the simulated clock; the emulator holds a delayed answer
 * (`holdAnswer`) as that actor's sleep, so a 45 s answer takes 45 simulated seconds and no real ones, others work
 * on meanwhile, and a limit shorter than the hold ends it (the actor wakes to a timeout, as it would for real). A
 * 429's `Retry-After` (seconds of the emulator's clock until its window resets) is likewise the actor's sleep.
 * Requests made outside any actor (intake while the run sets up, another shell) keep real time: nothing would move
 * the clock for them while an actor that waits on them works. (Each outcomes queue invocation is an actor.)
 */
export function simulatedRequests(scheduler: SimScheduler): {
  timing: RequestTiming;
  holdAnswer: HoldAnswer;
} {
  return {
    timing: {
      start(timeoutMs) {
        const actor = actors.getStore();
        if (actor === undefined || !scheduler.has(actor)) return realTiming.start(timeoutMs);
        const controller = new AbortController();
        const done = scheduler.timer(scheduler.now() + timeoutMs, () => {
          controller.abort(new DOMException(`no answer within ${timeoutMs} ms`, 'TimeoutError'));
          scheduler.wake(actor);
          return null;
        });
        return { signal: controller.signal, headers: { [ACTOR_HEADER]: actor }, done };
      },
      // A rate limit's reset (Retry-After) comes in the emulator's time: the actor sleeps until it.
      wait: (ms) => sleepAs(scheduler, actors.getStore(), ms),
    },
    holdAnswer: (ms, headers, late, finished) => {
      const actor = headers[ACTOR_HEADER];
      if (late && typeof actor === 'string' && scheduler.has(actor)) {
        // A request held before it is carried out is work of its own: it goes on when its asker gives up, and time
        // stands still until it is done. The asker sleeps meanwhile, as for any held answer, so its time limit can
        // end the wait.
        void sleepAs(scheduler, actor, ms).catch(() => undefined);
        return scheduler.workAt(scheduler.now() + ms, finished ?? Promise.resolve());
      }
      return sleepAs(scheduler, actor, ms);
    },
  };
}
