import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { OutcomeQueue } from './receiver.ts';

/** The outcomes queue in AWS. */
export class SqsOutcomeQueue implements OutcomeQueue {
  constructor(
    private readonly sqs: SQSClient,
    private readonly queueUrl: string,
  ) {}

  async send(body: string): Promise<void> {
    await this.sqs.send(new SendMessageCommand({ QueueUrl: this.queueUrl, MessageBody: body }));
  }
}
