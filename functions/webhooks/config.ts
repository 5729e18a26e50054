import { type AwsSettings, readAwsSettings } from '#commons/aws/clients.ts';
import { type Env, EnvReader, wholeNumber } from '#commons/config.ts';
import { TABLES } from '#commons/tables.ts';
import type { WebhookSecretSource } from './webhook-secret.ts';

export interface WebhookConfig {
  aws: AwsSettings;
  sqsEndpoint?: string;
  outcomesTable: string;
  /** The outcomes queue; absent only in the local stack, which hands events to its own queue. */
  queueUrl: string;
  secret: WebhookSecretSource;
  secretTtlMs: number;
  secretMinRefreshMs: number;
  maxBodyBytes: number;
}

/**
 * Receiver settings, checked at start-up. The secret comes from VOICE_API_WEBHOOK_SECRET (local runs) or the
 * `webhookSecret` field of the secret named by VOICE_API_SECRET_ARN.
 */
export function readWebhookConfig(source: Env, options: { queue: 'sqs' | 'local' } = { queue: 'sqs' }): WebhookConfig {
  const env = new EnvReader(source);
  const local = env.optional('VOICE_API_WEBHOOK_SECRET');
  const config: WebhookConfig = {
    aws: readAwsSettings(env),
    sqsEndpoint: env.optional('AWS_ENDPOINT_URL_SQS'),
    outcomesTable: env.required(TABLES.outcomes.env),
    queueUrl: options.queue === 'sqs' ? env.required('OUTCOMES_QUEUE_URL') : '',
    secret: local ? { value: local } : { secretArn: env.required('VOICE_API_SECRET_ARN') },
    secretTtlMs: (env.checked('WEBHOOK_SECRET_TTL_SECONDS', wholeNumber(1)) ?? 300) * 1000,
    secretMinRefreshMs: (env.checked('WEBHOOK_SECRET_MIN_REFRESH_SECONDS', wholeNumber(1)) ?? 10) * 1000,
    maxBodyBytes: env.checked('WEBHOOK_MAX_BODY_BYTES', wholeNumber(1)) ?? 64 * 1024,
  };
  env.done();
  return config;
}
