import { type SettableClock, SimScheduler } from './sim-scheduler.ts';

/** A clock that runs by itself, `speed` simulated milliseconds per real one (the emulator's free-running clock). */
export interface RunningClock extends SettableClock {
  readonly speed: number;
}

/**
 * Simulated time for a long-running stack (`callsheet local --speed X`): unlike SimScheduler, which jumps the clock
 * as soon as every execution waits, time here runs on by itself at a fixed pace, so an operator (or the AWS CLI) can
 * act between two steps. Each Wait ends when the running clock reaches its instant; timers (execution timeouts, the
 * sweeper) fire the same way. Nothing is held back: several executions wait and wake independently.
 */
export class PacedScheduler extends SimScheduler {
  private readonly wakeAt = new Map<string, number>();
  private readonly pending = new Set<NodeJS.Timeout>();

  constructor(private readonly running: RunningClock) {
    super(running);
    if (!(running.speed > 0)) throw new RangeError('a paced clock must run (speed > 0)');
  }

  override join(_id: string): void {}

  override leave(id: string): void {
    this.wakeAt.delete(id);
  }

  override sleep(id: string, wakeAt: number): void {
    this.wakeAt.set(id, wakeAt);
  }

  override async gate(id: string): Promise<void> {
    const at = this.wakeAt.get(id);
    this.wakeAt.delete(id);
    if (at !== undefined) await this.until(at);
  }

  override async at(at: number, action: () => Promise<void>): Promise<void> {
    await this.until(at);
    await action();
  }

  override async waitUntil(at: number): Promise<void> {
    await this.until(at);
  }

  override timer(at: number, action: () => unknown, everyMs?: number, idle?: () => boolean): () => void {
    let cancelled = false;
    let next = at;
    let idleUntil: unknown = null;
    const loop = async (): Promise<void> => {
      await this.until(next);
      if (cancelled) return;
      // A tick within the last idle answer is skipped while nothing changed (asked now, as SimScheduler does).
      const skip = typeof idleUntil === 'number' && this.running.now() < idleUntil && (idle?.() ?? true);
      if (!skip)
        idleUntil = await Promise.resolve()
          .then(action)
          .catch(() => null);
      if (!everyMs || cancelled) return;
      next = Math.max(next + everyMs, this.running.now());
      void loop();
    };
    void loop();
    return () => {
      cancelled = true;
    };
  }

  override every(everyMs: number, action: () => unknown, idle?: () => boolean): () => void {
    return this.timer(this.running.now() + everyMs, action, everyMs, idle);
  }

  /** Stops every pending wake-up (the stack is closing). */
  stop(): void {
    for (const t of this.pending) clearTimeout(t);
    this.pending.clear();
  }

  /** Resolves once the running clock has reached `at` (rechecked, as the clock may also be set forward). */
  private until(at: number): Promise<void> {
    return new Promise((resolve) => {
      const check = () => {
        const left = at - this.running.now();
        if (left <= 0) {
          resolve();
          return;
        }
        const t = setTimeout(
          () => {
            this.pending.delete(t);
            check();
          },
          Math.min(2 ** 31 - 1, Math.max(1, Math.ceil(left / this.running.speed))),
        );
        t.unref();
        this.pending.add(t);
      };
      check();
    });
  }
}
