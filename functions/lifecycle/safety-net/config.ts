import { type Env, EnvReader, wholeNumber } from '#commons/config.ts';
import { type LifecycleConfig, readLifecycleConfig } from '../config.ts';
import type { GuardSettings } from './campaign-guard.ts';

export interface GuardConfig {
  lifecycle: LifecycleConfig;
  guard: GuardSettings;
}

/** The guard and the sweeper read the lifecycle's settings (API, table, margin) and two of their own. */
export function readGuardConfig(source: Env): GuardConfig {
  const lifecycle = readLifecycleConfig(source);
  const env = new EnvReader(source);
  const minutes = (name: string, fallback: number) => (env.checked(name, wholeNumber(1)) ?? fallback) * 60_000;
  const guard: GuardSettings = {
    closingMarginMs: lifecycle.settings.closingMarginMs,
    sweepIntervalMs: minutes('SWEEP_INTERVAL_MINUTES', 5),
    overdueGraceMs: minutes('OVERDUE_GRACE_MINUTES', 10),
  };
  env.done();
  return { lifecycle, guard };
}

/**
 * How many times more Lambda runs a guard invocation that threw (its asynchronous invocation config, as infra sets
 * it; the embedded stack retries alike), before the event goes to the guard's failure queue.
 */
export const GUARD_RETRY_ATTEMPTS = 2;
