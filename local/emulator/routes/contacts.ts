import { CONTACT_TEXT_FIELDS, E164, LIMITS, normalizeLabel } from '#commons/voice-api/contract.ts';
import { batchAnswer, type EntryResult, entryPhone } from '../batch.ts';
import type { EmulatorCore } from '../core.ts';
import { Fields } from '../fields.ts';
import type { Router } from '../http-kit.ts';
import type { ContactRecord } from '../state.ts';
import { contactView } from '../views.ts';

const TEXT_FIELDS = CONTACT_TEXT_FIELDS;
const CONTACT_FIELDS = ['phone_number', ...TEXT_FIELDS, 'tags', 'note'] as const;

interface ContactChanges {
  phone_number: string;
  text: Partial<Record<(typeof TEXT_FIELDS)[number], string>>;
  tags: string[];
  note: string | null;
}

const blank = (v: string | null | undefined): boolean => v === undefined || v === null || v.trim() === '';

/** Reads one contact; blank values are dropped here because the upsert rules leave those fields alone. */
function readContact(body: unknown, loc: (string | number)[]): { changes?: ContactChanges; fields: Fields } {
  const f = new Fields(body, loc);
  f.forbidOthers(CONTACT_FIELDS);
  const phone = f.string('phone_number', { required: true });
  if (phone && !E164.test(phone)) f.fail('phone_number', 'phone number must be E.164, e.g. +14155552671');
  const text: ContactChanges['text'] = {};
  for (const key of TEXT_FIELDS) {
    const v = f.string(key, { nullable: true, max: 2000 });
    if (!blank(v)) text[key] = (v as string).trim();
  }
  if (text.email !== undefined && !/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(text.email))
    f.fail('email', 'not a valid email address');
  if (text.source !== undefined) text.source = normalizeLabel(text.source);
  if (text.lead_status !== undefined) text.lead_status = normalizeLabel(text.lead_status);
  const tags = (f.stringList('tags', { nullable: true }) ?? []).map((t) => t.trim()).filter((t) => t !== '');
  const note = f.string('note', { nullable: true, max: 5000 });
  if (f.items.length > 0) return { fields: f };
  return {
    fields: f,
    changes: { phone_number: phone as string, text, tags, note: blank(note) ? null : (note as string).trim() },
  };
}

/** The contract's upsert: provided fields overwrite, tags union, notes append. */
function upsert(core: EmulatorCore, c: ContactChanges): { contact: ContactRecord; created: boolean } {
  const now = core.clock.now();
  const existing = core.account.contacts.get(c.phone_number);
  const contact: ContactRecord = existing ?? {
    phone_number: c.phone_number,
    contact_name: null,
    email: null,
    city: null,
    location: null,
    source: null,
    lead_status: null,
    custom_instruction: null,
    tags: [],
    notes: [],
    created_at: now,
    updated_at: now,
  };
  Object.assign(contact, c.text);
  for (const tag of c.tags) if (!contact.tags.includes(tag)) contact.tags.push(tag);
  if (c.note !== null) contact.notes.push(c.note);
  contact.updated_at = now;
  core.account.contacts.set(contact.phone_number, contact);
  return { contact, created: !existing };
}

export function contactRoutes(router: Router, core: EmulatorCore): void {
  router.on('POST', '/contacts', (ctx) => {
    const { changes, fields } = readContact(ctx.json(), ['body']);
    fields.done();
    const { contact, created } = upsert(core, changes as ContactChanges);
    return { status: 200, body: { contact: contactView(contact), created } };
  });

  router.on('POST', '/contacts/bulk', (ctx) => {
    const f = new Fields(ctx.json(), ['body']);
    f.forbidOthers(['contacts']);
    const entries = f.batch('contacts', LIMITS.bulkContacts);
    f.done();
    const results = entries.map((entry, index): EntryResult => {
      const { changes, fields } = readContact(entry, ['body', 'contacts', index]);
      if (!changes) return { index, phone_number: entryPhone(entry), success: false, error: fields.summary() };
      const { created } = upsert(core, changes);
      return { index, phone_number: changes.phone_number, success: true, created };
    });
    return { status: 200, body: batchAnswer(results) };
  });
}
