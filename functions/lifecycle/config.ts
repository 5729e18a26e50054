import { type BudgetConfig, readBudgetConfig } from '#commons/api-budget/config.ts';
import { pollPlanOf } from '#commons/api-budget/poll-roll.ts';
import { type AwsSettings, readAwsSettings } from '#commons/aws/clients.ts';
import { type Env, EnvReader, wholeNumber } from '#commons/config.ts';
import { type CapLimits, readCapLimits } from '#commons/frequency-cap.ts';
import { DEFAULT_LEGAL_HOURS, readLegalHours } from '#commons/legal-hours.ts';
import { type OutcomesConfig, readOutcomesConfig } from '#commons/outcomes/config.ts';
import { readPauseTimings } from '#commons/plan-load.ts';
import { TABLES } from '#commons/tables.ts';
import { readVoiceApiSource, type VoiceApiSource } from '#commons/voice-api-access.ts';
import { readHoldHorizonMs } from '#commons/window-plan.ts';
import type { LifecycleSettings } from './lifecycle-steps.ts';

export interface LifecycleConfig {
  aws: AwsSettings;
  campaignsTable: string;
  voiceApi: VoiceApiSource;
  /** Per-request timeout of Voice API calls; a create that times out is reconciled, never re-sent. */
  apiTimeoutMs: number;
  settings: LifecycleSettings;
  /**
   * Outcomes at a part's end (export, suppressed numbers, follow-up rounds), on when OUTCOMES_TABLE is set: CDK
   * sets it (and SUPPRESSION_TABLE) for the lifecycle function; the guard and the sweeper, which read these
   * settings too, have no use for it.
   */
  outcomes: { config: OutcomesConfig; caps: CapLimits } | null;
  /**
   * The account-wide API budget, on when API_BUDGET_TABLE is set (CDK sets it): the lifecycle draws on its
   * reserved share, so a contact sync never delays a pause. Without it the client paces itself per process.
   */
  budget: BudgetConfig | null;
  /** Where a part's end is announced. */
  eventBusName: string;
}

/**
 * The longest one lifecycle step can take with these settings: the API calls of a step that pauses, finds the
 * pause unconfirmed and pulls the brake (about ten calls), each tried twice, plus DynamoDB and slack. The step
 * function's timeout and the Task states' TimeoutSeconds must cover it.
 */
export function stepWorstCaseSeconds(apiTimeoutSeconds: number): number {
  return 10 * 2 * (apiTimeoutSeconds + 1) + 30;
}

/** The longest per-request timeout whose worst-case step still fits Lambda's 15 minutes (stepWorstCaseSeconds). */
export const MAX_API_TIMEOUT_SECONDS = 42;

/** Every setting of the lifecycle and the guard, with its default; docs/configuration.md documents each. */
export function readLifecycleConfig(source: Env): LifecycleConfig {
  const env = new EnvReader(source);
  const config: LifecycleConfig = {
    aws: readAwsSettings(env),
    campaignsTable: env.required(TABLES.campaigns.env),
    voiceApi: readVoiceApiSource(env),
    apiTimeoutMs: (env.checked('VOICE_API_TIMEOUT_SECONDS', wholeNumber(1, MAX_API_TIMEOUT_SECONDS)) ?? 10) * 1000,
    settings: {
      legalHours: env.checked('LEGAL_HOURS', readLegalHours) ?? DEFAULT_LEGAL_HOURS,
      ...readPauseTimings(env),
      secureRetryMs: (env.checked('SECURE_RETRY_SECONDS', wholeNumber(5, 600)) ?? 20) * 1000,
      holdHorizonMs: readHoldHorizonMs(env),
      poll: {
        minSeconds: env.checked('POLL_MIN_SECONDS', wholeNumber(1)) ?? 30,
        maxSeconds: env.checked('POLL_MAX_SECONDS', wholeNumber(1)) ?? 900,
      },
      continueAfterSteps: env.checked('CONTINUE_AFTER_STEPS', wholeNumber(1)) ?? 1000,
      reconcileMinutes: env.checked('RECONCILE_MINUTES', wholeNumber(1)) ?? 30,
    },
    eventBusName: env.optional('EVENT_BUS_NAME') ?? 'default',
    outcomes: null,
    budget: env.optional(TABLES.apiBudget.env) ? readBudgetConfig(env) : null,
  };
  config.settings.pollPlan = config.budget ? pollPlanOf(config.budget.limits) : null;
  const caps = readCapLimits(env);
  if (env.optional(TABLES.outcomes.env)) config.outcomes = { config: readOutcomesConfig(source), caps };
  env.done();
  return config;
}
