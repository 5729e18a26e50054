export interface Clock {
  now(): number;
  sleep(ms: number): Promise<void>;
}

export const realClock: Clock = {
  now: () => Date.now(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};

/**
 * What the client asks before each request and tells after each answer. The per-process RateLimiter below is the
 * default; functions/commons/api-budget/ shares one budget between every process of the account.
 */
export interface RequestBudget {
  /** Waits until one request may go out, and takes its token (or throws when it may not go out soon enough). */
  take(): Promise<void>;
  /** Learns from an answer: its status and its `X-RateLimit-*` / `Retry-After` headers. */
  observe(headers: Headers, status: number): void | Promise<void>;
  /**
   * The error a `take` now would throw, when that is known without a request (null when a take may succeed): lets
   * a caller skip work it would do only to send (a contact push's claims).
   */
  refusal?(): Error | null;
}

/**
 * Client-side token bucket: spreads requests so a burst does not run into the service's per-minute limit, and
 * holds everything back when the service says the window is used up (`X-RateLimit-Remaining: 0`).
 */
export class RateLimiter implements RequestBudget {
  private tokens: number;
  private last: number;
  private blockedUntil = 0;
  private readonly perMs: number;

  constructor(
    private readonly perMinute: number,
    private readonly clock: Clock = realClock,
    /** Never trust a server hint to hold us back longer than this. */
    private readonly maxHoldMs = 60_000,
  ) {
    this.tokens = perMinute;
    this.last = clock.now();
    this.perMs = perMinute / 60_000;
  }

  /** Waits until one request may go out, and takes its token. */
  async take(): Promise<void> {
    const now = this.clock.now();
    let wait = this.blockedUntil - now; // the service's word counts even with the client-side bucket off
    if (this.perMinute > 0) {
      this.tokens = Math.min(this.perMinute, this.tokens + (now - this.last) * this.perMs);
      this.last = now;
      this.tokens -= 1;
      // A negative balance is a queue position: each waiter sleeps for its own share of the refill.
      if (this.tokens < 0) wait = Math.max(wait, -this.tokens / this.perMs);
    }
    if (wait > 0) await this.clock.sleep(Math.ceil(wait));
  }

  /** Learns from the service's rate-limit headers. */
  observe(headers: Headers, _status?: number): void {
    if (headers.get('x-ratelimit-remaining') !== '0') return;
    const reset = Number(headers.get('x-ratelimit-reset'));
    if (!Number.isFinite(reset) || reset <= 0) return;
    const now = this.clock.now();
    this.blockedUntil = Math.min(reset * 1000, now + this.maxHoldMs);
  }
}
