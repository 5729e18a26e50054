import type { ErrorObject } from 'ajv';
import type { CountryCode } from 'libphonenumber-js/max';
import type { ContactUpserted } from '#commons/contact-events.ts';
import { isCountryCode, normalizePhone } from '#commons/phone/phone.ts';
import { CONTACT_TEXT_FIELDS, normalizeLabel } from '#commons/voice-api/contract.ts';
import { validateV1, validateV2 } from './contact-upserted.validator.ts';

/** EventBridge detail-type of a contact change on callsheet's bus. */
export const CONTACT_UPSERTED = 'Contact Upserted';
export const CONTACT_EVENT_SOURCE = 'callsheet.contacts';

/** The contact fields callsheet keeps, under the API's own keys (docs/api-contract.md, Contacts). */
export const CONTACT_FIELDS = CONTACT_TEXT_FIELDS;
export type ContactField = (typeof CONTACT_FIELDS)[number];
export type ContactFields = Partial<Record<ContactField, string>>;

/** One change, checked and normalized: what the store applies. Blank values are already gone. */
export interface ContactChange {
  eventId: string;
  /** E.164, normalized exactly as intake normalizes sheet rows. */
  phone: string;
  /**
   * When the change was made (version 2's `changed_at`, as an ISO time in UTC to the millisecond). Absent for a
   * version 1 event, which counts as made when it is applied.
   */
  changedAt?: string;
  fields: ContactFields;
  /** Trimmed, non-blank, first-seen order, no repeats. */
  tags: string[];
  note: string | null;
}

export type EventCheck = { ok: true; change: ContactChange } | { ok: false; reason: string };

type Validator = ((data: unknown) => data is ContactUpserted) & { errors?: ErrorObject[] | null };

/**
 * The schemas' checks, compiled ahead of time by Ajv (scripts/build-validators.mjs): the same code `ajv.compile`
 * would build, without its ~25 ms and ~100 KiB at every cold start.
 */
const VALIDATORS: Record<1 | 2, Validator> = { 1: validateV1 as Validator, 2: validateV2 as Validator };

/** The largest event accepted, as JSON: larger ones are rejected before they are parsed field by field. */
export const MAX_EVENT_BYTES = 64 * 1024;

/**
 * How far ahead of callsheet's clock a `changed_at` may be: producers' clocks drift a little, but a change dated in
 * the future would win over every real change until that time comes, so one further ahead is refused.
 */
export const MAX_CLOCK_SKEW_MS = 15 * 60_000;

/** A UTF-16 surrogate without its pair (JSON's "\ud800"): not text; stored, it would become U+FFFD. */
const LONE_SURROGATE = /\p{Cs}/u;

/** Errors named in a reason: an event of 64 KiB can break a rule tens of thousands of times (one per tag). */
const MAX_ERRORS_NAMED = 5;

function describe(errors: ErrorObject[] | null | undefined): string {
  const all = errors ?? [];
  const named = all
    .slice(0, MAX_ERRORS_NAMED)
    .map((e) => {
      const where = e.instancePath ? e.instancePath.slice(1).replace(/\//g, '.') : 'event';
      if (e.keyword === 'additionalProperties')
        return `${where}: unknown field "${(e.params as { additionalProperty: string }).additionalProperty}"`;
      if (e.keyword === 'pattern' && where === 'email') return 'email: not a valid email address';
      return `${where} ${e.message}`;
    })
    .join('; ');
  const more = all.length - MAX_ERRORS_NAMED;
  return more > 0 ? `${named}; and ${more.toLocaleString('en')} more` : named;
}

const present = (v: string | null | undefined): v is string => typeof v === 'string' && v.trim() !== '';

const isRecord = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** Which schema judges an event: version 2 when it says so; anything else that is not version 1 is refused. */
function schemaOf(input: unknown): { version: 1 | 2 } | { reason: string } {
  if (!isRecord(input) || input.schema_version === undefined || input.schema_version === 1)
    return isRecord(input) && 'changed_at' in input
      ? { reason: 'changed_at: goes with "schema_version": 2 (a version 1 event has no change time)' }
      : { version: 1 };
  if (input.schema_version === 2) return { version: 2 };
  return { reason: `schema_version: ${JSON.stringify(input.schema_version)} is not supported (1 or 2)` };
}

/**
 * A `changed_at` the schema's pattern let through, as an ISO time in UTC; or why it is not a time to order by
 * (a day the month does not have, before 1970, too far ahead of `now`).
 */
function changeTime(text: string, now: Date | undefined): { at: string } | { reason: string } {
  const [y, m, d] = text.slice(0, 10).split('-').map(Number) as [number, number, number];
  const ms = Date.parse(text);
  if (new Date(Date.UTC(y, m - 1, d)).getUTCDate() !== d || Number.isNaN(ms))
    return { reason: `changed_at: ${text} is not a real time` };
  if (ms < 0) return { reason: `changed_at: ${text} is before 1970` };
  if (now && ms > now.getTime() + MAX_CLOCK_SKEW_MS)
    return {
      reason: `changed_at: ${text} is more than ${MAX_CLOCK_SKEW_MS / 60_000} minutes ahead of callsheet's clock (${now.toISOString()}); check the sender's clock`,
    };
  return { at: new Date(ms).toISOString() };
}

/** What a number without its country code needs, in an event: said where no default country is set. */
const EVENT_COUNTRY_ADVICE = 'write it as +<country code><number>, or give the event a "country", e.g. "US"';

/**
 * The one edge check, used by the Lambda, the sheet reader and the CLI alike: the JSON Schema of the event's
 * version, well-formed text, the change time (against `now` when given), then the phone number (as intake reads
 * it: national numbers in `country` or the default country), then the API's own normalizations (labels in lower
 * snake case), so what is stored is exactly what the API will store. `countryAdvice`: what a number without its
 * country code is told to do where no default country is set (a sheet's row has no "country" of its own).
 */
export function checkContactEvent(
  input: unknown,
  defaultCountry?: CountryCode,
  now?: Date,
  countryAdvice = EVENT_COUNTRY_ADVICE,
): EventCheck {
  const schema = schemaOf(input);
  if ('reason' in schema) return { ok: false, reason: schema.reason };
  const validate = VALIDATORS[schema.version];
  if (!validate(input)) return { ok: false, reason: describe(validate.errors) };
  const e = input;
  for (const [key, value] of Object.entries(e))
    if ((Array.isArray(value) ? value : [value]).some((t) => typeof t === 'string' && LONE_SURROGATE.test(t)))
      return { ok: false, reason: `${key}: not valid Unicode text (a lone surrogate such as \\ud800)` };
  let changedAt: string | undefined;
  if (e.schema_version === 2) {
    const time = changeTime(e.changed_at, now);
    if ('reason' in time) return { ok: false, reason: time.reason };
    changedAt = time.at;
  }
  const country = e.country?.toUpperCase();
  if (country !== undefined && !isCountryCode(country))
    return { ok: false, reason: `country: ${e.country} is not an ISO 3166 country code` };
  const phone = normalizePhone(e.phone_number, (country as CountryCode | undefined) ?? defaultCountry);
  if (!phone.ok)
    return {
      ok: false,
      reason:
        phone.reason === 'missing_phone'
          ? 'phone_number: empty'
          : `phone_number: ${JSON.stringify(e.phone_number)} is not a valid phone number${country || defaultCountry ? '' : ` (${countryAdvice})`}`,
    };
  const fields: ContactFields = {};
  const raw: Record<ContactField, string | null | undefined> = {
    contact_name: e.name,
    email: e.email,
    city: e.city,
    location: e.location,
    source: e.source,
    lead_status: e.lead_status,
    custom_instruction: e.custom_instruction,
  };
  for (const key of CONTACT_FIELDS) {
    const v = raw[key];
    if (!present(v)) continue;
    fields[key] = key === 'source' || key === 'lead_status' ? normalizeLabel(v) : v.trim();
    if (fields[key] === '') delete fields[key];
  }
  const tags: string[] = [];
  for (const t of e.tags ?? []) {
    const tag = t.trim();
    if (tag !== '' && !tags.includes(tag)) tags.push(tag);
  }
  return {
    ok: true,
    change: {
      eventId: e.event_id,
      phone: phone.e164,
      ...(changedAt ? { changedAt } : {}),
      fields,
      tags,
      note: present(e.note) ? e.note.trim() : null,
    },
  };
}

/**
 * Reads one queue message: an EventBridge envelope (rule → SQS) whose detail is the event, or the bare event
 * (sheets, the CLI). The envelope's detail-type must be `Contact Upserted`.
 */
export function checkContactMessage(body: string, defaultCountry?: CountryCode, now?: Date): EventCheck {
  if (Buffer.byteLength(body) > MAX_EVENT_BYTES)
    return { ok: false, reason: `event is larger than ${MAX_EVENT_BYTES} bytes` };
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return { ok: false, reason: 'not JSON' };
  }
  if (parsed !== null && typeof parsed === 'object' && 'detail-type' in parsed) {
    const envelope = parsed as { 'detail-type': unknown; detail?: unknown };
    if (envelope['detail-type'] !== CONTACT_UPSERTED)
      return {
        ok: false,
        reason: `detail-type ${JSON.stringify(envelope['detail-type'])} is not "${CONTACT_UPSERTED}"`,
      };
    return checkContactEvent(envelope.detail, defaultCountry, now);
  }
  return checkContactEvent(parsed, defaultCountry, now);
}
