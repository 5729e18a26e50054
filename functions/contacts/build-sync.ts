import { apiBudget } from '#commons/api-budget/config.ts';
import { documentClient, s3Client, sqsClient } from '#commons/aws/clients.ts';
import { ObjectStore } from '#commons/aws/object-store.ts';
import { type EventSink, SqsEventSink } from '#commons/contact-events.ts';
import { SuppressionList } from '#commons/suppression-list.ts';
import { ContactsApi } from '#commons/voice-api/contacts.ts';
import { Transport, type VoiceApiOptions } from '#commons/voice-api/http.ts';
import { resolveVoiceApiAccess } from '#commons/voice-api-access.ts';
import type { ContactsConfig } from './config.ts';
import { ContactPusher } from './contact-pusher.ts';
import { ContactStore } from './contact-store.ts';
import { ContactSync, type DeadLetterSink } from './contact-sync.ts';
import { SqsDeadLetters } from './dead-letters.ts';
import { ContactSheetIntake } from './sheet-intake.ts';

export interface BuildSyncOptions {
  now?: () => Date;
  /** Dead letters somewhere else than SQS (the local stack keeps them in memory). */
  deadLetters?: DeadLetterSink;
  /** Where a contact sheet's events go, if not the SQS queue. */
  events?: EventSink;
  /** Client options (the local stack hands over the simulated clock). */
  api?: Partial<VoiceApiOptions>;
}

/** Wires contact sync to DynamoDB, the dead-letter queue and the Voice API through the account's shared budget. */
export async function buildContactSync(config: ContactsConfig, options: BuildSyncOptions = {}) {
  const access = await resolveVoiceApiAccess(config.voiceApi, config.aws);
  const db = documentClient(config.aws);
  const now = options.now ?? (() => new Date());
  const store = new ContactStore(db, config.contactsTable);
  const contacts = new ContactsApi(
    new Transport({
      baseUrl: access.baseUrl,
      apiKey: access.apiKey,
      // The current key (re-read after a rotation, on 401) and the API answer metrics.
      fetch: access.fetch,
      timeoutMs: config.apiTimeoutMs,
      budget: apiBudget(db, config.budget, 'shared', { clock: options.api?.clock, maxWaitMs: config.budgetWaitMs }),
      ...options.api,
    }),
  );
  // One client for both queues, made only when one of them is not given.
  let sqs: ReturnType<typeof sqsClient> | undefined;
  const queues = () => {
    sqs ??= sqsClient(config.aws, config.sqsEndpoint);
    return sqs;
  };
  const deadLetters = options.deadLetters ?? new SqsDeadLetters(queues(), config.deadLetterQueueUrl);
  const events = options.events ?? new SqsEventSink(queues(), config.queueUrl);
  const sheets = new ContactSheetIntake({
    objects: new ObjectStore(s3Client(config.aws)),
    events,
    defaultCountry: config.defaultCountry,
  });
  return {
    store,
    sync: new ContactSync({
      store,
      sheets,
      pusher: new ContactPusher({ store, api: contacts, now }),
      deadLetters,
      now,
      defaultCountry: config.defaultCountry,
      maxReceives: config.maxReceives,
      suppression: new SuppressionList(db, config.suppressionTable),
    }),
  };
}
