import { Duration } from 'aws-cdk-lib';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { QUEUE_MAX_RECEIVES, visibilitySeconds } from '#commons/queue-settings.ts';

export interface QueueWithDeadLettersProps {
  /** The timeout of the function that consumes the queue; messages stay invisible six times as long. */
  consumerTimeout: Duration;
  /** Deliveries before a message goes to the dead letters (QUEUE_MAX_RECEIVES unless set). */
  maxReceiveCount?: number;
  /** How long the work queue keeps a message (SQS's 4 days unless set). */
  retentionPeriod?: Duration;
}

/**
 * A work queue and its dead-letter queue the way callsheet makes them: SQS-managed encryption, TLS only, dead
 * letters kept 14 days (the longest SQS allows) for a replay (docs/operations.md), and a visibility timeout six
 * times the consumer's, as Lambda's SQS guidance asks. `<id>Queue` and `<id>DeadLetters` are the construct ids.
 */
export function queueWithDeadLetters(
  scope: Construct,
  id: string,
  props: QueueWithDeadLettersProps,
): { queue: Queue; deadLetters: Queue } {
  const deadLetters = new Queue(scope, `${id}DeadLetters`, {
    encryption: QueueEncryption.SQS_MANAGED,
    enforceSSL: true,
    retentionPeriod: Duration.days(14),
  });
  const queue = new Queue(scope, `${id}Queue`, {
    encryption: QueueEncryption.SQS_MANAGED,
    enforceSSL: true,
    visibilityTimeout: Duration.seconds(visibilitySeconds(props.consumerTimeout.toSeconds())),
    ...(props.retentionPeriod ? { retentionPeriod: props.retentionPeriod } : {}),
    deadLetterQueue: { queue: deadLetters, maxReceiveCount: props.maxReceiveCount ?? QUEUE_MAX_RECEIVES },
  });
  return { queue, deadLetters };
}
