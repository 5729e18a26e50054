import { SendMessageBatchCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { DeadLetter, DeadLetterSink } from './contact-sync.ts';

/** SQS's limit on a message attribute value is generous; a reason is cut to stay readable. */
const MAX_REASON = 1000;

/** The contact queue's dead-letter queue, each message with a `reason` attribute and its original message id. */
export class SqsDeadLetters implements DeadLetterSink {
  constructor(
    private readonly sqs: SQSClient,
    private readonly queueUrl: string,
  ) {}

  async put(letters: DeadLetter[]): Promise<void> {
    for (let i = 0; i < letters.length; i += 10) {
      const batch = letters.slice(i, i + 10);
      const out = await this.sqs.send(
        new SendMessageBatchCommand({
          QueueUrl: this.queueUrl,
          Entries: batch.map((l, j) => ({
            Id: String(j),
            MessageBody: l.body === '' ? '(empty)' : l.body,
            MessageAttributes: {
              reason: { DataType: 'String', StringValue: l.reason.slice(0, MAX_REASON) },
              originalMessageId: { DataType: 'String', StringValue: l.messageId },
            },
          })),
        }),
      );
      if ((out.Failed ?? []).length > 0)
        throw new Error(`dead-letter queue refused ${out.Failed?.length} message(s): ${out.Failed?.[0]?.Message}`);
    }
  }
}
