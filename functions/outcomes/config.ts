import { type AwsSettings, readAwsSettings } from '../commons/aws/clients.ts';
import { type Env, EnvReader } from '../commons/config.ts';
import { TABLES } from '../commons/tables.ts';
import { readVoiceApiSource, type VoiceApiSource } from '../commons/voice-api-access.ts';

export interface OutcomesConfig {
  aws: AwsSettings;
  outcomesTable: string;
  suppressionTable: string;
  voiceApi: VoiceApiSource;
}

/** Settings of the outcome processor (and of reconcile), checked at start-up. */
export function readOutcomesConfig(source: Env): OutcomesConfig {
  const env = new EnvReader(source);
  const config: OutcomesConfig = {
    aws: readAwsSettings(env),
    outcomesTable: env.required(TABLES.outcomes.env),
    suppressionTable: env.required(TABLES.suppression.env),
    voiceApi: readVoiceApiSource(env),
  };
  env.done();
  return config;
}
