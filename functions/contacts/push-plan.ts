import { LIMITS } from '#commons/voice-api/contract.ts';
import type { ContactInput } from '#commons/voice-api/types.ts';
import { CONTACT_FIELDS, type ContactFields } from './contact-event.ts';
import type { ContactState, Note, PushedState } from './contact-state.ts';

/** What one contact sends in one push: bulk entries in order, and the pushed state once they are accepted. */
export interface ContactPush {
  phone: string;
  /** The first carries the changed fields, the new tags and the first unsent note; each further one a note. */
  entries: ContactInput[];
  /** Pushed state if the first entry is accepted. */
  accepted: PushedState;
  /** The note each entry carries (its sequence number), aligned with `entries`. */
  noteSeqs: (number | null)[];
  /** What was pushed before this push. */
  before: PushedState;
  /** The contact as read for this push. */
  state: ContactState;
}

/** Only what changed since the last successful push; null when the API already has everything (no request). */
export function planContactPush(state: ContactState, unsent: Note[], at: string): ContactPush | null {
  const changed: ContactFields = {};
  for (const key of CONTACT_FIELDS) {
    const v = state.fields[key];
    if (v !== undefined && state.pushed.fields[key] !== v) changed[key] = v;
  }
  const newTags = state.tags.slice(state.pushed.tagCount);
  const neverPushed = state.pushed.at === null;
  if (!neverPushed && Object.keys(changed).length === 0 && newTags.length === 0 && unsent.length === 0) return null;
  const first: ContactInput = { phone_number: state.phone, ...changed };
  if (newTags.length > 0) first.tags = newTags;
  if (unsent[0]) first.note = unsent[0].text;
  const entries = [first, ...unsent.slice(1).map((n) => ({ phone_number: state.phone, note: n.text }))];
  return {
    phone: state.phone,
    entries,
    accepted: { fields: { ...state.fields }, tagCount: state.tags.length, noteCount: state.noteCount, at },
    noteSeqs: entries.map((_, i) => unsent[i]?.seq ?? null),
    before: state.pushed,
    state,
  };
}

export interface BulkChunk {
  entries: ContactInput[];
  /** Which contact and which of its entries each entry is. */
  owners: { push: ContactPush; entry: number }[];
}

/**
 * Packs contacts into `POST /contacts/bulk` bodies of at most 100 entries, a contact's entries together and in
 * order (a contact with more than 100 notes spans consecutive bodies, which go out in order).
 */
export function packBulk(pushes: ContactPush[], size = LIMITS.bulkContacts): BulkChunk[] {
  const chunks: BulkChunk[] = [];
  let current: BulkChunk = { entries: [], owners: [] };
  for (const push of pushes) {
    if (current.entries.length > 0 && current.entries.length + push.entries.length > size) {
      chunks.push(current);
      current = { entries: [], owners: [] };
    }
    push.entries.forEach((entry, i) => {
      if (current.entries.length === size) {
        chunks.push(current);
        current = { entries: [], owners: [] };
      }
      current.entries.push(entry);
      current.owners.push({ push, entry: i });
    });
  }
  if (current.entries.length > 0) chunks.push(current);
  return chunks;
}
