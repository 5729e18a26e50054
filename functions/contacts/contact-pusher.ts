import { randomUUID } from 'node:crypto';
import { BudgetExhaustedError } from '#commons/api-budget/errors.ts';
import {
  AmbiguousRequestError,
  NetworkError,
  RateLimitedError,
  ServerError,
  VoiceApiError,
} from '#commons/voice-api/errors.ts';
import type { BulkResult, ContactInput } from '#commons/voice-api/types.ts';
import type { ContactState, PushedState } from './contact-state.ts';
import type { ContactStore } from './contact-store.ts';
import { inGroups } from './in-groups.ts';
import { type BulkChunk, type ContactPush, packBulk, planContactPush } from './push-plan.ts';

export interface BulkContactsApi {
  bulkUpsert(contacts: ContactInput[]): Promise<BulkResult>;
  /** The error a `bulkUpsert` now would meet before it is sent (the budget known used up); null when it may go. */
  refusal?(): Error | null;
}

export type PushOutcome =
  | { status: 'pushed' | 'unchanged'; requests: number }
  | { status: 'retry' | 'failed'; reason: string; requests: number };

/** How one bulk entry ended. `maybe`: the request's fate is unknown (it may have been carried out). */
type EntryFate = 'ok' | 'rejected' | 'maybe' | 'unsent';

export interface PusherDeps {
  store: ContactStore;
  api: BulkContactsApi;
  now: () => Date;
  /** How long a push holds a contact; longer than one push can take (the Lambda's timeout). */
  claimMs?: number;
  /** Contacts read at once. */
  readConcurrency?: number;
}

/** Errors after which the service provably did nothing: retry everything later. */
const notCarriedOut = (err: unknown) =>
  err instanceof BudgetExhaustedError ||
  err instanceof RateLimitedError ||
  (err instanceof ServerError && err.status === 503) ||
  (err instanceof NetworkError && !(err instanceof AmbiguousRequestError));

const BUSY = 'another push is sending this contact, or it changed since it was read';

/** Whether this push holds a contact (`true`), or why it does not. */
type Claim = true | string;

/** A body without the entries of contacts this push does not hold. */
function onlyClaimed(chunk: BulkChunk, claims: Map<ContactPush, Claim>): BulkChunk {
  const keep = chunk.owners.map((o) => claims.get(o.push) === true);
  if (keep.every(Boolean)) return chunk;
  return { owners: chunk.owners.filter((_, i) => keep[i]), entries: chunk.entries.filter((_, i) => keep[i]) };
}

const describe = (err: unknown) => (err instanceof Error ? `${err.name}: ${err.message}` : String(err));

/**
 * Pushes contacts' unsent changes to the API in `POST /contacts/bulk` bodies of at most 100 entries: changed fields,
 * new tags and notes not yet sent, nothing for an unchanged contact. A note is sent at most once: after an answer,
 * and also after a failure that may have reached the API (the API appends every note it receives).
 */
export class ContactPusher {
  private readonly claimMs: number;

  constructor(private readonly deps: PusherDeps) {
    this.claimMs = deps.claimMs ?? 15 * 60_000;
  }

  async push(phones: readonly string[]): Promise<Map<string, PushOutcome>> {
    const outcomes = new Map<string, PushOutcome>();
    const unique = [...new Set(phones)];
    const now = this.deps.now();
    const token = randomUUID();
    const pushes: ContactPush[] = [];
    const states = await this.deps.store.readMany(unique);
    await inGroups(unique, this.deps.readConcurrency ?? 16, async (phone) => {
      const prepared = await this.prepare(states.get(phone), now);
      if ('push' in prepared) pushes.push(prepared.push);
      else outcomes.set(phone, prepared.outcome);
    });
    // The order contacts were given in, so bodies are the same for the same input.
    const order = new Map(unique.map((p, i) => [p, i]));
    pushes.sort((a, b) => (order.get(a.phone) ?? 0) - (order.get(b.phone) ?? 0));

    const fates = new Map<ContactPush, EntryFate[]>(pushes.map((p) => [p, p.entries.map(() => 'unsent' as const)]));
    const errors = new Map<ContactPush, string>();
    const requests = new Map<ContactPush, number>();
    // Each contact is claimed just before its first body goes out: once the budget or the service says stop, the
    // contacts behind it were never claimed, so they cost no write now and none to let go.
    const claims = new Map<ContactPush, Claim>();
    let stop: { reason: string; retry: boolean } | null = null;
    for (const packed of packBulk(pushes)) {
      // A body the budget is known to refuse claims no one: a sync backlog's every delivery would otherwise claim
      // and let go of a hundred contacts only to be told no.
      const refused: Error | null = stop ? null : (this.deps.api.refusal?.() ?? null);
      if (refused) stop = { reason: describe(refused), retry: true };
      if (stop) {
        for (const { push } of packed.owners) errors.set(push, stop.reason);
        continue;
      }
      await this.claimAll(packed, claims, token, now);
      const chunk = onlyClaimed(packed, claims);
      if (chunk.entries.length === 0) continue;
      for (const { push } of chunk.owners) requests.set(push, (requests.get(push) ?? 0) + 1);
      try {
        const answer = await this.deps.api.bulkUpsert(chunk.entries);
        const byIndex = new Map(answer.results.map((r) => [r.index, r]));
        chunk.owners.forEach(({ push, entry }, index) => {
          const r = byIndex.get(index);
          (fates.get(push) as EntryFate[])[entry] = r?.success ? 'ok' : 'rejected';
          if (!r?.success) errors.set(push, `the API refused entry ${entry + 1}: ${r?.error ?? 'no result'}`);
        });
      } catch (err) {
        const maybe = err instanceof AmbiguousRequestError;
        for (const { push, entry } of chunk.owners) {
          if (maybe) (fates.get(push) as EntryFate[])[entry] = 'maybe';
          errors.set(push, describe(err));
        }
        // Later bodies wait: the budget or the service said no, and a contact's entries must stay in order.
        stop = { reason: describe(err), retry: maybe || notCarriedOut(err) || !(err instanceof VoiceApiError) };
        if (!stop.retry) stop = { ...stop, reason: `not sent: an earlier request failed (${stop.reason})` };
      }
    }

    const at = now.toISOString();
    const definiteStop = stop !== null && !stop.retry;
    await inGroups(pushes, this.deps.readConcurrency ?? 16, async (push) => {
      const claim = claims.get(push);
      if (typeof claim === 'string') {
        outcomes.set(push.phone, { status: 'retry', reason: claim, requests: 0 });
        return;
      }
      const entryFates = fates.get(push) as EntryFate[];
      const error = errors.get(push);
      const ok = error === undefined && entryFates.every((f) => f === 'ok');
      if (claim)
        await this.deps.store.settle(push.state, token, this.pushedAfter(push, entryFates), {
          at,
          ok,
          ...(error ? { error } : {}),
        });
      const n = requests.get(push) ?? 0;
      if (ok) outcomes.set(push.phone, { status: 'pushed', requests: n });
      else {
        const definite = entryFates.some((f) => f === 'rejected') || definiteStop;
        outcomes.set(push.phone, { status: definite ? 'failed' : 'retry', reason: error ?? 'not sent', requests: n });
      }
    });
    return outcomes;
  }

  /** What one contact, as read, needs sent; nothing when another push holds it or the API has it all. */
  private async prepare(
    state: ContactState | undefined,
    now: Date,
  ): Promise<{ push: ContactPush } | { outcome: PushOutcome }> {
    if (!state) return { outcome: { status: 'unchanged', requests: 0 } };
    const held = state.claim && state.claim.until >= now.getTime();
    if (held) return { outcome: { status: 'retry', reason: BUSY, requests: 0 } };
    // A push that died may have sent notes up to its claim: those count as sent.
    const sentNotes = Math.max(state.pushed.noteCount, state.claim?.noteCount ?? 0);
    const view: ContactState = { ...state, pushed: { ...state.pushed, noteCount: sentNotes } };
    const unsent =
      sentNotes < state.noteCount ? await this.deps.store.notes(state, sentNotes + 1, state.noteCount) : [];
    const push = planContactPush(view, unsent, now.toISOString());
    return push ? { push } : { outcome: { status: 'unchanged', requests: 0 } };
  }

  /**
   * Claims the contacts of one body not claimed yet (a contact spanning bodies is claimed at its first). A claim
   * that fails (refused, or DynamoDB did not answer) leaves that contact out of this push, and only it comes back.
   */
  private async claimAll(chunk: BulkChunk, claims: Map<ContactPush, Claim>, token: string, now: Date) {
    const fresh = [...new Set(chunk.owners.map((o) => o.push))].filter((p) => !claims.has(p));
    await inGroups(fresh, this.deps.readConcurrency ?? 16, async (push) => {
      const claim = { token, until: now.getTime() + this.claimMs, noteCount: push.state.noteCount };
      try {
        claims.set(push, (await this.deps.store.claim(push.state, claim, now.getTime())) || BUSY);
      } catch (err) {
        claims.set(push, `not claimed: ${describe(err)}`);
      }
    });
  }

  /** Fields and tags count once the first entry is accepted; each note once its entry was or may have been sent. */
  private pushedAfter(push: ContactPush, fates: EntryFate[]): PushedState {
    const base = fates[0] === 'ok' ? push.accepted : push.before;
    let noteCount = push.before.noteCount;
    fates.forEach((fate, i) => {
      const seq = push.noteSeqs[i];
      if (fate !== 'unsent' && seq !== null && seq !== undefined) noteCount = Math.max(noteCount, seq);
    });
    return { ...base, noteCount };
  }
}
