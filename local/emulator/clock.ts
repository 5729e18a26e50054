/**
 * Simulated time. It runs `speed` times faster than real time (0 freezes it) and can be set or advanced. Work
 * that should happen later is queued on the clock; queued events run in time order, each seeing its own time as
 * "now", so advancing three days plays those three days out exactly as they would have unfolded.
 */
interface Pending {
  at: number;
  seq: number;
  run: () => void;
  cancelled: boolean;
}

export interface Timer {
  cancel(): void;
}

const MAX_TIMEOUT = 2 ** 31 - 1;

export class SimClock {
  private anchorSim: number;
  private anchorReal: number;
  private eventTime: number | null = null;
  private readonly queue: Pending[] = [];
  private seq = 0;
  private timer: NodeJS.Timeout | null = null;
  private draining = false;
  private stopped = false;

  constructor(
    start: number,
    private speedFactor: number,
    /** Reports an event that threw, so one bad event never stalls the clock. */
    private readonly onError: (err: unknown) => void = (err) => console.error('emulator event failed:', err),
  ) {
    this.anchorSim = start;
    this.anchorReal = Date.now();
  }

  get speed(): number {
    return this.speedFactor;
  }

  now(): number {
    if (this.eventTime !== null) return this.eventTime;
    return this.freeRunning();
  }

  private freeRunning(): number {
    return Math.floor(this.anchorSim + (Date.now() - this.anchorReal) * this.speedFactor);
  }

  iso(): string {
    return new Date(this.now()).toISOString();
  }

  /** Moves the clock to `time` and plays every event due by then. Time never runs backwards. */
  set(time: number): void {
    if (time < this.now()) throw new RangeError('the clock cannot go backwards');
    this.anchorSim = time;
    this.anchorReal = Date.now();
    this.drain();
  }

  advance(ms: number): void {
    this.set(this.now() + ms);
  }

  setSpeed(speed: number): void {
    this.anchorSim = this.freeRunning();
    this.anchorReal = Date.now();
    this.speedFactor = speed;
    this.arm();
  }

  at(time: number, run: () => void): Timer {
    const p: Pending = { at: Math.max(time, this.now()), seq: this.seq++, run, cancelled: false };
    // Binary insertion keeps the queue sorted by (time, order of scheduling).
    let lo = 0;
    let hi = this.queue.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      const m = this.queue[mid] as Pending;
      if (m.at < p.at || (m.at === p.at && m.seq < p.seq)) lo = mid + 1;
      else hi = mid;
    }
    this.queue.splice(lo, 0, p);
    if (lo === 0 && !this.draining) this.arm();
    return {
      cancel: () => {
        p.cancelled = true;
      },
    };
  }

  after(ms: number, run: () => void): Timer {
    return this.at(this.now() + ms, run);
  }

  /** Drops every scheduled event (a reset account must not be acted on by what the old one scheduled). */
  cancelAll(): void {
    for (const p of this.queue) p.cancelled = true;
    this.queue.length = 0;
    this.arm();
  }

  pendingEvents(): number {
    return this.queue.filter((p) => !p.cancelled).length;
  }

  /** Runs every event due by the free-running time, in order. */
  drain(): void {
    if (this.draining || this.stopped) return;
    this.draining = true;
    try {
      const until = this.freeRunning();
      for (let next = this.queue[0]; next !== undefined && next.at <= until; next = this.queue[0]) {
        this.queue.shift();
        if (next.cancelled) continue;
        this.eventTime = next.at;
        try {
          next.run();
        } catch (err) {
          this.onError(err);
        } finally {
          this.eventTime = null;
        }
      }
    } finally {
      this.draining = false;
    }
    this.arm();
  }

  private arm(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const next = this.queue[0];
    if (!next || this.speedFactor <= 0 || this.stopped) return;
    const delay = Math.min(MAX_TIMEOUT, Math.max(0, (next.at - this.freeRunning()) / this.speedFactor));
    this.timer = setTimeout(() => this.drain(), delay);
    this.timer.unref();
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
  }
}
