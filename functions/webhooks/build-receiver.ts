import { documentClient, sqsClient } from '#commons/aws/clients.ts';
import type { WebhookConfig } from './config.ts';
import { type OutcomeQueue, WebhookReceiver } from './receiver.ts';
import { DynamoReplayGuard } from './replay-guard.ts';
import { SqsOutcomeQueue } from './sqs-queue.ts';
import { CachedSecret, secretLoader } from './webhook-secret.ts';

/** Wires the receiver to DynamoDB, Secrets Manager (or the env) and SQS (or the local stack's queue). */
export function buildWebhookReceiver(config: WebhookConfig, queue?: OutcomeQueue, now?: () => Date): WebhookReceiver {
  const aws = config.aws;
  return new WebhookReceiver({
    secret: new CachedSecret(secretLoader(config.secret, aws), {
      ttlMs: config.secretTtlMs,
      minRefreshMs: config.secretMinRefreshMs,
    }),
    guard: new DynamoReplayGuard(documentClient(aws), config.outcomesTable),
    queue: queue ?? new SqsOutcomeQueue(sqsClient(aws, config.sqsEndpoint), config.queueUrl),
    maxBodyBytes: config.maxBodyBytes,
    ...(now ? { now } : {}),
  });
}
