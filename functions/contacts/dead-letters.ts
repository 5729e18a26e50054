import { SendMessageBatchCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { DeadLetter, DeadLetterSink } from './contact-sync.ts';

/** SQS's limit on a message attribute value is generous; a reason is cut to stay readable. */
const MAX_REASON = 1000;
/**
 * SendMessageBatch refuses a request whose bodies and attributes together pass 256 KiB: ten letters of large
 * invalid events would, and the whole batch would come back again and again instead of being dead-lettered.
 */
const MAX_BATCH_BYTES = 256 * 1024;
const MAX_BATCH_ENTRIES = 10;
/** The attributes' names and data types, with room to spare. */
const ATTRIBUTE_OVERHEAD = 100;

const entryBytes = (l: DeadLetter) =>
  Buffer.byteLength(l.body) +
  Buffer.byteLength(l.reason.slice(0, MAX_REASON)) +
  l.messageId.length +
  ATTRIBUTE_OVERHEAD;

/** Letters in requests SQS takes: ten at most, 256 KiB at most (a letter larger alone is sent alone). */
function batches(letters: DeadLetter[]): DeadLetter[][] {
  const out: DeadLetter[][] = [];
  let batch: DeadLetter[] = [];
  let bytes = 0;
  for (const letter of letters) {
    const size = entryBytes(letter);
    if (batch.length > 0 && (batch.length === MAX_BATCH_ENTRIES || bytes + size > MAX_BATCH_BYTES)) {
      out.push(batch);
      batch = [];
      bytes = 0;
    }
    batch.push(letter);
    bytes += size;
  }
  if (batch.length > 0) out.push(batch);
  return out;
}

/** The contact queue's dead-letter queue, each message with a `reason` attribute and its original message id. */
export class SqsDeadLetters implements DeadLetterSink {
  constructor(
    private readonly sqs: SQSClient,
    private readonly queueUrl: string,
  ) {}

  async put(letters: DeadLetter[]): Promise<void> {
    for (const batch of batches(letters)) {
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
