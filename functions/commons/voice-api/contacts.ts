import { LIMITS } from './contract.ts';
import type { Transport } from './http.ts';
import { RequestChecks } from './request-checks.ts';
import type { BulkResult, ContactInput, ContactUpsertResult } from './types.ts';

function checkContact(checks: RequestChecks, c: ContactInput, loc: (string | number)[]): void {
  checks.phone(c.phone_number, [...loc, 'phone_number']);
  if (c.tags !== undefined) {
    checks.check(
      Array.isArray(c.tags) && c.tags.every((t) => typeof t === 'string'),
      [...loc, 'tags'],
      'tags must be a list of strings',
      'list_type',
    );
  }
}

const appendsNote = (c: ContactInput): boolean => typeof c.note === 'string' && c.note.trim() !== '';

export class ContactsApi {
  constructor(private readonly http: Transport) {}

  /**
   * Create-or-update by phone number. Safe to repeat unless it carries a note, because notes are appended:
   * then it is treated like a create and never repeated after an ambiguous failure.
   */
  async upsert(contact: ContactInput): Promise<ContactUpsertResult> {
    const checks = new RequestChecks();
    checkContact(checks, contact, ['body']);
    checks.done();
    return this.http.data<ContactUpsertResult>({
      method: 'POST',
      path: '/contacts',
      json: contact,
      repeatability: appendsNote(contact) ? 'once' : 'repeatable',
    });
  }

  /** The error a `bulkUpsert` now would meet before anything is sent, when known without a request; else null. */
  refusal(): Error | null {
    return this.http.refusal();
  }

  /** Up to 100 contacts; a failed entry does not abort the others. */
  async bulkUpsert(contacts: ContactInput[]): Promise<BulkResult> {
    const checks = new RequestChecks().count(contacts, ['body', 'contacts'], LIMITS.bulkContacts);
    contacts.forEach((c, i) => {
      checkContact(checks, c, ['body', 'contacts', i]);
    });
    checks.done();
    return this.http.data<BulkResult>({
      method: 'POST',
      path: '/contacts/bulk',
      json: { contacts },
      repeatability: contacts.some(appendsNote) ? 'once' : 'repeatable',
    });
  }
}
