import type { CountryCode } from 'libphonenumber-js/max';
import { type BudgetConfig, readBudgetConfig, readBudgetWaitMs } from '#commons/api-budget/config.ts';
import { type AwsSettings, readAwsSettings } from '#commons/aws/clients.ts';
import { type Env, EnvReader, wholeNumber } from '#commons/config.ts';
import { isCountryCode } from '#commons/phone/phone.ts';
import { TABLES } from '#commons/tables.ts';
import { readVoiceApiSource, type VoiceApiSource } from '#commons/voice-api-access.ts';

export interface ContactsConfig {
  aws: AwsSettings;
  /** SQS endpoint override (local tools only). */
  sqsEndpoint?: string;
  contactsTable: string;
  /** The do-not-call list an opt-out change puts its number on. */
  suppressionTable: string;
  budget: BudgetConfig;
  voiceApi: VoiceApiSource;
  apiTimeoutMs: number;
  defaultCountry?: CountryCode;
  /** The contact queue itself: a contact sheet's rows are sent there as events. */
  queueUrl: string;
  /** The dead-letter queue poison and invalid events go to, with their reason. */
  deadLetterQueueUrl: string;
  /** The delivery on which a still-failing message is dead-lettered with its reason. */
  maxReceives: number;
  /** Longest wait for a budget token inside one invocation; longer, and the messages come back later. */
  budgetWaitMs: number;
}

/** Every contact-sync setting, checked at start-up; all problems are reported together. */
/** `queues: 'local'`: the local stack's in-process queue stands in for the contact queue and its dead letters. */
export function readContactsConfig(source: Env, options: { queues?: 'local' } = {}): ContactsConfig {
  const env = new EnvReader(source);
  const config: ContactsConfig = {
    aws: readAwsSettings(env),
    sqsEndpoint: env.optional('AWS_ENDPOINT_URL_SQS'),
    contactsTable: env.required(TABLES.contacts.env),
    suppressionTable: env.required(TABLES.suppression.env),
    budget: readBudgetConfig(env),
    voiceApi: readVoiceApiSource(env),
    apiTimeoutMs: (env.checked('VOICE_API_TIMEOUT_SECONDS', wholeNumber(1)) ?? 30) * 1000,
    defaultCountry: env.checked<CountryCode>('DEFAULT_COUNTRY', (v) =>
      isCountryCode(v.toUpperCase()) ? (v.toUpperCase() as CountryCode) : { problem: 'not an ISO country code' },
    ),
    queueUrl: options.queues === 'local' ? '' : env.required('CONTACTS_QUEUE_URL'),
    deadLetterQueueUrl: options.queues === 'local' ? '' : env.required('CONTACTS_DLQ_URL'),
    maxReceives: env.checked('CONTACTS_MAX_RECEIVES', wholeNumber(1)) ?? 5,
    budgetWaitMs: readBudgetWaitMs(env),
  };
  env.done();
  return config;
}
