/**
 * The SQS queues in front of callsheet's functions, as infra makes them and the embedded stack plays them: a
 * message a function failed on stays invisible six times that function's timeout (Lambda's SQS guidance), and goes
 * to the dead letters after five receives.
 */
export const QUEUE_MAX_RECEIVES = 5;

/** The visibility timeout of a queue whose consumer times out after `consumerTimeoutSeconds`. */
export const visibilitySeconds = (consumerTimeoutSeconds: number): number => consumerTimeoutSeconds * 6;

/** The intake function's timeout: a large sheet is read, checked and split within it. */
export const INTAKE_TIMEOUT_SECONDS = 5 * 60;

/**
 * How long one delivery owns an upload unless INTAKE_LEASE_SECONDS says otherwise: past intake's timeout, so no two
 * deliveries work on it at once, and well inside its queue's visibility timeout, so a retry finds the lease over.
 */
export const INTAKE_LEASE_SECONDS = INTAKE_TIMEOUT_SECONDS + 60;

/** The contact sync's timeout: a batch of events applied and pushed; a push's claim lasts as long. */
export const CONTACTS_TIMEOUT_SECONDS = 3 * 60;

/** The outcomes processor's timeout: one call event, a read of the call and a few writes. */
export const OUTCOMES_TIMEOUT_SECONDS = 60;
