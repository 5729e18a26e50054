import { CONTACT_FIELDS, type ContactChange, type ContactFields } from './contact-event.ts';

/** What was last accepted by the API for one contact. */
export interface PushedState {
  fields: ContactFields;
  /** `tags[0..tagCount)` have reached the API (tags only ever grow, in first-seen order). */
  tagCount: number;
  /** Notes 1..noteCount were sent (or given up on): never sent again, because the API appends every note. */
  noteCount: number;
  /** Last successful push; null while the API has never seen this contact. */
  at: string | null;
}

/** A push in flight: until `until`, nobody else pushes this contact; notes up to `noteCount` may be at the API. */
export interface PushClaim {
  token: string;
  until: number;
  noteCount: number;
}

export interface Note {
  seq: number;
  text: string;
  eventId: string;
  at: string;
}

/** One contact as stored (the `contact#<phone>` item). */
export interface ContactState {
  phone: string;
  fields: ContactFields;
  tags: string[];
  noteCount: number;
  /** Notes written with the contact but not yet moved to their own items (only after a crash, or in flight). */
  pendingNotes: Record<string, Note>;
  /** The last few event ids applied, so a crash between the contact write and the event record is still safe. */
  recentEvents: string[];
  version: number;
  createdAt: string;
  changedAt: string;
  pushed: PushedState;
  claim?: PushClaim;
  lastPush?: { at: string; ok: boolean; error?: string };
}

export const RECENT_EVENTS = 20;

export type ApplyPlan =
  | { kind: 'unchanged' }
  | { kind: 'write'; next: ContactState; note: Note | null; created: boolean };

/** The API's upsert rules on callsheet's state: provided fields overwrite, tags union, a note appends. */
export function planApply(current: ContactState | null, change: ContactChange, now: Date): ApplyPlan {
  const at = now.toISOString();
  const base: ContactState = current ?? {
    phone: change.phone,
    fields: {},
    tags: [],
    noteCount: 0,
    pendingNotes: {},
    recentEvents: [],
    version: 0,
    createdAt: at,
    changedAt: at,
    pushed: { fields: {}, tagCount: 0, noteCount: 0, at: null },
  };
  const fields: ContactFields = { ...base.fields };
  let changed = current === null;
  for (const key of CONTACT_FIELDS) {
    const v = change.fields[key];
    if (v !== undefined && fields[key] !== v) {
      fields[key] = v;
      changed = true;
    }
  }
  const tags = [...base.tags];
  for (const t of change.tags) {
    if (!tags.includes(t)) {
      tags.push(t);
      changed = true;
    }
  }
  const note: Note | null =
    change.note === null ? null : { seq: base.noteCount + 1, text: change.note, eventId: change.eventId, at };
  if (!changed && note === null) return { kind: 'unchanged' };
  return {
    kind: 'write',
    created: current === null,
    note,
    next: {
      ...base,
      fields,
      tags,
      noteCount: note ? note.seq : base.noteCount,
      pendingNotes: note ? { ...base.pendingNotes, [String(note.seq)]: note } : base.pendingNotes,
      recentEvents: [...base.recentEvents, change.eventId].slice(-RECENT_EVENTS),
      version: base.version + 1,
      changedAt: at,
    },
  };
}
