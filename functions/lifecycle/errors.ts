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
} from '../commons/voice-api/errors.ts';

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
