import { SendMessageBatchCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { ContactUpsertedV1 } from './contact-event.ts';
import type { DeadLetter, DeadLetterSink } from './contact-sync.ts';
import type { EventSink } from './sheet-intake.ts';

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

/** Sends events to the contact queue, ten to a request, a few requests at a time. */
export class SqsEventSink implements EventSink {
  constructor(
    private readonly sqs: SQSClient,
    private readonly queueUrl: string,
  ) {}

  async send(events: ContactUpsertedV1[]): Promise<void> {
    const batches: ContactUpsertedV1[][] = [];
    for (let i = 0; i < events.length; i += 10) batches.push(events.slice(i, i + 10));
    for (let i = 0; i < batches.length; i += 8) {
      await Promise.all(
        batches.slice(i, i + 8).map(async (batch) => {
          const out = await this.sqs.send(
            new SendMessageBatchCommand({
              QueueUrl: this.queueUrl,
              Entries: batch.map((e, j) => ({ Id: String(j), MessageBody: JSON.stringify(e) })),
            }),
          );
          if ((out.Failed ?? []).length > 0)
            throw new Error(`contact queue refused ${out.Failed?.length} event(s): ${out.Failed?.[0]?.Message}`);
        }),
      );
    }
  }
}
