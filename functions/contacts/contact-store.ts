import { createHash } from 'node:crypto';
import { type DynamoDBDocumentClient, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { batchGetAll, batchWriteAll } from '#commons/aws/batch.ts';
import { isConditionFailed } from '#commons/aws/conditional-write.ts';
import { scanAll } from '#commons/aws/scan-all.ts';
import { CONTACT_FIELDS, type ContactChange, type ContactField } from './contact-event.ts';
import { type ContactState, type Note, type PushClaim, type PushedState, planApply } from './contact-state.ts';
import { inGroups } from './in-groups.ts';

/**
 * Event ids are kept 15 days: longer than SQS keeps a message (14 days at most) and than EventBridge retries a
 * delivery (24 hours), so no redelivery can outlive the memory of its event.
 */
export const EVENT_MEMORY_SECONDS = 15 * 24 * 3600;
const MAX_ATTEMPTS = 25;
/** Notes read to a request (a batch get's 100 keys). */
const NOTE_PAGE = 100;

export type ApplyStatus = 'created' | 'updated' | 'unchanged' | 'duplicate';

/**
 * What became of one change: its status, and the fields it left as they were because a newer change of each is
 * stored; or, for an event id already used for a different change, why it was refused.
 */
export type ApplyResult = { status: ApplyStatus; superseded: ContactField[] } | { status: 'conflict'; reason: string };

const contactKey = (phone: string) => `contact#${phone}`;
const noteKey = (phone: string, seq: number) => `note#${phone}#${String(seq).padStart(10, '0')}`;
const eventKey = (eventId: string) => `event#${eventId}`;

export interface ApplyOptions {
  /** The contact as read with the rest of its batch (null: not stored yet), so it is not read again. */
  read?: ContactState | null;
  /**
   * Where the change goes once applied, for the caller to mark in one `markApplied` with the rest of its batch; when
   * absent it is marked at once. Until marked, a redelivery tells it applied only from the contact's recent event
   * ids (the last RECENT_EVENTS), so a caller defers only a few events of any one contact.
   */
  marks?: ContactChange[];
}

/** What an event id names: the change itself, without its id, so a redelivery matches and another change does not. */
export function changeDigest(change: ContactChange): string {
  const { phone, changedAt, fields, tags, note } = change;
  const content = [phone, changedAt ?? null, CONTACT_FIELDS.map((k) => fields[k] ?? null), tags, note];
  return createHash('sha256').update(JSON.stringify(content)).digest('base64url');
}

/**
 * An `event#<id>` item: the claim of an event id, taken before its change is applied and marked applied after.
 * Items written before claims existed have neither `digest` nor `state`: they were written once applied.
 */
interface EventClaim {
  phone: string;
  digest?: string;
  state?: 'claimed' | 'applied';
  at: string;
}

/** Concurrent writers to one contact: someone changed it between our read and our write; read again. */
export class ContactContentionError extends Error {
  constructor(phone: string) {
    super(`contact ${phone} kept changing under ${MAX_ATTEMPTS} attempts; retry later`);
    this.name = 'ContactContentionError';
  }
}

/**
 * Contact state in DynamoDB, one table, three kinds of item:
 * - `contact#<E.164>`: fields and when each was changed, tags, the note count, what was last pushed, a version for
 *   optimistic concurrency;
 * - `note#<E.164>#<seq>`: one note each, so no number of notes can bring the contact item near 400 KB;
 * - `event#<id>`: the claim of an event id (expires after EVENT_MEMORY_SECONDS).
 *
 * An event id is claimed (a conditional put) before its change is applied, so one id is applied once however
 * often and wherever it arrives: an id already claimed for a different change (another phone, other fields) is
 * refused with the reason. Why our own conditional writes and not Powertools idempotency: its record says "this
 * handler ran", but a contact change must be one conditional write that both applies the change and remembers its
 * event id (`recentEvents`, in the same item): two deliveries of one event racing each other, or a delivery after
 * a crash between the claim and the write, are told apart by it. The contact write is conditional on the version
 * read, and the plan compares change times field by field, so a newer stored change is never overwritten by an
 * older one. Everything uses only conditional Get/Put/Update (dynalite has no transactions).
 */
export class ContactStore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly table: string,
  ) {}

  /** Applies one change once. Concurrent writers to the same contact each land: a lost race reads again. */
  async apply(change: ContactChange, now: Date, options: ApplyOptions = {}): Promise<ApplyResult> {
    const digest = changeDigest(change);
    const mark = async () => {
      if (options.marks) options.marks.push(change);
      else await this.markOne(change, digest, now);
    };
    // Both at once: the claim of the event id and the contact (a race between them is caught by the write).
    const [claim, first] = await Promise.all([
      this.claimEvent(change, digest, now),
      options.read !== undefined ? options.read : this.read(change.phone),
    ]);
    if (claim.kind === 'conflict') return { status: 'conflict', reason: claim.reason };
    if (claim.kind === 'applied') return { status: 'duplicate', superseded: [] };
    // Looked for once: a note the claiming delivery wrote does not go away, and one a racing delivery writes later
    // is in the recent event ids.
    let found: Promise<boolean> | undefined;
    const noted = (state: ContactState | null) => {
      if (claim.kind !== 'unfinished' || !change.note || !state) return false;
      found ??= this.hasNoteOf(state, change.eventId, claim.at);
      return found;
    };
    let current = first;
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      if (attempt > 0) current = await this.read(change.phone);
      // Claimed before by a delivery that crashed after writing, or that is racing this one and won. Past the
      // recent event ids, a note the change wrote still names its event (a note is the one thing applied twice
      // that would show twice); a change without one is the same when applied again.
      if (current?.recentEvents.includes(change.eventId) || (await noted(current))) {
        await mark();
        return { status: 'duplicate', superseded: [] };
      }
      const plan = planApply(current, change, now);
      // An unchanged plan writes nothing, so no condition would catch a pre-read state gone stale: read again.
      if (plan.kind === 'unchanged' && attempt === 0 && options.read !== undefined) continue;
      if (plan.kind === 'unchanged') {
        await mark();
        return { status: 'unchanged', superseded: plan.superseded };
      }
      try {
        if (plan.created) {
          await this.db.send(
            new PutCommand({
              TableName: this.table,
              Item: { pk: contactKey(change.phone), kind: 'contact', ...plan.next },
              ConditionExpression: 'attribute_not_exists(pk)',
            }),
          );
        } else {
          const note = plan.note;
          // Notes an earlier write left in the item move to their own items first, and out of the item with it.
          const moved = await this.putNotes(current as ContactState);
          const removals = moved.map((_, i) => `#p.#o${i}`);
          await this.db.send(
            new UpdateCommand({
              TableName: this.table,
              Key: { pk: contactKey(change.phone) },
              // Only the attributes a change owns: a push's claim and pushed state are never overwritten here.
              UpdateExpression: `SET #f = :f, #ft = :ft, #t = :t, #n = :n, #r = :r, #v = :v1, #c = :at${note ? ', #p.#seq = :note' : ''}${removals.length ? ` REMOVE ${removals.join(', ')}` : ''}`,
              // The version read: the change times the plan compared are still the stored ones.
              ConditionExpression: '#v = :v',
              ExpressionAttributeNames: {
                '#f': 'fields',
                '#ft': 'fieldTimes',
                '#t': 'tags',
                '#n': 'noteCount',
                '#r': 'recentEvents',
                '#v': 'version',
                '#c': 'changedAt',
                ...(note || moved.length ? { '#p': 'pendingNotes' } : {}),
                ...(note ? { '#seq': String(note.seq) } : {}),
                ...Object.fromEntries(moved.map((n, i) => [`#o${i}`, String(n.seq)])),
              },
              ExpressionAttributeValues: {
                ':f': plan.next.fields,
                ':ft': plan.next.fieldTimes,
                ':t': plan.next.tags,
                ':n': plan.next.noteCount,
                ':r': plan.next.recentEvents,
                ':v': plan.next.version - 1,
                ':v1': plan.next.version,
                ':at': plan.next.changedAt,
                ...(note ? { ':note': note } : {}),
              },
            }),
          );
        }
      } catch (err) {
        if (isConditionFailed(err)) continue;
        throw err;
      }
      await mark();
      return {
        status: plan.created ? 'created' : plan.changed ? 'updated' : 'unchanged',
        superseded: plan.superseded,
      };
    }
    throw new ContactContentionError(change.phone);
  }

  async read(phone: string): Promise<ContactState | null> {
    const out = await this.db.send(
      new GetCommand({ TableName: this.table, Key: { pk: contactKey(phone) }, ConsistentRead: true }),
    );
    if (!out.Item) return null;
    const { pk: _pk, kind: _kind, ...state } = out.Item;
    return state as ContactState;
  }

  /** Many contacts, 100 keys to a request (consistent, as `read`): the ones found, by phone. */
  async readMany(phones: readonly string[]): Promise<Map<string, ContactState>> {
    const found = new Map<string, ContactState>();
    for (const item of await this.getMany(phones.map(contactKey))) {
      const { pk: _pk, kind: _kind, ...state } = item;
      found.set(state.phone as string, state as unknown as ContactState);
    }
    return found;
  }

  /**
   * The changes whose event id is already marked applied for that same change: a redelivered batch skips them in
   * one read per 100 instead of a refused claim, a read of the claim and a read of the contact each.
   */
  async appliedEvents(changes: readonly ContactChange[]): Promise<Set<ContactChange>> {
    const held = new Map<string, EventClaim>();
    for (const item of await this.getMany([...new Set(changes.map((c) => eventKey(c.eventId)))]))
      held.set(item.pk as string, item as unknown as EventClaim);
    return new Set(
      changes.filter((c) => {
        const claim = held.get(eventKey(c.eventId));
        return claim?.state === 'applied' && claim.digest === changeDigest(c);
      }),
    );
  }

  /** Items by key, read consistently 100 to a request. */
  private getMany(pks: readonly string[]): Promise<Record<string, unknown>[]> {
    return batchGetAll(
      this.db,
      this.table,
      pks.map((pk) => ({ pk })),
      'contacts',
    );
  }

  /** Notes `from..to` (1-based, inclusive) in order, from their items or still pending in the contact item. */
  async notes(state: ContactState, from = 1, to = state.noteCount): Promise<Note[]> {
    const found = new Map<number, Note>();
    for (const n of Object.values(state.pendingNotes ?? {})) if (n.seq >= from && n.seq <= to) found.set(n.seq, n);
    const wanted: number[] = [];
    for (let s = from; s <= to; s++) if (!found.has(s)) wanted.push(s);
    for (const item of await this.getMany(wanted.map((s) => noteKey(state.phone, s))))
      found.set(item.seq as number, item as unknown as Note);
    return [...found.values()]
      .sort((a, b) => a.seq - b.seq)
      .map(({ seq, text, eventId, at }) => ({ seq, text, eventId, at }));
  }

  /**
   * Whether a note written at or after `since` (the claim of its event id) was written by `eventId`: read only
   * after a delivery that died, newest first, a page at a time, until the notes are older than the claim. An older
   * note of the same id is another delivery's, from before the claim expired (a sheet uploaded again weeks later).
   */
  private async hasNoteOf(state: ContactState, eventId: string, since: string): Promise<boolean> {
    for (let to = state.noteCount; to >= 1; to -= NOTE_PAGE) {
      const page = await this.notes(state, Math.max(1, to - NOTE_PAGE + 1), to);
      if (page.some((n) => n.eventId === eventId && n.at >= since)) return true;
      if (page.some((n) => n.at < since)) return false;
    }
    return false;
  }

  /** Every contact, or those changed at or after `since` (ISO time). */
  async list(since?: string): Promise<ContactState[]> {
    const found = await scanAll<Record<string, unknown>>(this.db, {
      TableName: this.table,
      FilterExpression: since ? '#k = :c AND #at >= :since' : '#k = :c',
      ExpressionAttributeNames: { '#k': 'kind', ...(since ? { '#at': 'changedAt' } : {}) },
      ExpressionAttributeValues: { ':c': 'contact', ...(since ? { ':since': since } : {}) },
    });
    const items = found.map(({ pk: _pk, kind: _kind, ...state }) => state as unknown as ContactState);
    return items.sort((a, b) => a.phone.localeCompare(b.phone));
  }

  /**
   * Takes the contact for one push. Refused (false) while another push holds it, or when the contact changed since
   * `state` was read. A claim left by a push that died is taken over, and the notes it may have sent count as sent:
   * a note is never sent twice.
   */
  async claim(state: ContactState, claim: PushClaim, now: number): Promise<boolean> {
    const stale = state.claim;
    const adopted = Math.max(state.pushed.noteCount, stale?.noteCount ?? 0);
    try {
      await this.db.send(
        new UpdateCommand({
          TableName: this.table,
          Key: { pk: contactKey(state.phone) },
          UpdateExpression: 'SET #claim = :c, #pushed.#nc = :adopted',
          // The version read, too: a push planned on a contact that changed since would send older values.
          ConditionExpression: stale
            ? '#claim.#token = :stale AND #claim.#until < :now AND #pushed.#nc = :m AND #v = :v'
            : 'attribute_not_exists(#claim) AND #pushed.#nc = :m AND #v = :v',
          ExpressionAttributeNames: {
            '#claim': 'claim',
            '#pushed': 'pushed',
            '#nc': 'noteCount',
            '#v': 'version',
            ...(stale ? { '#token': 'token', '#until': 'until' } : {}),
          },
          ExpressionAttributeValues: {
            ':c': claim,
            ':adopted': adopted,
            ':m': state.pushed.noteCount,
            ':v': state.version,
            ...(stale ? { ':stale': stale.token, ':now': now } : {}),
          },
        }),
      );
      return true;
    } catch (err) {
      if (isConditionFailed(err)) return false;
      throw err;
    }
  }

  /** Records a push's result and lets go of the contact. */
  async settle(
    state: ContactState,
    token: string,
    pushed: PushedState,
    lastPush: ContactState['lastPush'],
  ): Promise<void> {
    const moved = await this.putNotes(state);
    try {
      await this.db.send(
        new UpdateCommand({
          TableName: this.table,
          Key: { pk: contactKey(state.phone) },
          UpdateExpression: `SET #pushed = :p, #last = :l REMOVE #claim${moved.map((_, i) => `, #pn.#o${i}`).join('')}`,
          ConditionExpression: '#claim.#token = :token',
          ExpressionAttributeNames: {
            '#pushed': 'pushed',
            '#last': 'lastPush',
            '#claim': 'claim',
            '#token': 'token',
            ...(moved.length ? { '#pn': 'pendingNotes' } : {}),
            ...Object.fromEntries(moved.map((n, i) => [`#o${i}`, String(n.seq)])),
          },
          ExpressionAttributeValues: { ':p': pushed, ':l': lastPush, ':token': token },
        }),
      );
    } catch (err) {
      // Our claim expired and another push took over: it already counts what we may have sent.
      if (!isConditionFailed(err)) throw err;
    }
  }

  /**
   * Claims the change's event id: `new` when this delivery took it, `unfinished` when the same change was claimed
   * and is not yet marked applied (a crash, or a delivery racing this one), `applied` when it was, and `conflict`
   * when the id was claimed for a different change.
   */
  private async claimEvent(
    change: ContactChange,
    digest: string,
    now: Date,
  ): Promise<{ kind: 'new' | 'applied' } | { kind: 'unfinished'; at: string } | { kind: 'conflict'; reason: string }> {
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        await this.db.send(
          new PutCommand({
            TableName: this.table,
            Item: this.eventItem(change, digest, 'claimed', now),
            ConditionExpression: 'attribute_not_exists(pk)',
          }),
        );
        return { kind: 'new' };
      } catch (err) {
        if (!isConditionFailed(err)) throw err;
      }
      const out = await this.db.send(
        new GetCommand({ TableName: this.table, Key: { pk: eventKey(change.eventId) }, ConsistentRead: true }),
      );
      const held = out.Item as EventClaim | undefined;
      if (!held) continue; // expired between the two: claim again
      const same = held.digest === undefined ? held.phone === change.phone : held.digest === digest;
      if (!same)
        return {
          kind: 'conflict',
          reason: `event_id ${JSON.stringify(change.eventId)} was already used at ${held.at} for a different change${held.phone === change.phone ? '' : ` (to ${held.phone})`}; an event id names one change: send this one with a new event_id`,
        };
      return held.state === 'claimed' ? { kind: 'unfinished', at: held.at } : { kind: 'applied' };
    }
    throw new Error(`event id ${change.eventId} could not be claimed`);
  }

  private async markOne(change: ContactChange, digest: string, now: Date): Promise<void> {
    await this.db.send(new PutCommand({ TableName: this.table, Item: this.eventItem(change, digest, 'applied', now) }));
  }

  /**
   * Marks the changes' event ids applied (the `marks` of `apply`), 25 to a request; if the batches fail, one put
   * each, so only a failure of those leaves the batch to its contacts' recent event ids.
   */
  async markApplied(changes: readonly ContactChange[], now: Date): Promise<void> {
    const byId = new Map(changes.map((c) => [c.eventId, c]));
    try {
      await batchWriteAll(
        this.db,
        this.table,
        [...byId.values()].map((c) => ({ PutRequest: { Item: this.eventItem(c, changeDigest(c), 'applied', now) } })),
        'contact event ids',
      );
    } catch {
      await inGroups([...byId.values()], 16, (c) => this.markOne(c, changeDigest(c), now));
    }
  }

  private eventItem(change: ContactChange, digest: string, state: EventClaim['state'], now: Date) {
    return {
      pk: eventKey(change.eventId),
      kind: 'event',
      phone: change.phone,
      digest,
      state,
      at: now.toISOString(),
      expiresAt: Math.floor(now.getTime() / 1000) + EVENT_MEMORY_SECONDS,
    } satisfies EventClaim & Record<string, unknown>;
  }

  /**
   * Writes the notes still held in the contact item to their own items and answers them; the caller's next write
   * to the contact removes them from the item. Repeatable: a note's item is the same every time.
   */
  async putNotes(state: ContactState): Promise<Note[]> {
    const notes = Object.values(state.pendingNotes ?? {});
    await Promise.all(
      notes.map((note) =>
        this.db.send(
          new PutCommand({
            TableName: this.table,
            Item: { pk: noteKey(state.phone, note.seq), kind: 'note', ...note },
          }),
        ),
      ),
    );
    return notes;
  }
}
