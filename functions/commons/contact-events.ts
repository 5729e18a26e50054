import { SendMessageBatchCommand, type SQSClient } from '@aws-sdk/client-sqs';

// The contact queue's events and how they are sent: contacts reads its sheets into them, intake sends the
// accepted rows of a launched campaign sheet, and the contact sync (functions/contacts/) consumes them.

/** A `Contact Upserted` event, version 1 (schemas/contact-upserted.v1.json): it counts as changed when applied. */
export interface ContactUpsertedV1 {
  schema_version?: 1;
  event_id: string;
  phone_number: string;
  country?: string;
  name?: string | null;
  email?: string | null;
  city?: string | null;
  location?: string | null;
  source?: string | null;
  lead_status?: string | null;
  custom_instruction?: string | null;
  tags?: string[] | null;
  note?: string | null;
}

/** Version 2 (schemas/contact-upserted.v2.json): version 1 with the time of the change, which orders changes. */
export interface ContactUpsertedV2 extends Omit<ContactUpsertedV1, 'schema_version'> {
  schema_version: 2;
  /** RFC 3339 with seconds and an offset. */
  changed_at: string;
}

/** Either version, as accepted on the queue. */
export type ContactUpserted = ContactUpsertedV1 | ContactUpsertedV2;

/** Where events go: the contact queue (SQS in AWS). */
export interface EventSink {
  send(events: ContactUpserted[]): Promise<void>;
}

/** Sends events to the contact queue, ten to a request, a few requests at a time. */
export class SqsEventSink implements EventSink {
  constructor(
    private readonly sqs: SQSClient,
    private readonly queueUrl: string,
  ) {}

  async send(events: ContactUpserted[]): Promise<void> {
    const batches: ContactUpserted[][] = [];
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
