import {
  AmbiguousRequestError,
  AuthenticationError,
  ConflictError,
  ForbiddenError,
  InsufficientCreditsError,
  NetworkError,
  NotFoundError,
  RateLimitedError,
  RequestValidationError,
  ServerError,
  ValidationError,
} from '#commons/voice-api/errors.ts';

/** Worth retrying (429, 5xx, timeouts): the state machine retries these with full jitter and a cap. */
export class TransientError extends Error {
  override name = 'TransientError';
}

/** Retrying cannot help (422, 404, 402, inactive agent…): the state machine records it and stops. */
export class PermanentError extends Error {
  override name = 'PermanentError';
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(`${code}: ${message}`);
  }
}

/** Sorts a Voice API failure into transient or permanent, keeping its message. */
export function classify(err: unknown, doing: string): Error {
  if (err instanceof TransientError || err instanceof PermanentError) return err;
  const message = `${doing}: ${(err as Error).message}`;
  if (err instanceof AmbiguousRequestError) return new TransientError(message);
  if (err instanceof RateLimitedError || err instanceof ServerError || err instanceof NetworkError)
    return new TransientError(message);
  if (err instanceof InsufficientCreditsError) return new PermanentError('insufficient_credits', message);
  if (err instanceof ValidationError || err instanceof RequestValidationError)
    return new PermanentError('rejected_by_api', message);
  if (err instanceof NotFoundError) return new PermanentError('not_found', message);
  if (err instanceof ConflictError) return new PermanentError('conflict', message);
  if (err instanceof AuthenticationError || err instanceof ForbiddenError)
    return new PermanentError('api_key_refused', message);
  return err as Error;
}

/** AWS SDK error names that mean "slow down" (DynamoDB, Step Functions, EventBridge, S3, Secrets Manager). */
const THROTTLES = new Set([
  'ThrottlingException',
  'Throttling',
  'TooManyRequestsException',
  'ProvisionedThroughputExceededException',
  'RequestLimitExceeded',
  'RequestThrottled',
  'SlowDown',
  'LimitExceededException',
]);

const NETWORK_CODES = new Set(['ECONNRESET', 'ECONNREFUSED', 'ETIMEDOUT', 'EPIPE', 'EAI_AGAIN', 'ENOTFOUND']);

/**
 * An AWS SDK or network failure inside a step, as the state machine should see it: throttling, a 5xx or a dropped
 * connection is a TransientError (retried by the document); anything else keeps its own name.
 */
export function asRetryable(err: unknown): Error {
  if (err instanceof TransientError || err instanceof PermanentError) return err;
  const e = err as {
    name?: string;
    message?: string;
    code?: string;
    $retryable?: { throttling?: boolean };
    $metadata?: { httpStatusCode?: number };
  } | null;
  const status = e?.$metadata?.httpStatusCode ?? 0;
  if (
    e &&
    (THROTTLES.has(e.name ?? '') ||
      e.$retryable !== undefined ||
      status >= 500 ||
      status === 429 ||
      NETWORK_CODES.has(e.code ?? ''))
  )
    return new TransientError(`${e.name ?? 'Error'}: ${e.message ?? ''}`);
  return err instanceof Error ? err : new Error(String(err));
}
