import { GetSecretValueCommand } from '@aws-sdk/client-secrets-manager';
import { type AwsSettings, secretsClient } from './aws/clients.ts';
import { ConfigError, type EnvReader } from './config.ts';

export interface VoiceApiAccess {
  baseUrl: string;
  apiKey: string;
  webhookSecret: string | null;
}

/** Where the key lives: in the environment (local runs only) or in a Secrets Manager secret (AWS). */
export type VoiceApiSource =
  | { baseUrl: string; apiKey: string; webhookSecret: string | null }
  | { baseUrl: string; secretArn: string };

export function readVoiceApiSource(env: EnvReader): VoiceApiSource {
  const baseUrl = env.required('VOICE_API_URL');
  const apiKey = env.optional('VOICE_API_KEY');
  if (apiKey) return { baseUrl, apiKey, webhookSecret: env.optional('VOICE_API_WEBHOOK_SECRET') ?? null };
  return { baseUrl, secretArn: env.required('VOICE_API_SECRET_ARN') };
}

/** Resolves the key, reading the secret once per process start; the value is never logged. */
export async function resolveVoiceApiAccess(source: VoiceApiSource, aws: AwsSettings): Promise<VoiceApiAccess> {
  if ('apiKey' in source) return source;
  const out = await secretsClient(aws).send(new GetSecretValueCommand({ SecretId: source.secretArn }));
  let parsed: { apiKey?: unknown; webhookSecret?: unknown } = {};
  try {
    parsed = JSON.parse(out.SecretString ?? '{}');
  } catch {
    // reported below without echoing the secret text
  }
  if (typeof parsed.apiKey !== 'string' || parsed.apiKey === '')
    throw new ConfigError([`secret ${source.secretArn} has no "apiKey" string (see README, Deploy)`]);
  return {
    baseUrl: source.baseUrl,
    apiKey: parsed.apiKey,
    webhookSecret: typeof parsed.webhookSecret === 'string' ? parsed.webhookSecret : null,
  };
}
