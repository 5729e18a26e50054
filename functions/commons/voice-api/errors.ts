/** One validation problem, as the service reports it in a 422 `detail` array. */
export interface ValidationItem {
  loc: (string | number)[];
  msg: string;
  type: string;
  [extra: string]: unknown;
}

export interface ErrorContext {
  status: number;
  method: string;
  path: string;
  requestId: string | null;
  body: unknown;
}

/** Base of every error the client raises for an HTTP answer or a failed exchange. */
export class VoiceApiError extends Error {
  readonly status: number;
  readonly method: string;
  readonly path: string;
  readonly requestId: string | null;
  readonly body: unknown;
  /** The vendor's error code when the body used the `{error: {code}}` style. */
  readonly code: string | null;

  constructor(message: string, ctx: ErrorContext, code: string | null = null) {
    super(message);
    this.name = new.target.name;
    this.status = ctx.status;
    this.method = ctx.method;
    this.path = ctx.path;
    this.requestId = ctx.requestId;
    this.body = ctx.body;
    this.code = code;
  }
}

export class ValidationError extends VoiceApiError {
  readonly items: ValidationItem[];
  constructor(message: string, ctx: ErrorContext, items: ValidationItem[], code: string | null = null) {
    super(message, ctx, code);
    this.items = items;
  }
}

/** A request that the client refused to send because it breaks the contract (no network involved). */
export class RequestValidationError extends Error {
  readonly items: ValidationItem[];
  constructor(items: ValidationItem[]) {
    super(items.map((i) => `${i.loc.join('.')}: ${i.msg}`).join('; '));
    this.name = 'RequestValidationError';
    this.items = items;
  }
}

export class BadRequestError extends VoiceApiError {}
export class AuthenticationError extends VoiceApiError {}
export class ForbiddenError extends VoiceApiError {}
export class NotFoundError extends VoiceApiError {}
/** The resource is in the wrong state for the request (pause a paused campaign, cancel a finished call). */
export class ConflictError extends VoiceApiError {}
export class InsufficientCreditsError extends VoiceApiError {}
export class RateLimitedError extends VoiceApiError {
  readonly retryAfterMs: number | null;
  constructor(message: string, ctx: ErrorContext, retryAfterMs: number | null, code: string | null = null) {
    super(message, ctx, code);
    this.retryAfterMs = retryAfterMs;
  }
}
export class ServerError extends VoiceApiError {}

/** The request never got an HTTP answer (refused connection, reset, DNS, timeout). */
export class NetworkError extends VoiceApiError {
  readonly timedOut: boolean;
  constructor(message: string, ctx: ErrorContext, timedOut: boolean, options?: { cause?: unknown }) {
    super(message, ctx);
    this.timedOut = timedOut;
    if (options?.cause !== undefined) this.cause = options.cause;
  }
}

/**
 * A request made `once` (it creates something or starts dialling) failed in a way that leaves it unknown whether
 * the service acted on it (timeout, connection reset, 500/502/504). It was not retried, because a retry could dial
 * someone twice, create a second campaign, or hide a resume that lands late. The caller must reconcile: look the
 * result up (e.g. list calls for that number since `sentAt`) or rely on the intent it recorded before sending.
 */
export class AmbiguousRequestError extends VoiceApiError {
  readonly sentAt: Date;
  constructor(message: string, ctx: ErrorContext, sentAt: Date, options?: { cause?: unknown }) {
    super(message, ctx);
    this.sentAt = sentAt;
    if (options?.cause !== undefined) this.cause = options.cause;
  }
}
