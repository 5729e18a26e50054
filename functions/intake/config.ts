import type { CountryCode } from 'libphonenumber-js/max';
import { type BudgetConfig, readBudgetConfig, readBudgetWaitMs } from '#commons/api-budget/config.ts';
import { DEFAULT_LIMITS } from '#commons/api-budget/shared-budget.ts';
import { type AwsSettings, readAwsSettings } from '#commons/aws/clients.ts';
import { type Env, EnvReader, wholeNumber } from '#commons/config.ts';
import { type CapLimits, readCapLimits } from '#commons/frequency-cap.ts';
import { DEFAULT_LEGAL_HOURS, type LegalHoursTable, readLegalHours } from '#commons/legal-hours.ts';
import { isCountryCode } from '#commons/phone/phone.ts';
import { readPauseTimings } from '#commons/plan-load.ts';
import { INTAKE_LEASE_SECONDS } from '#commons/queue-settings.ts';
import { TABLES } from '#commons/tables.ts';
import { LIMITS } from '#commons/voice-api/contract.ts';
import { readVoiceApiSource, type VoiceApiSource } from '#commons/voice-api-access.ts';
import { readHoldHorizonMs } from '#commons/window-plan.ts';
import type { ApiPlan } from './plan-load-notes.ts';
import { DEFAULT_START_HORIZON_DAYS } from './settings.ts';

/** What an upload gets when it does not say: deployment settings, read here at start-up. */
export interface IntakeDefaults {
  country?: CountryCode;
  retries: number;
  /** Legal calling hours by country (`LEGAL_HOURS` over the built-in table); the built-in table when absent. */
  legalHours?: LegalHoursTable;
  /** How far ahead a start may be (`START_HORIZON_DAYS`); DEFAULT_START_HORIZON_DAYS when absent. */
  startHorizonDays?: number;
}

export interface IntakeConfig {
  aws: AwsSettings;
  uploadsTable: string;
  suppressionTable: string;
  stateMachineArn: string;
  voiceApi: VoiceApiSource;
  defaults: IntakeDefaults;
  leaseMs: number;
  /** Frequency caps, counted in the outcomes table; on when OUTCOMES_TABLE is set (CDK sets it). */
  caps: { table: string; limits: CapLimits } | null;
  /**
   * The contact queue: a launched sheet's accepted rows become `Contact Upserted` events there, so the contact store
   * knows everyone a campaign called. On when CONTACTS_QUEUE_URL is set (CDK sets it).
   */
  contacts: { queueUrl: string; sqsEndpoint: string | undefined } | null;
  /** The account-wide API budget its agent look-up draws on (the shared share); on when API_BUDGET_TABLE is set. */
  budget: { config: BudgetConfig; maxWaitMs: number } | null;
  /**
   * The API plan the upload's parts will share (the budget's limits, the plan's first tier without a budget table)
   * and when the lifecycle pauses (CLOSING_MARGIN_MINUTES, PAUSE_LEAD_SECONDS, BRAKE_LEAD_SECONDS): intake says up
   * front when the parts need more of it than it has.
   */
  plan: ApiPlan;
}

/** Every intake setting, checked at start-up; all problems are reported together. */
export function readIntakeConfig(source: Env): IntakeConfig {
  const env = new EnvReader(source);
  const config: IntakeConfig = {
    aws: readAwsSettings(env),
    uploadsTable: env.required(TABLES.uploads.env),
    suppressionTable: env.required(TABLES.suppression.env),
    stateMachineArn: env.required('LIFECYCLE_STATE_MACHINE_ARN'),
    voiceApi: readVoiceApiSource(env),
    defaults: {
      country: env.checked<CountryCode>('DEFAULT_COUNTRY', (v) =>
        isCountryCode(v.toUpperCase()) ? (v.toUpperCase() as CountryCode) : { problem: 'not an ISO country code' },
      ),
      retries: readDefaultRetries(env),
      legalHours: env.checked('LEGAL_HOURS', readLegalHours) ?? DEFAULT_LEGAL_HOURS,
      startHorizonDays: readStartHorizonDays(env),
    },
    leaseMs: (env.checked('INTAKE_LEASE_SECONDS', wholeNumber(1)) ?? INTAKE_LEASE_SECONDS) * 1000,
    caps: null,
    contacts: null,
    budget: env.optional(TABLES.apiBudget.env)
      ? { config: readBudgetConfig(env), maxWaitMs: readBudgetWaitMs(env) }
      : null,
    plan: { limits: DEFAULT_LIMITS, timings: readPauseTimings(env), holdHorizonMs: readHoldHorizonMs(env) },
  };
  if (config.budget) config.plan.limits = config.budget.config.limits;
  const queueUrl = env.optional('CONTACTS_QUEUE_URL');
  if (queueUrl) config.contacts = { queueUrl, sqsEndpoint: env.optional('AWS_ENDPOINT_URL_SQS') };
  const limits = readCapLimits(env);
  const capsTable = env.optional(TABLES.outcomes.env);
  if (capsTable) config.caps = { table: capsTable, limits };
  env.done();
  return config;
}

/** START_HORIZON_DAYS: how far ahead an upload's start may be (1 to 365 days), 14 when unset. */
export function readStartHorizonDays(env: EnvReader): number {
  return env.checked('START_HORIZON_DAYS', wholeNumber(1, 365)) ?? DEFAULT_START_HORIZON_DAYS;
}

/** DEFAULT_RETRIES: the retries of an upload that sets none (0 to the API's maximum), 1 when unset. */
export function readDefaultRetries(env: EnvReader): number {
  return env.checked('DEFAULT_RETRIES', wholeNumber(0, LIMITS.campaignRetriesMax)) ?? 1;
}
