import type { CountryCode } from 'libphonenumber-js/max';
import { optOutOfContact } from '#commons/opt-out.ts';
import type { SuppressionList } from '#commons/suppression-list.ts';
import { type UploadRef, uploadsInS3Event } from '#commons/upload-ref.ts';
import { type ContactChange, type ContactField, checkContactMessage } from './contact-event.ts';
import type { PushOutcome } from './contact-pusher.ts';
import { RECENT_EVENTS } from './contact-state.ts';
import { type ApplyOptions, type ApplyStatus, type ContactStore, changeDigest } from './contact-store.ts';
import { inGroups } from './in-groups.ts';

/** One queue message as the sync sees it. */
export interface QueuedEvent {
  messageId: string;
  body: string;
  /** How many times the queue has delivered it (1 the first time). */
  receiveCount: number;
}

export interface DeadLetter {
  messageId: string;
  body: string;
  reason: string;
}

/** Where poison and invalid events go, each with the reason, so the batch goes on without them. */
export interface DeadLetterSink {
  put(letters: DeadLetter[]): Promise<void>;
}

export interface Pusher {
  push(phones: readonly string[]): Promise<Map<string, PushOutcome>>;
}

export type MessageResult =
  | {
      messageId: string;
      status: 'done';
      applied: ApplyStatus;
      push: PushOutcome['status'];
      /** Fields the event left as they were: a newer change of each is stored. */
      superseded?: ContactField[];
    }
  | { messageId: string; status: 'sheet'; sheets: number }
  | { messageId: string; status: 'rejected' | 'dead-lettered'; reason: string }
  | { messageId: string; status: 'retry'; reason: string };

/** One checked event of the batch. */
type Entry = { message: QueuedEvent; change: ContactChange };
/** What became of a stored change. */
type Stored = { status: ApplyStatus; superseded: ContactField[] };

/** Contact sheets dropped in the bucket: their S3 notifications come on the same queue. */
export interface SheetSource {
  process(ref: UploadRef): Promise<unknown>;
}

export interface SyncDeps {
  store: ContactStore;
  sheets?: SheetSource;
  pusher: Pusher;
  deadLetters: DeadLetterSink;
  now: () => Date;
  defaultCountry?: CountryCode;
  /** On this delivery a message that still fails goes to the dead letters with its reason (the queue's own
   * redrive, which would lose the reason, is set a little higher as a safety net). */
  maxReceives: number;
  /** Contacts changed at once (events of one contact are always applied in their order). */
  concurrency?: number;
  /**
   * The do-not-call list: a change that opts its contact out (a `do_not_call` tag, an opt-out lead status) lists
   * the number before the change is stored or pushed.
   */
  suppression: Pick<SuppressionList, 'add'>;
}

const describe = (err: unknown) => (err instanceof Error ? `${err.name}: ${err.message}` : String(err));

/**
 * One batch of `Contact Upserted` events: each is checked (bad ones go to the dead letters with the reason and
 * never hold the batch up), applied to the contact state once (an event id reused for a different change is
 * refused the same way), and the contacts they touched are pushed to the API together. A message comes back to
 * the queue only when its own contact could not be stored or pushed.
 */
export class ContactSync {
  constructor(private readonly deps: SyncDeps) {}

  async handle(messages: readonly QueuedEvent[]): Promise<MessageResult[]> {
    const results = new Map<string, MessageResult>();
    const byPhone = new Map<string, Entry[]>();
    const letters: DeadLetter[] = [];
    const reject = (message: QueuedEvent, reason: string) => {
      letters.push({ messageId: message.messageId, body: message.body, reason: `invalid event: ${reason}` });
      results.set(message.messageId, { messageId: message.messageId, status: 'rejected', reason });
    };
    // The first change each event id names in this batch. A message whose id already named a different change here
    // waits until the rest are stored: contacts are applied side by side, so otherwise which of the two claims the
    // id first would be chance; after, the store's claim refuses it (or, if the first was refused, applies it).
    const digests = new Map<string, string>();
    const later: Entry[] = [];
    const now = this.deps.now();
    for (const message of messages) {
      const uploads = s3Uploads(message.body);
      if (uploads) {
        results.set(message.messageId, await this.sheets(message.messageId, uploads));
        continue;
      }
      const check = checkContactMessage(message.body, this.deps.defaultCountry, now);
      if (!check.ok) {
        reject(message, check.reason);
        continue;
      }
      const entry = { message, change: check.change };
      const digest = changeDigest(check.change);
      const first = digests.get(check.change.eventId);
      if (first !== undefined && first !== digest) later.push(entry);
      else digests.set(check.change.eventId, digest);
      const list = byPhone.get(check.change.phone) ?? [];
      list.push(entry);
      byPhone.set(check.change.phone, list);
    }

    // Opt-outs first: listed before anything of theirs is stored or pushed, so no upload can call them meanwhile;
    // one request for all the numbers of a reason. One that cannot be listed now is neither stored nor pushed, and
    // its messages come back.
    const byReason = new Map<string, string[]>();
    for (const [phone, group] of byPhone) {
      const reason = group.map(({ change }) => optOutOfContact(optOutView(change))).find((r) => r !== null);
      if (!reason) continue;
      const same = byReason.get(reason);
      if (same) same.push(phone);
      else byReason.set(reason, [phone]);
    }
    const unlisted = new Set<QueuedEvent>();
    for (const [reason, phones] of byReason) {
      try {
        await this.deps.suppression.add(phones, `opted out: ${reason}`, 'contact-event', now);
      } catch (err) {
        for (const phone of phones) {
          for (const { message } of byPhone.get(phone) ?? []) {
            unlisted.add(message);
            results.set(message.messageId, {
              messageId: message.messageId,
              status: 'retry',
              reason: `not listed as do-not-call: ${describe(err)}`,
            });
          }
          byPhone.delete(phone);
        }
      }
    }
    const applied = await this.store(
      byPhone,
      later.filter((e) => !unlisted.has(e.message)),
      {
        refused: reject,
        failed: (message, reason) =>
          results.set(message.messageId, { messageId: message.messageId, status: 'retry', reason }),
      },
    );

    // Every stored event's contact is pushed, duplicates too: a redelivery after a failed push must push.
    const phones = [...byPhone.entries()]
      .filter(([, group]) => group.some(({ message }) => applied.has(message.messageId)))
      .map(([phone]) => phone);
    let pushed: Map<string, PushOutcome>;
    try {
      pushed = await this.deps.pusher.push(phones);
    } catch (err) {
      pushed = new Map(
        phones.map((p) => [p, { status: 'retry', reason: `not pushed: ${describe(err)}`, requests: 0 }]),
      );
    }
    for (const [phone, group] of byPhone) {
      const outcome = pushed.get(phone);
      for (const { message } of group) {
        const stored = applied.get(message.messageId);
        if (stored === undefined || !outcome) continue;
        results.set(
          message.messageId,
          'reason' in outcome
            ? { messageId: message.messageId, status: 'retry', reason: outcome.reason }
            : {
                messageId: message.messageId,
                status: 'done',
                applied: stored.status,
                push: outcome.status,
                ...(stored.superseded.length > 0 ? { superseded: stored.superseded } : {}),
              },
        );
      }
    }

    // Poison: the last delivery the queue allows still failed; keep it with its reason instead.
    const byId = new Map(messages.map((m) => [m.messageId, m]));
    for (const [id, r] of results) {
      const message = byId.get(id) as QueuedEvent;
      if (r.status === 'retry' && message.receiveCount >= this.deps.maxReceives) {
        letters.push({
          messageId: id,
          body: message.body,
          reason: `gave up after ${message.receiveCount} deliveries: ${r.reason}`,
        });
        results.set(id, { messageId: id, status: 'dead-lettered', reason: r.reason });
      }
    }
    // If the dead letters cannot be written, those messages stay on the queue (thrown: the batch is retried).
    if (letters.length > 0) await this.deps.deadLetters.put(letters);
    return messages.map((m) => results.get(m.messageId) as MessageResult);
  }

  /**
   * Stores the batch's changes, each once: contacts side by side, one contact's in their order, then the `later`
   * ones (an event id this batch already named for another change). Answers each stored message's status by id;
   * `on` hears of the refused and of those that could not be stored.
   */
  private async store(
    byPhone: Map<string, Entry[]>,
    later: Entry[],
    on: { refused(message: QueuedEvent, reason: string): void; failed(message: QueuedEvent, reason: string): void },
  ): Promise<Map<string, Stored>> {
    const applied = new Map<string, Stored>();
    const marks: ContactChange[] = [];
    const apply = async ({ message, change }: Entry, options: ApplyOptions) => {
      try {
        const result = await this.deps.store.apply(change, this.deps.now(), options);
        if (result.status === 'conflict') on.refused(message, result.reason);
        else applied.set(message.messageId, result);
      } catch (err) {
        on.failed(message, `not stored: ${describe(err)}`);
      }
    };
    // A redelivered message whose change is already stored (its push is what failed) only needs pushing.
    const redelivered = [...byPhone.values()].flat().filter((e) => e.message.receiveCount > 1);
    if (redelivered.length > 0) {
      try {
        const stored = await this.deps.store.appliedEvents(redelivered.map((e) => e.change));
        for (const e of redelivered)
          if (stored.has(e.change)) applied.set(e.message.messageId, { status: 'duplicate', superseded: [] });
      } catch {
        // Not known: each is applied as usual, which finds out the same one event at a time.
      }
    }
    const due = (e: Entry) => !applied.has(e.message.messageId);
    // The contacts with changes to apply, in one read per 100: each contact's first change starts from it.
    const toApply = [...byPhone].filter(([, group]) => group.some(due)).map(([phone]) => phone);
    const known = toApply.length > 0 ? await this.deps.store.readMany(toApply).catch(() => null) : null;
    // Contacts side by side; one contact's events in their order, but for the `later` ones.
    const laterOnes = new Set(later);
    await inGroups([...byPhone.entries()], this.deps.concurrency ?? 16, async ([phone, group]) => {
      // Marked with the batch, unless the contact has more events here than its recent event ids keep.
      const deferred = group.length <= RECENT_EVENTS / 2 ? { marks } : {};
      let read: ApplyOptions = known ? { read: known.get(phone) ?? null } : {};
      for (const entry of group)
        if (!laterOnes.has(entry) && due(entry)) {
          await apply(entry, { ...read, ...deferred });
          read = {};
        }
    });
    for (const entry of later) if (due(entry)) await apply(entry, {});
    // Thrown when it fails: the whole batch comes back, and each event is told applied from its contact.
    if (marks.length > 0) await this.deps.store.markApplied(marks, this.deps.now());
    return applied;
  }

  private async sheets(messageId: string, uploads: UploadRef[]): Promise<MessageResult> {
    try {
      for (const upload of uploads) {
        if (!this.deps.sheets) throw new Error('contact sheets are not read here');
        await this.deps.sheets.process(upload);
      }
      return { messageId, status: 'sheet', sheets: uploads.length };
    } catch (err) {
      return { messageId, status: 'retry', reason: `sheet not read: ${describe(err)}` };
    }
  }
}

/** The uploads of an S3 notification (empty for S3's test event); null when the body is something else. */
function s3Uploads(body: string): UploadRef[] | null {
  if (!body.includes('aws:s3') && !body.includes('s3:TestEvent')) return null;
  try {
    const parsed = JSON.parse(body) as { Records?: { eventSource?: string }[]; Event?: string };
    if (parsed.Event === 's3:TestEvent') return [];
    if (!Array.isArray(parsed.Records) || parsed.Records[0]?.eventSource !== 'aws:s3') return null;
    return uploadsInS3Event(parsed as Parameters<typeof uploadsInS3Event>[0]);
  } catch {
    return null;
  }
}

/** What an opt-out is judged by: the change's tags and its lead status. */
const optOutView = (change: ContactChange) => ({ tags: change.tags, lead_status: change.fields.lead_status ?? null });
