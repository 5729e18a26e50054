import { Logger } from '@aws-lambda-powertools/logger';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import type { Tracer } from '@aws-lambda-powertools/tracer';
import type { MiddlewareObj, MiddyfiedHandler } from '@middy/core';
import type { Env } from './config.ts';
import type { Log } from './log.ts';

/**
 * Logs, metrics and traces for every callsheet function, the Powertools way. Each function gets one Logger,
 * Metrics and Tracer (by its name) and wraps its middy handler with `observe()`.
 *
 * Outside Lambda (tests, `callsheet run`, the local stack run handlers in-process) nothing is printed unless asked:
 * the tracer is not even loaded (see `xray` below), metrics are not written
 * unless POWERTOOLS_METRICS_DISABLED=false, and the logger is silent unless POWERTOOLS_LOG_LEVEL says otherwise.
 */

/** CloudWatch namespace of callsheet's own metrics; the stack's alarms and dashboard read the same names. */
export const METRICS_NAMESPACE = 'callsheet';
/** Every function publishes under one `service` dimension value, so an alarm sums across functions. */
export const METRICS_SERVICE = 'callsheet';
/** The dimension of `METRIC.campaigns` that says which state a campaign reached. */
export const CAMPAIGN_STATE_DIMENSION = 'state';

/** callsheet's metric names (all counts). */
export const METRIC = {
  /** An upload finished by intake (accepted or rejected as a whole). */
  uploads: 'Uploads',
  contactsAccepted: 'ContactsAccepted',
  contactsRejected: 'ContactsRejected',
  /** A campaign reached a state; dimension `state` (see `countCampaignState`). */
  campaigns: 'Campaigns',
  callsPlaced: 'CallsPlaced',
  /** Every Voice API response (the denominator of the error rates). */
  apiRequests: 'ApiRequests',
  /** Voice API answers 400–499 other than 429. */
  apiClientErrors: 'ApiClientErrors',
  /** Voice API answers 500–599 and requests that got no answer. */
  apiServerErrors: 'ApiServerErrors',
  /** Voice API answers 429 (rate limited). */
  apiThrottled: 'ApiThrottled',
  /**
   * The guard / the sweeper secured a campaign. Emitted by functions/lifecycle/safety-signals.ts with the dimension
   * `outcome` (not through `count`); the stack's alarms sum over the outcomes.
   */
  guardActions: 'GuardActions',
  sweeperActions: 'SweeperActions',
  /**
   * A sweep could not read the calls list, so a campaign resumed outside callsheet while paused for a closed window
   * went unseen that round (functions/lifecycle/safety-net/call-watch.ts).
   */
  callsWatchUnread: 'SweeperCallsUnread',
  /**
   * A validly signed webhook body refused with 400 (wrong types, over-long fields, not UTF-8): the vendor does not
   * deliver it again, so its outcome waits for the calls list at the part's end.
   */
  webhooksRefused: 'WebhookEventsRefused',
  /** A call event whose call the Voice API does not know (404): recorded as `unknown-call#<id>` and acknowledged. */
  unknownCallEvents: 'UnknownCallEvents',
} as const;
export type MetricName = (typeof METRIC)[keyof typeof METRIC];

/** Ids that go on every log line of one invocation, once known. */
export interface CorrelationIds {
  uploadId?: string;
  campaignId?: string;
  executionId?: string;
  /** A lifecycle part (`<upload>/<n>`) before its vendor campaign exists. */
  part?: string;
}

export interface Observability {
  name: string;
  logger: Logger;
  metrics: Metrics;
  /** Null where X-Ray is not loaded (outside Lambda, or tracing off). */
  tracer: Tracer | null;
  /** Metrics are not written (outside Lambda unless asked). */
  quietMetrics: boolean;
}

/**
 * The X-Ray SDK under Powertools' Tracer costs 6–9 ms of a bundle's cold load (bench/bundles.ts), so it is loaded only where it
 * traces: in Lambda, unless POWERTOOLS_TRACE_ENABLED=false (the TRACING setting off). The stack turns on active
 * tracing exactly when this is loaded. In a function's bundle this import is a chunk of its own (infra/bundling.ts),
 * so with tracing off the SDK is not even read, let alone run (test/infra/bundling.test.ts).
 */
const tracing =
  Boolean(process.env.AWS_LAMBDA_FUNCTION_NAME) &&
  process.env.POWERTOOLS_TRACE_ENABLED?.trim().toLowerCase() !== 'false';
const xray = tracing
  ? {
      Tracer: (await import('@aws-lambda-powertools/tracer')).Tracer,
      captureLambdaHandler: (await import('@aws-lambda-powertools/tracer/middleware')).captureLambdaHandler,
    }
  : null;

const cache = new Map<string, Observability>();
let active: Observability | null = null;

/**
 * The observability of the handler invoked last in this process (one per Lambda container), for shared code
 * such as the Voice API access that counts API answers without being handed it.
 */
export function activeObservability(): Observability | null {
  return active;
}

const inLambda = (env: Env) => Boolean(env.AWS_LAMBDA_FUNCTION_NAME);

/**
 * The Logger, Metrics and Tracer of one function (`intake`, `lifecycle`, `guard`, …), made once per process.
 * `env` is read only the first time a name is asked for.
 */
export function observabilityFor(name: string, env: Env = process.env): Observability {
  let found = cache.get(name);
  if (!found) {
    found = makeObservability(name, env);
    cache.set(name, found);
  }
  return found;
}

/** A fresh set, not cached (tests that capture output make their own). */
export function makeObservability(name: string, env: Env = process.env): Observability {
  const logger = new Logger({
    serviceName: name,
    // Outside Lambda a handler run in-process must not write JSON into a user's terminal or the test output.
    ...(env.POWERTOOLS_LOG_LEVEL || env.AWS_LAMBDA_LOG_LEVEL || inLambda(env) ? {} : { logLevel: 'SILENT' as const }),
  });
  const quiet = quietMetrics(env);
  const metrics = withEnv(quiet, () => {
    return new Metrics({
      namespace: METRICS_NAMESPACE,
      serviceName: METRICS_SERVICE,
      // Powertools warns on every invocation that published nothing; that is normal here, not a warning.
      logger: {
        debug: (...a: unknown[]) => logger.debug(String(a[0])),
        info: (...a: unknown[]) => logger.info(String(a[0])),
        error: (...a: unknown[]) => logger.error(String(a[0])),
        warn: (...a: unknown[]) =>
          String(a[0]).startsWith('No application metrics') ? logger.debug(String(a[0])) : logger.warn(String(a[0])),
      },
    });
  });
  const tracer = xray ? new xray.Tracer({ serviceName: name }) : null;
  return { name, logger, metrics, tracer, quietMetrics: quiet };
}

/** EMF lines only in Lambda, or when POWERTOOLS_METRICS_DISABLED=false asks for them elsewhere. */
function quietMetrics(env: Env): boolean {
  const setting = env.POWERTOOLS_METRICS_DISABLED;
  if (setting !== undefined) return !['false', '0', 'no', 'off'].includes(setting.trim().toLowerCase());
  return !inLambda(env);
}

/**
 * Powertools Metrics reads POWERTOOLS_METRICS_DISABLED from process.env in its constructor (also in
 * `singleMetric()`) and offers no option for it; a quiet instance is made with the variable set for that one call.
 */
function withEnv<T>(quiet: boolean, make: () => T): T {
  if (!quiet) return make();
  const before = process.env.POWERTOOLS_METRICS_DISABLED;
  process.env.POWERTOOLS_METRICS_DISABLED = 'true';
  try {
    return make();
  } finally {
    if (before === undefined) delete process.env.POWERTOOLS_METRICS_DISABLED;
    else process.env.POWERTOOLS_METRICS_DISABLED = before;
  }
}

/**
 * Logs an invocation's failure with its ids, then lets it propagate (SQS redelivers, Step Functions retries by
 * the error's name). Registered last, so its onError runs first: before the metrics are flushed and the
 * invocation's keys are reset.
 */
export function errorBoundary(logger: Logger): MiddlewareObj {
  return {
    onError: async (request) => {
      const error = request.error;
      if (error instanceof Error) logger.error('invocation failed', error);
      else logger.error('invocation failed', { error: String(error) });
    },
  };
}

/**
 * The Powertools middlewares in the example app's order, then the error boundary. The invocation's correlation
 * keys (`tagLogs`) are cleared after each invocation, so a warm container never logs the previous upload's id.
 */
// biome-ignore lint/suspicious/noExplicitAny: middy's own handler type is generic over every event and result.
export function observe<H extends MiddyfiedHandler<any, any>>(handler: H, obs: Observability): H {
  const traced =
    xray && obs.tracer ? [xray.captureLambdaHandler(obs.tracer, { captureResponse: false })] : ([] as MiddlewareObj[]);
  return handler
    .use({
      before: () => {
        active = obs;
      },
    })
    .use(injectLambdaContext(obs.logger, { resetKeys: true }))
    .use(logMetrics(obs.metrics))
    .use(traced)
    .use(errorBoundary(obs.logger)) as H;
}

/** Puts the ids on every following log line of this invocation (and on the trace as annotations). */
export function tagLogs(obs: Observability, ids: CorrelationIds): void {
  const present = Object.fromEntries(Object.entries(ids).filter(([, v]) => v !== undefined && v !== ''));
  obs.logger.appendKeys(present);
  if (obs.tracer?.isTracingEnabled()) for (const [k, v] of Object.entries(present)) obs.tracer.putAnnotation(k, v);
}

/** The Powertools logger behind callsheet's small `Log` interface (domain code knows nothing of Powertools). */
export function asLog(logger: Logger): Log {
  const at =
    (write: (message: string, ...extra: Record<string, unknown>[]) => void) =>
    (message: string, fields?: Record<string, unknown>) =>
      fields ? write(message, fields) : write(message);
  return {
    info: at((m, ...f) => logger.info(m, ...f)),
    warn: at((m, ...f) => logger.warn(m, ...f)),
    error: at((m, ...f) => logger.error(m, ...f)),
  };
}

/** Forgets the ids `tagLogs` added (between the records of one batch). */
export function clearTags(obs: Observability): void {
  obs.logger.resetKeys();
}

/** Adds `value` to a count metric, flushed at the end of the invocation by `observe`. */
export function count(obs: Observability, metric: MetricName, value = 1): void {
  if (value > 0) obs.metrics.addMetric(metric, MetricUnit.Count, value);
}

/** Counts one campaign reaching `state` (the lifecycle counts created, held, completed, failed, cancelled). */
export function countCampaignState(obs: Observability, state: string): void {
  const single = withEnv(obs.quietMetrics, () => obs.metrics.singleMetric());
  single.addDimension(CAMPAIGN_STATE_DIMENSION, state);
  single.addMetric(METRIC.campaigns, MetricUnit.Count, 1);
}

/** Counts a Voice API answer by status (0: no answer at all) for the request and error-rate metrics. */
export function countApiStatus(obs: Observability, status: number): void {
  count(obs, METRIC.apiRequests);
  if (status === 429) count(obs, METRIC.apiThrottled);
  else if (status >= 400 && status < 500) count(obs, METRIC.apiClientErrors);
  else if (status >= 500 || status === 0) count(obs, METRIC.apiServerErrors);
}
