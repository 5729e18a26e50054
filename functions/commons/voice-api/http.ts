import { errorFromResponse, retryHintMs } from './error-mapping.ts';
import { AmbiguousRequestError, type ErrorContext, NetworkError, VoiceApiError } from './errors.ts';
import { type Clock, RateLimiter, type RequestBudget, realClock } from './rate-limiter.ts';

export const API_PREFIX = '/api/developer/v1';

export interface VoiceApiOptions {
  /** Service root, e.g. `https://api.example.com` or `http://127.0.0.1:4010`; the `/api/developer/v1` prefix is added. */
  baseUrl: string;
  apiKey: string;
  /** Per-request timeout. */
  timeoutMs?: number;
  /** Retries after the first attempt, for requests that are safe to repeat. */
  maxRetries?: number;
  /** Backoff: the n-th retry waits a random time in [0, min(maxDelayMs, baseDelayMs · 2ⁿ)] (full jitter). */
  baseDelayMs?: number;
  maxDelayMs?: number;
  /** A server that asks for a longer pause than this gets a RateLimitedError instead of a wait. */
  maxRetryWaitMs?: number;
  /** Client-side limit; 0 turns it off. Ignored when `budget` is given. */
  requestsPerMinute?: number;
  /** Where tokens come from: the account-wide budget (functions/commons/api-budget/); else a per-process limiter. */
  budget?: RequestBudget;
  fetch?: typeof fetch;
  clock?: Clock;
  random?: () => number;
  /** How each exchange's time limit is kept: real time by default (see RequestTiming). */
  timing?: RequestTiming;
}

/**
 * Times one exchange: its time limit (`signal`), headers naming who waits on it, and `done` once its answer is read
 * (or it failed). Real time everywhere but the embedded stack, whose workflows wait on its simulated clock: there a
 * slow answer is the waiting workflow's sleep and the limit passes in simulated time (local/stack/stack-clock.ts).
 */
export interface RequestTiming {
  start(timeoutMs: number): { signal: AbortSignal; headers: Record<string, string>; done(): void };
  /**
   * A wait the service asked for (`Retry-After`: until its rate-limit window resets), on the service's clock; when
   * absent it is the client's own `clock`, as the back-off is.
   */
  wait?(ms: number): Promise<void>;
}

export const realTiming: RequestTiming = {
  start: (timeoutMs) => ({ signal: AbortSignal.timeout(timeoutMs), headers: {}, done: () => {} }),
};

/**
 * How a request may be repeated.
 * - `repeatable`: reads, updates, deletes, a pause: repeating it changes nothing more.
 * - `once`: call start, bulk-initiate, campaign create, a campaign's resume, a contact upsert that appends a note.
 *   Repeated only when the service provably did not act (429, 503, connection refused). Any other failure after
 *   sending raises AmbiguousRequestError, so a retry never dials anyone twice, and a resume whose answer was lost
 *   is known to be in doubt (it may still take effect later, after its window has closed); the caller decides.
 */
export type Repeatability = 'repeatable' | 'once';

export interface ApiRequest {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  query?: Record<string, string | number | boolean | undefined | null>;
  json?: unknown;
  form?: FormData | URLSearchParams;
  repeatability: Repeatability;
  responseType?: 'json' | 'bytes';
  /** Overrides the client's key (the embed-snippet endpoint also takes a widget key). */
  apiKey?: string;
  timeoutMs?: number;
  /**
   * What a 2xx answer must hold to be used: null when it does, else what it lacks. One that lacks it is read as
   * one that could not be read (a create without the id of what it made is in doubt).
   */
  expect?: (data: unknown) => string | null;
}

export interface ApiResponse<T> {
  status: number;
  headers: Headers;
  data: T;
}

const NOT_PROCESSED_STATUSES = new Set([429, 503]);

/** Nothing reached the service: the connection was refused (possibly on every address tried). */
function connectionRefused(err: unknown): boolean {
  const cause = (err as { cause?: { code?: string; errors?: { code?: string }[] } } | null)?.cause;
  if (cause?.code === 'ECONNREFUSED') return true;
  return (
    Array.isArray(cause?.errors) && cause.errors.length > 0 && cause.errors.every((e) => e.code === 'ECONNREFUSED')
  );
}

function timedOut(err: unknown): boolean {
  return (err as { name?: string } | null)?.name === 'TimeoutError';
}

/** The HTTP exchange: auth, timeout, client-side rate limit, retries with full jitter, typed errors. */
export class Transport {
  private readonly opts: Required<Omit<VoiceApiOptions, 'fetch' | 'clock' | 'random' | 'budget' | 'timing'>>;
  private readonly fetchImpl: typeof fetch;
  private readonly clock: Clock;
  private readonly random: () => number;
  private readonly limiter: RequestBudget;
  private readonly timing: RequestTiming;

  constructor(options: VoiceApiOptions) {
    if (!options.baseUrl) throw new Error('VoiceApiClient: baseUrl is required');
    if (!options.apiKey) throw new Error('VoiceApiClient: apiKey is required');
    this.opts = {
      baseUrl: options.baseUrl.replace(/\/+$/, ''),
      apiKey: options.apiKey,
      timeoutMs: options.timeoutMs ?? 30_000,
      maxRetries: options.maxRetries ?? 4,
      baseDelayMs: options.baseDelayMs ?? 250,
      maxDelayMs: options.maxDelayMs ?? 20_000,
      maxRetryWaitMs: options.maxRetryWaitMs ?? 65_000,
      requestsPerMinute: options.requestsPerMinute ?? 100,
    };
    this.fetchImpl = options.fetch ?? fetch;
    this.clock = options.clock ?? realClock;
    this.random = options.random ?? Math.random;
    this.limiter = options.budget ?? new RateLimiter(this.opts.requestsPerMinute, this.clock);
    this.timing = options.timing ?? realTiming;
  }

  get baseUrl(): string {
    return this.opts.baseUrl;
  }

  /** The error a request now would meet before it is sent, when the budget knows it without asking (`refusal`). */
  refusal(): Error | null {
    return this.limiter.refusal?.() ?? null;
  }

  url(path: string, query?: ApiRequest['query']): string {
    const url = new URL(`${this.opts.baseUrl}${API_PREFIX}${path}`);
    for (const [k, v] of Object.entries(query ?? {})) {
      if (v !== undefined && v !== null) url.searchParams.set(k, String(v));
    }
    return url.toString();
  }

  private backoffMs(retry: number): number {
    const ceiling = Math.min(this.opts.maxDelayMs, this.opts.baseDelayMs * 2 ** retry);
    return Math.floor(this.random() * ceiling);
  }

  /** Sends and answers the parsed body (the common case). */
  async data<T>(req: ApiRequest): Promise<T> {
    return (await this.send<T>(req)).data;
  }

  async send<T>(req: ApiRequest): Promise<ApiResponse<T>> {
    const url = this.url(req.path, req.query);
    const headers: Record<string, string> = { 'X-API-Key': req.apiKey ?? this.opts.apiKey, Accept: '*/*' };
    let body: string | FormData | URLSearchParams | undefined;
    if (req.json !== undefined) {
      headers['Content-Type'] = 'application/json';
      body = JSON.stringify(req.json);
    } else if (req.form !== undefined) {
      body = req.form; // fetch sets the multipart boundary or the urlencoded type itself
    }
    const where = { method: req.method, path: req.path };

    for (let retry = 0; ; retry++) {
      await this.limiter.take();
      const sentAt = new Date(this.clock.now());
      const timeoutMs = req.timeoutMs ?? this.opts.timeoutMs;
      const limit = this.timing.start(timeoutMs);
      let res: Response;
      let payload: unknown;
      try {
        try {
          res = await this.fetchImpl(url, {
            method: req.method,
            headers: { ...headers, ...limit.headers },
            body,
            signal: limit.signal,
          });
        } catch (err) {
          limit.done();
          const ctx: ErrorContext = { status: 0, ...where, requestId: null, body: null };
          const refused = connectionRefused(err);
          const message = timedOut(err)
            ? `${req.method} ${req.path} timed out after ${timeoutMs} ms`
            : `${req.method} ${req.path} failed: ${(err as { cause?: Error }).cause?.message ?? String(err)}`;
          if (req.repeatability === 'once' && !refused) {
            throw new AmbiguousRequestError(`${message}; it may or may not have been carried out`, ctx, sentAt, {
              cause: err,
            });
          }
          if (retry < this.opts.maxRetries) {
            await this.clock.sleep(this.backoffMs(retry));
            continue;
          }
          throw new NetworkError(message, ctx, timedOut(err), { cause: err });
        }
        await this.limiter.observe(res.headers, res.status);
        // A 2xx answer left unread: a body that could not be read, or one without what the request expects.
        let unread: { reason: string; body: unknown; cause?: unknown } | null = null;
        try {
          payload = await this.readBody(res, res.ok ? req : { ...req, responseType: 'json' });
          const lacks = res.ok ? (req.expect?.(payload) ?? null) : null;
          if (lacks) unread = { reason: `${res.status} answer ${lacks}`, body: payload };
        } catch (err) {
          // An error's status says enough without its body; a 2xx body that is not JSON is kept to be shown.
          payload = null;
          if (res.ok)
            unread = {
              reason: (err as Error).message,
              body: err instanceof VoiceApiError ? err.body : null,
              cause: err,
            };
        }
        if (unread) {
          // Answered 2xx, so carried out, and what came of it is unread: a repeatable request is asked again; one
          // that must not be repeated (a campaign created, a resume) is in doubt, for its caller to reconcile.
          const ctx: ErrorContext = {
            status: res.status,
            ...where,
            requestId: res.headers.get('x-request-id'),
            body: unread.body,
          };
          const message = `${req.method} ${req.path} answered ${res.status}, but its answer could not be read (${unread.reason})`;
          if (req.repeatability === 'once')
            throw new AmbiguousRequestError(`${message}; it was carried out`, ctx, sentAt, { cause: unread.cause });
          if (retry < this.opts.maxRetries) {
            await this.clock.sleep(this.backoffMs(retry));
            continue;
          }
          throw new VoiceApiError(message, ctx);
        }
      } finally {
        limit.done();
      }
      if (res.ok) return { status: res.status, headers: res.headers, data: payload as T };

      const errorBody = payload;
      const error = errorFromResponse(res.status, errorBody, res.headers, where, this.clock.now());
      const transient = res.status === 429 || res.status >= 500;
      if (!transient) throw error;
      if (req.repeatability === 'once' && !NOT_PROCESSED_STATUSES.has(res.status)) {
        throw new AmbiguousRequestError(
          `${error.message}; the service may have carried the request out`,
          { status: res.status, ...where, requestId: error.requestId, body: errorBody },
          sentAt,
          { cause: error },
        );
      }
      if (retry >= this.opts.maxRetries) throw error;
      const hint = retryHintMs(res.headers, this.clock.now()) ?? 0;
      if (hint > this.opts.maxRetryWaitMs) throw error;
      const backoff = this.backoffMs(retry);
      if (this.timing.wait && hint > 0 && hint >= backoff) await this.timing.wait(hint);
      else await this.clock.sleep(Math.max(hint, backoff));
    }
  }

  private async readBody(res: Response, req: Pick<ApiRequest, 'responseType' | 'method' | 'path'>): Promise<unknown> {
    if (req.responseType === 'bytes') return new Uint8Array(await res.arrayBuffer());
    const text = await res.text();
    if (text === '') return null;
    const type = res.headers.get('content-type') ?? '';
    if (type.includes('json')) {
      try {
        return JSON.parse(text);
      } catch {
        if (res.ok) {
          throw new VoiceApiError(`${res.status} answer was not valid JSON`, {
            status: res.status,
            method: req.method,
            path: req.path,
            requestId: res.headers.get('x-request-id'),
            body: text,
          });
        }
      }
    }
    return text;
  }
}
