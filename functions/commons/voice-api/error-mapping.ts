import {
  AuthenticationError,
  BadRequestError,
  ConflictError,
  type ErrorContext,
  ForbiddenError,
  InsufficientCreditsError,
  NotFoundError,
  RateLimitedError,
  ServerError,
  ValidationError,
  type ValidationItem,
  VoiceApiError,
} from './errors.ts';

/** The vendor's general-reference error style: `{"error": {code, message, param, type}}`. */
interface VendorErrorBody {
  code?: unknown;
  message?: unknown;
  param?: unknown;
  type?: unknown;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function toItems(detail: unknown[]): ValidationItem[] {
  return detail.map((d) => {
    if (!isRecord(d)) return { loc: [], msg: String(d), type: 'value_error' };
    const loc = Array.isArray(d.loc) ? d.loc.map((p) => (typeof p === 'number' ? p : String(p))) : [];
    return { ...d, loc, msg: typeof d.msg === 'string' ? d.msg : JSON.stringify(d.msg), type: String(d.type ?? '') };
  });
}

/** Milliseconds the server asked us to wait, from `Retry-After` or else `X-RateLimit-Reset`. */
export function retryHintMs(headers: Headers, nowMs: number): number | null {
  const retryAfter = headers.get('retry-after');
  if (retryAfter !== null && retryAfter.trim() !== '') {
    const seconds = Number(retryAfter);
    if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
    const date = Date.parse(retryAfter);
    if (!Number.isNaN(date)) return Math.max(0, date - nowMs);
  }
  const reset = Number(headers.get('x-ratelimit-reset'));
  if (headers.has('x-ratelimit-reset') && Number.isFinite(reset) && reset > 0) return Math.max(0, reset * 1000 - nowMs);
  return null;
}

/** Turns a non-2xx answer into the typed error a caller can branch on. */
export function errorFromResponse(
  status: number,
  body: unknown,
  headers: Headers,
  request: { method: string; path: string },
  nowMs: number,
): VoiceApiError {
  const ctx: ErrorContext = { status, ...request, requestId: headers.get('x-request-id'), body };
  let message = `${request.method} ${request.path} failed with ${status}`;
  let items: ValidationItem[] | null = null;
  let code: string | null = null;

  if (isRecord(body)) {
    if (typeof body.detail === 'string') message = body.detail;
    else if (Array.isArray(body.detail)) {
      items = toItems(body.detail);
      message = items.map((i) => `${i.loc.join('.')}: ${i.msg}`).join('; ') || message;
    }
    if (isRecord(body.error)) {
      const e = body.error as VendorErrorBody;
      if (typeof e.message === 'string') message = e.message;
      if (typeof e.code === 'string') code = e.code;
      if (typeof e.param === 'string' && e.code === 'invalid_request') {
        items = [{ loc: ['body', e.param], msg: message, type: code ?? 'value_error' }];
      }
    }
  } else if (typeof body === 'string' && body.trim() !== '') {
    message = body.trim().slice(0, 500);
  }

  if (code === 'insufficient_credits' || status === 402) return new InsufficientCreditsError(message, ctx, code);
  if (code === 'rate_limit_exceeded' || status === 429) {
    return new RateLimitedError(message, ctx, retryHintMs(headers, nowMs), code);
  }
  if (code === 'authentication_failed' || status === 401) return new AuthenticationError(message, ctx, code);
  if (code === 'resource_not_found' || status === 404) return new NotFoundError(message, ctx, code);
  if (status === 422 || (items !== null && status < 500)) return new ValidationError(message, ctx, items ?? [], code);
  if (status === 400) return new BadRequestError(message, ctx, code);
  if (status === 403) return new ForbiddenError(message, ctx, code);
  if (status === 409) return new ConflictError(message, ctx, code);
  if (status >= 500 || code === 'internal_error') return new ServerError(message, ctx, code);
  return new VoiceApiError(message, ctx, code);
}
