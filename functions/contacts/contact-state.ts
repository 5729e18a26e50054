import { CONTACT_FIELDS, type ContactChange, type ContactField, type ContactFields } from './contact-event.ts';

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
  /**
   * When each field's value was changed (its event's `changed_at`, or when a version 1 event was applied), ISO in
   * UTC. A field without one (stored before version 2) yields to any change.
   */
  fieldTimes?: Partial<Record<ContactField, string>>;
  tags: string[];
  noteCount: number;
  /** Notes written with the contact but not yet moved to their own items (only after a crash, or in flight). */
  pendingNotes: Record<string, Note>;
  /** The last few event ids applied, so a crash between the contact write and the event record is still safe. */
  recentEvents: string[];
  version: number;
  createdAt: string;
  /** When callsheet last wrote a change to the item (what `contacts list --changed-since` selects on). */
  changedAt: string;
  pushed: PushedState;
  claim?: PushClaim;
  lastPush?: { at: string; ok: boolean; error?: string };
}

export const RECENT_EVENTS = 20;

/** `superseded`: the change's fields left as they were because a newer change of each is stored. */
export type ApplyPlan =
  | { kind: 'unchanged'; superseded: ContactField[] }
  | {
      kind: 'write';
      next: ContactState;
      note: Note | null;
      created: boolean;
      /** False when only the fields' change times moved (the same values, changed again later). */
      changed: boolean;
      superseded: ContactField[];
    };

/**
 * The API's upsert rules on callsheet's state, in the order the changes were made: a provided field overwrites
 * unless a newer change of that field is stored (so an older change arriving last never undoes a newer one),
 * tags union and a note appends whenever their event arrives. A change without a time (version 1) counts as made
 * now. Changes made in the same millisecond apply in arrival order.
 */
export function planApply(current: ContactState | null, change: ContactChange, now: Date): ApplyPlan {
  const at = now.toISOString();
  const time = change.changedAt ?? at;
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
  const fieldTimes = { ...base.fieldTimes };
  const superseded: ContactField[] = [];
  let changed = current === null;
  let timesMoved = false;
  for (const key of CONTACT_FIELDS) {
    const v = change.fields[key];
    if (v === undefined) continue;
    const stored = fieldTimes[key];
    if (stored !== undefined && Date.parse(stored) > Date.parse(time)) {
      if (fields[key] !== v) superseded.push(key);
      continue;
    }
    if (fields[key] !== v) {
      fields[key] = v;
      fieldTimes[key] = time;
      changed = true;
    } else if (change.changedAt !== undefined && stored !== time) {
      // The same value changed again later moves its time, so a change made in between does not win over it. (A
      // version 1 event's time is only when it arrived: for an unchanged value that is not worth a write.)
      fieldTimes[key] = time;
      timesMoved = true;
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
  if (note !== null) changed = true;
  if (!changed && !timesMoved) return { kind: 'unchanged', superseded };
  return {
    kind: 'write',
    created: current === null,
    changed,
    superseded,
    note,
    next: {
      ...base,
      fields,
      fieldTimes,
      tags,
      noteCount: note ? note.seq : base.noteCount,
      pendingNotes: note ? { ...base.pendingNotes, [String(note.seq)]: note } : base.pendingNotes,
      recentEvents: [...base.recentEvents, change.eventId].slice(-RECENT_EVENTS),
      version: base.version + 1,
      changedAt: changed ? at : base.changedAt,
    },
  };
}
