/** Limits and vocabularies of the Voice Agent API (docs/api-contract.md); the client and the emulator share them. */
export const LIMITS = {
  bulkCalls: 100,
  bulkContacts: 100,
  campaignRows: 1000,
  campaignRetriesMax: 3,
  ttsScriptChars: 6000,
  widgetSessionMinutesMin: 1,
  widgetSessionMinutesMax: 60,
  widgetSessionMinutesDefault: 5,
  widgetTokenSeconds: 300,
  callListLimitMax: 100,
  callListLimitDefault: 20,
  knowledgeContentChars: 100_000,
  campaignFileBytes: 5 * 1024 * 1024,
} as const;

/** A campaign's contact file: the API takes .xlsx or .xls spreadsheets only (its file name says which). */
export const isCampaignFileName = (name: string): boolean => /\.(xlsx|xls)$/i.test(name);

export const CALL_STATUSES = ['queued', 'initiated', 'in_progress', 'completed', 'failed', 'cancelled'] as const;
export type CallStatus = (typeof CALL_STATUSES)[number];
export const CANCELLABLE_CALL_STATUSES: readonly CallStatus[] = ['queued', 'in_progress'];
export const FINISHED_CALL_STATUSES: readonly CallStatus[] = ['completed', 'failed', 'cancelled'];

/** A contact's text fields under the API's keys (docs/api-contract.md, Contacts); tags and note are lists. */
export const CONTACT_TEXT_FIELDS = [
  'contact_name',
  'email',
  'city',
  'location',
  'source',
  'lead_status',
  'custom_instruction',
] as const;

export const CAMPAIGN_STATUSES = ['scheduled', 'active', 'paused', 'completed'] as const;
export type CampaignStatus = (typeof CAMPAIGN_STATUSES)[number];

export const WEBHOOK_EVENTS = [
  'call.started',
  'call.completed',
  'call.failed',
  'transcript.ready',
  'recording.ready',
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENTS)[number];

/** The signature header the emulator sends; receivers accept any `X-…-Signature` (docs/api-contract.md). */
export const SIGNATURE_HEADER = 'X-VoiceAgent-Signature';

/** E.164: a plus, a country code that does not start with 0, at most 15 digits in all. */
export const E164 = /^\+[1-9]\d{6,14}$/;

/** `scheme://host[:port]` with nothing after it. */
export const EXACT_ORIGIN = /^https?:\/\/(\[[0-9a-fA-F:]+\]|[A-Za-z0-9.-]+)(:\d{1,5})?$/;

/** Lower snake case, the normalized form of contact `source` and `lead_status`. */
export function normalizeLabel(value: string): string {
  return value
    .trim()
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '');
}

export function isValidTimeZone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return tz.length > 0;
  } catch {
    return false;
  }
}
