import { SQSClient } from '@aws-sdk/client-sqs';
import { apiBudget } from '../commons/api-budget/config.ts';
import { documentClient } from '../commons/aws/clients.ts';
import { VoiceApiClient } from '../commons/voice-api/client.ts';
import type { VoiceApiOptions } from '../commons/voice-api/http.ts';
import { resolveVoiceApiAccess } from '../commons/voice-api-access.ts';
import type { ContactsConfig } from './config.ts';
import { ContactPusher } from './contact-pusher.ts';
import { ContactStore } from './contact-store.ts';
import { ContactSync, type DeadLetterSink } from './contact-sync.ts';
import { SqsDeadLetters } from './dead-letters.ts';

export interface BuildSyncOptions {
  now?: () => Date;
  /** Dead letters somewhere else than SQS (the local stack keeps them in memory). */
  deadLetters?: DeadLetterSink;
  /** Client options (the local stack hands over the simulated clock). */
  api?: Partial<VoiceApiOptions>;
}

/** Wires contact sync to DynamoDB, the dead-letter queue and the Voice API through the account's shared budget. */
export async function buildContactSync(config: ContactsConfig, options: BuildSyncOptions = {}) {
  const access = await resolveVoiceApiAccess(config.voiceApi, config.aws);
  const db = documentClient(config.aws);
  const now = options.now ?? (() => new Date());
  const store = new ContactStore(db, config.contactsTable);
  const api = new VoiceApiClient({
    baseUrl: access.baseUrl,
    apiKey: access.apiKey,
    timeoutMs: config.apiTimeoutMs,
    budget: apiBudget(db, config.budget, 'shared', { clock: options.api?.clock, maxWaitMs: config.budgetWaitMs }),
    ...options.api,
  });
  const deadLetters =
    options.deadLetters ??
    new SqsDeadLetters(
      new SQSClient({
        region: config.aws.region,
        ...(config.sqsEndpoint ? { endpoint: config.sqsEndpoint } : {}),
        ...(config.aws.credentials ? { credentials: config.aws.credentials } : {}),
      }),
      config.deadLetterQueueUrl,
    );
  return {
    store,
    sync: new ContactSync({
      store,
      pusher: new ContactPusher({ store, api: api.contacts, now }),
      deadLetters,
      now,
      defaultCountry: config.defaultCountry,
      maxReceives: config.maxReceives,
    }),
  };
}
