import type { ErrorObject } from 'ajv';
import type { CountryCode } from 'libphonenumber-js/max';
import type { ContactUpsertedV1 } from '#commons/contact-events.ts';
import { isCountryCode, normalizePhone } from '#commons/phone/phone.ts';
import { CONTACT_TEXT_FIELDS, normalizeLabel } from '#commons/voice-api/contract.ts';
import { validate as compiledSchema } from './contact-upserted.v1.validator.ts';

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
  fields: ContactFields;
  /** Trimmed, non-blank, first-seen order, no repeats. */
  tags: string[];
  note: string | null;
}

export type EventCheck = { ok: true; change: ContactChange } | { ok: false; reason: string };

/**
 * The schema's check, compiled ahead of time by Ajv (scripts/build-validators.mjs): the same code `ajv.compile`
 * would build, without its ~25 ms and ~100 KiB at every cold start.
 */
const validate = compiledSchema as ((data: unknown) => data is ContactUpsertedV1) & {
  errors?: ErrorObject[] | null;
};

/** The largest event accepted, as JSON: larger ones are rejected before they are parsed field by field. */
export const MAX_EVENT_BYTES = 64 * 1024;

function describe(errors: ErrorObject[] | null | undefined): string {
  return (errors ?? [])
    .map((e) => {
      const where = e.instancePath ? e.instancePath.slice(1).replace(/\//g, '.') : 'event';
      if (e.keyword === 'additionalProperties')
        return `${where}: unknown field "${(e.params as { additionalProperty: string }).additionalProperty}"`;
      if (e.keyword === 'pattern' && where === 'email') return 'email: not a valid email address';
      return `${where} ${e.message}`;
    })
    .join('; ');
}

const present = (v: string | null | undefined): v is string => typeof v === 'string' && v.trim() !== '';

/**
 * The one edge check, used by the Lambda, the sheet reader and the CLI alike: the JSON Schema, then the phone
 * number (as intake reads it: national numbers in `country` or the default country), then the API's own
 * normalizations (labels in lower snake case), so what is stored is exactly what the API will store.
 */
export function checkContactEvent(input: unknown, defaultCountry?: CountryCode): EventCheck {
  if (!validate(input)) return { ok: false, reason: describe(validate.errors) };
  const e = input;
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
          : `phone_number: ${JSON.stringify(e.phone_number)} is not a valid phone number${country || defaultCountry ? '' : ' (write it as +<country code><number>, or give country)'}`,
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
    change: { eventId: e.event_id, phone: phone.e164, fields, tags, note: present(e.note) ? e.note.trim() : null },
  };
}

/**
 * Reads one queue message: an EventBridge envelope (rule → SQS) whose detail is the event, or the bare event
 * (sheets, the CLI). The envelope's detail-type must be `Contact Upserted`.
 */
export function checkContactMessage(body: string, defaultCountry?: CountryCode): EventCheck {
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
    return checkContactEvent(envelope.detail, defaultCountry);
  }
  return checkContactEvent(parsed, defaultCountry);
}
