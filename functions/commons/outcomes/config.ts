import { type BudgetConfig, readBudgetConfig, readBudgetWaitMs } from '../api-budget/config.ts';
import { type AwsSettings, readAwsSettings } from '../aws/clients.ts';
import { type Env, EnvReader } from '../config.ts';
import { TABLES } from '../tables.ts';
import { readVoiceApiSource, type VoiceApiSource } from '../voice-api-access.ts';

export interface OutcomesConfig {
  aws: AwsSettings;
  outcomesTable: string;
  suppressionTable: string;
  voiceApi: VoiceApiSource;
  /** The account-wide API budget (AWS; set by CDK); without it a per-process limiter paces the reads. */
  budget: BudgetConfig | null;
  budgetWaitMs: number;
}

/** Settings of the outcome processor (and of reconcile), checked at start-up. */
export function readOutcomesConfig(source: Env): OutcomesConfig {
  const env = new EnvReader(source);
  const config: OutcomesConfig = {
    aws: readAwsSettings(env),
    outcomesTable: env.required(TABLES.outcomes.env),
    suppressionTable: env.required(TABLES.suppression.env),
    voiceApi: readVoiceApiSource(env),
    budget: env.optional(TABLES.apiBudget.env) ? readBudgetConfig(env) : null,
    budgetWaitMs: readBudgetWaitMs(env),
  };
  env.done();
  return config;
}
