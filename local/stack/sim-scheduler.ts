/** The shared simulated clock the scheduler moves (the emulator's). */
export interface SettableClock {
  now(): number;
  set(time: number): void;
}

interface Actor {
  /** When this execution's current Wait ends; null while it is working. */
  wakeAt: number | null;
  release: (() => void) | null;
}

/**
 * Discrete-event time for local executions: Wait states take no real time; instead, once every running execution
 * is waiting, the clock jumps to the earliest wake-up and releases whoever wakes then. The emulator's dialer plays
 * out everything that happens in between, so three simulated days pass in seconds, deterministically.
 */
/**
 * Something due at a simulated instant that does not by itself keep time moving: an execution's timeout, the
 * sweeper's next round. It fires when the clock would otherwise pass it, while someone is still waiting.
 */
interface Timer {
  at: number;
  /** May answer an instant before which a repeating timer has nothing to do: the ticks until then are skipped. */
  action: () => Promise<number | null | undefined> | number | null | undefined;
  /** Fires again this long after each run (the sweeper); once when absent. */
  everyMs?: number;
  /** The last run's answer: its ticks before this instant are skipped while `idle` says nothing has changed. */
  idleUntil?: number;
  idle?: () => boolean;
}

export class SimScheduler {
  private readonly actors = new Map<string, Actor>();
  private readonly timers = new Set<Timer>();
  private firing = false;
  private waitSeq = 0;
  /** Each actor's last wait inside work (waitUntil), which the next one follows. */
  private readonly waits = new Map<string, Promise<void>>();

  constructor(private readonly clock: SettableClock) {}

  /** The simulated time now. */
  now(): number {
    return this.clock.now();
  }

  join(id: string): void {
    if (!this.actors.has(id)) this.actors.set(id, { wakeAt: null, release: null });
  }

  /** `id` is no longer one of the actors; whatever waits at its gate goes on now (its execution has ended). */
  leave(id: string): void {
    const release = this.actors.get(id)?.release;
    this.actors.delete(id);
    release?.();
    this.advance();
  }

  /** Whether `id` is one of the actors time waits for. */
  has(id: string): boolean {
    return this.actors.has(id);
  }

  /**
   * Ends an actor's sleep now rather than at its wake-up: what it waited for came sooner (its held request timed
   * out). It works on at the present time, and time stands still until it waits again.
   */
  wake(id: string): void {
    const actor = this.actors.get(id);
    if (!actor?.release) return;
    const release = actor.release;
    actor.wakeAt = null;
    actor.release = null;
    release();
  }

  /** A Wait state was entered: this execution sleeps until `wakeAt`. */
  sleep(id: string, wakeAt: number): void {
    this.join(id);
    const actor = this.actors.get(id) as Actor;
    // No advance here: the execution reaches its next task's gate (which advances) right after the Wait.
    actor.wakeAt = Math.max(wakeAt, this.clock.now());
  }

  /** Called before each task: resolves once this execution's wait (if any) is over. */
  gate(id: string): Promise<void> {
    const actor = this.actors.get(id);
    if (!actor || actor.wakeAt === null) return Promise.resolve();
    return new Promise<void>((resolve) => {
      actor.release = resolve;
      this.advance();
    });
  }

  /**
   * Runs `action` at simulated time `at`, as one more actor: time does not pass `at` before it has run. Used
   * to script what an operator does during a run (pause at 10:00, resume at 14:00). The action is chained straight
   * onto the wake-up: run a few turns later (through another async helper), the stops in the fault rehearsals came
   * after the workflows woken at the same instant had acted, and six of them failed.
   */
  at(at: number, action: () => Promise<void>): Promise<void> {
    const id = `timer:${at}:${Math.random()}`;
    this.join(id);
    this.sleep(id, at);
    return this.gate(id)
      .then(action)
      .finally(() => this.leave(id));
  }

  /**
   * Work of its own that starts at `at` (a request the emulator holds before carrying it out): an actor that sleeps
   * until then, and that time waits for until `done` settles.
   */
  async workAt(at: number, done: Promise<void>): Promise<void> {
    const id = `work:${++this.waitSeq}`;
    this.join(id);
    this.sleep(id, at);
    try {
      await this.gate(id);
    } catch (err) {
      this.leave(id);
      throw err;
    }
    void done.finally(() => this.leave(id));
  }

  /**
   * A wait inside work (an API budget's wait, a retry's back-off): the actor doing it (`actor`, from
   * stack-clock.ts) sleeps as in a Wait state and works on at `at`, so time moves only once everyone else waits
   * too. One actor's waits take turns. Outside any actor (intake's budget wait while `run` sets up) the wait is an
   * actor of its own, gone once the waiter has gone on; inside a timer, whose run holds time still, the clock
   * itself moves (the callers there wait seconds at most).
   */
  async waitUntil(at: number, actor?: string): Promise<void> {
    if (this.firing) {
      if (at > this.clock.now()) this.clock.set(at);
      return;
    }
    if (actor === undefined || !this.actors.has(actor)) {
      const id = `wait:${++this.waitSeq}`;
      this.join(id);
      this.sleep(id, at);
      try {
        await this.gate(id);
      } finally {
        // Time stands still until the waiter has gone on from its wake-up; what it does then is not tracked.
        setImmediate(() => this.leave(id));
      }
      return;
    }
    const turn = (this.waits.get(actor) ?? Promise.resolve()).then(async () => {
      if (at <= this.clock.now()) return;
      this.sleep(actor, at);
      await this.gate(actor);
    });
    const settled = turn.catch(() => undefined);
    this.waits.set(actor, settled);
    void settled.then(() => {
      if (this.waits.get(actor) === settled) this.waits.delete(actor);
    });
    await turn;
  }

  /** Runs `action` at simulated time `at` if anyone is still waiting then; answers a cancel function. */
  timer(at: number, action: Timer['action'], everyMs?: number, idle?: () => boolean): () => void {
    const t: Timer = { at, action, ...(everyMs ? { everyMs } : {}), ...(idle ? { idle } : {}) };
    this.timers.add(t);
    return () => {
      this.timers.delete(t);
    };
  }

  /**
   * While anyone waits, runs `action` every `everyMs` of simulated time (the sweeper's schedule). The ticks before
   * the instant an action answers are skipped, unless `idle` (asked when a tick is due) says something changed.
   */
  every(everyMs: number, action: Timer['action'], idle?: () => boolean): () => void {
    return this.timer(this.clock.now() + everyMs, action, everyMs, idle);
  }

  /**
   * When a timer fires next: its next tick not yet past, or the first one at or after its idle answer while that
   * holds (a skipped stretch that `idle` ends resumes at the next tick, as the schedule would have it).
   */
  private dueAt(t: Timer): number {
    if (!t.everyMs) return t.at;
    const now = this.clock.now();
    const from = t.idleUntil !== undefined && (t.idle?.() ?? true) ? Math.max(t.idleUntil, now) : now;
    return from <= t.at ? t.at : t.at + Math.ceil((from - t.at) / t.everyMs) * t.everyMs;
  }

  /** When the first waiting actor wakes (nothing changes before then), or null while one is working. */
  nextWake(): number | null {
    const actors = [...this.actors.values()];
    if (actors.length === 0 || actors.some((a) => a.wakeAt === null)) return null;
    return Math.min(...actors.map((a) => a.wakeAt as number));
  }

  private advance(): void {
    const actors = [...this.actors.values()];
    // Someone is working (or has not reached its gate yet), or a timer is running: time stands still.
    if (this.firing || actors.some((a) => a.release === null)) return;
    const next = this.nextWake();
    if (next === null) return;
    const due = [...this.timers]
      .map((t) => ({ t, at: this.dueAt(t) }))
      .filter((d) => d.at <= next)
      .sort((a, b) => a.at - b.at)[0];
    if (due) {
      this.fire(due.t, due.at);
      return;
    }
    if (next > this.clock.now()) this.clock.set(next);
    for (const a of actors) {
      if ((a.wakeAt as number) <= next) {
        const release = a.release as () => void;
        a.wakeAt = null;
        a.release = null;
        release();
      }
    }
  }

  /** Moves the clock to the timer, runs it with time standing still, then lets time go on. */
  private fire(t: Timer, at: number): void {
    if (at > this.clock.now()) this.clock.set(at);
    if (t.everyMs) {
      while (t.at <= this.clock.now()) t.at += t.everyMs;
      delete t.idleUntil;
    } else {
      this.timers.delete(t);
    }
    this.firing = true;
    void Promise.resolve()
      .then(t.action)
      .then((idleUntil) => {
        if (t.everyMs && typeof idleUntil === 'number') t.idleUntil = idleUntil;
      })
      .catch(() => undefined)
      .finally(() => {
        this.firing = false;
        this.advance();
      });
  }
}
