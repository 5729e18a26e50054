import { type Log, silentLog } from '#commons/log.ts';
import { CONTACTS_TIMEOUT_SECONDS, visibilitySeconds } from '#commons/queue-settings.ts';
import { TABLES } from '#commons/tables.ts';
import type { Clock } from '#commons/voice-api/rate-limiter.ts';
import { buildContactSync } from '#contacts/build-sync.ts';
import { readContactsConfig } from '#contacts/config.ts';
import { CONTACT_UPSERTED } from '#contacts/contact-event.ts';
import type { ContactStore } from '#contacts/contact-store.ts';
import type { MessageResult } from '#contacts/contact-sync.ts';
import { makeContactsHandler } from '#contacts/handler.ts';
import { CONTACT_SHEETS } from '#contacts/sheet-intake.ts';
import { LocalBatchQueue } from './contact-queue.ts';
import { CALLSHEET_BUS, type LocalEventBus } from './event-bus.ts';
import type { LocalS3 } from './s3.ts';
import type { SettableClock, SimScheduler } from './sim-scheduler.ts';
import { asActor, stackClock } from './stack-clock.ts';

/** What the contact function did with the messages it was given. */
export interface ContactTally {
  /**
   * Events stored, by what each did to its contact the first time it was applied (`duplicate`: its event id was
   * seen before, a replay); a message the queue delivered again counts once.
   */
  applied: { created: number; updated: number; unchanged: number; duplicate: number };
  /** Contact sheets (and files of JSON lines) read into events. */
  sheets: number;
  /** Events dead-lettered: invalid, or still failing on their last delivery. */
  deadLettered: number;
  /** The numbers whose events this stack applied: what a run judges its contact sync's pushes on. */
  phones: Set<string>;
}

export interface LocalContacts {
  /** The contact queue and its dead letters (`queue.deadLetters`, each with its reason). */
  queue: LocalBatchQueue;
  store: ContactStore;
  tally: ContactTally;
  /** Sends one `Contact Upserted` event (the bare event, as sheets and the CLI send it). */
  send(event: unknown): void;
  /** Resolves once the queue is empty: everything synced or dead-lettered (waiting out visibility timeouts). */
  settle(): Promise<void>;
  /** Whether the queue holds messages or a delivery is under way. */
  busy(): boolean;
}

export interface LocalContactsOptions {
  /** The stack's environment (endpoints, VOICE_API_URL and key, settings). */
  env: Record<string, string>;
  tables: { contacts: string; apiBudget: string; suppression: string };
  /** Contact sheets dropped under contacts/ in this bucket reach the queue, as the bucket notification does. */
  s3?: LocalS3;
  /** `Contact Upserted` events on callsheet's bus reach the queue, as the EventBridge rule does. */
  bus?: LocalEventBus;
  /** The simulated clock (the emulator's), whose waits move time; real time when absent. */
  clock?: SettableClock;
  /** With the clock: the stack's scheduler, on which the queue is one more actor. */
  scheduler?: SimScheduler | null;
  log?: Log;
}

/** The contact queue's actor on the scheduler: time stands still while it delivers, as for a step. */
const ACTOR = 'contact-queue';

/**
 * Contact sync on the embedded stack, fed as in AWS (infra/contacts.ts): contacts/ files in the bucket and
 * `Contact Upserted` events on callsheet's bus reach the contact queue (batches of up to 500), in front of the same
 * handler the Lambda runs, which draws on the account's one API budget. Deliveries start on their own; on simulated
 * time the queue is an actor of the scheduler, so a budget wait or a visibility timeout is a sleep that lets the
 * campaigns' workflows go on, and nothing jumps past them.
 */
export async function startLocalContacts(options: LocalContactsOptions): Promise<LocalContacts> {
  const sim = options.clock;
  const scheduler = options.scheduler ?? null;
  const clock: Clock | undefined = sim ? stackClock(sim, scheduler) : undefined;
  const now = sim ? () => sim.now() : () => Date.now();
  const env = {
    ...options.env,
    [TABLES.contacts.env]: options.tables.contacts,
    [TABLES.apiBudget.env]: options.tables.apiBudget,
    [TABLES.suppression.env]: options.tables.suppression,
  };
  const config = readContactsConfig(env, { queues: 'local' });
  // The queue as infra/contacts.ts makes it: batches of 500, the visibility timeout of the function's queue, and
  // the queue's own redrive two deliveries after the function's.
  const queue = new LocalBatchQueue('callsheet-contacts', {
    batchSize: 500,
    visibilityMs: visibilitySeconds(CONTACTS_TIMEOUT_SECONDS) * 1000,
    maxReceives: config.maxReceives + 2,
    now,
  });
  const { store, sync } = await buildContactSync(config, {
    now: () => new Date(now()),
    deadLetters: queue,
    events: queue.events,
    ...(clock ? { api: { clock } } : {}),
  });
  const tally: ContactTally = {
    applied: { created: 0, updated: 0, unchanged: 0, duplicate: 0 },
    sheets: 0,
    deadLettered: 0,
    phones: new Set(),
  };
  // Local bookkeeping around the same code: each message's first apply, found by its event id in the batch.
  const waiting = new Map<string, string[]>();
  const counted = new Set<string>();
  const apply = store.apply.bind(store);
  store.apply = async (change, at, applyOptions) => {
    const result = await apply(change, at, applyOptions);
    tally.phones.add(change.phone);
    const messageId = waiting.get(change.eventId)?.shift();
    if (messageId !== undefined && !counted.has(messageId) && result.status !== 'conflict') {
      counted.add(messageId);
      tally.applied[result.status]++;
    }
    return result;
  };
  const handle = sync.handle.bind(sync);
  sync.handle = async (messages) => {
    for (const m of messages) {
      const id = eventIdOf(m.body);
      // A message counted at an earlier delivery may skip its apply now (its change is stored): no slot for it.
      if (id !== null && !counted.has(m.messageId)) waiting.set(id, [...(waiting.get(id) ?? []), m.messageId]);
    }
    try {
      const results = await handle(messages);
      for (const r of results) count(tally, r);
      return results;
    } finally {
      waiting.clear();
    }
  };
  queue.attach(makeContactsHandler(sync, options.log ?? silentLog));

  let delivering: Promise<void> | null = null;
  let failure: Error | null = null;
  const wait = async (until: number) => {
    if (clock) await clock.sleep(until - now());
    else await new Promise((resolve) => setTimeout(resolve, Math.max(0, until - now())));
  };
  const deliver = (): Promise<void> => {
    delivering ??= (async () => {
      scheduler?.join(ACTOR);
      try {
        await asActor(ACTOR, async () => {
          while (queue.depth > 0) {
            await queue.drain();
            const next = queue.nextVisibleAt();
            if (next !== null) await wait(next);
          }
        });
      } catch (err) {
        failure = err as Error;
        (options.log ?? silentLog).error('contact queue failed', { error: failure.message });
      } finally {
        scheduler?.leave(ACTOR);
        delivering = null;
      }
    })();
    return delivering;
  };
  const send = (body: string) => {
    queue.send(body);
    void deliver();
  };
  options.s3?.onEvent((event) => {
    const records = event.Records.filter(
      (r) => r.eventName.startsWith('ObjectCreated:') && r.s3.object.key.startsWith(CONTACT_SHEETS),
    );
    if (records.length > 0) send(JSON.stringify({ Records: records }));
  });
  // The rule of infra/contacts.ts: detail-type `Contact Upserted` on callsheet's bus, the whole envelope to the queue.
  options.bus?.onEvent((event, bus) => {
    if (bus === CALLSHEET_BUS && event['detail-type'] === CONTACT_UPSERTED) send(JSON.stringify(event));
  });
  return {
    queue,
    store,
    tally,
    send: (event) => send(JSON.stringify(event)),
    busy: () => delivering !== null || queue.depth > 0,
    async settle() {
      while (delivering || queue.depth > 0) {
        failure = null;
        await (delivering ?? deliver());
        if (failure) throw failure;
      }
    },
  };
}

/** The event id a message carries (a bare event or a bus envelope's detail), for the tally only. */
function eventIdOf(body: string): string | null {
  try {
    const parsed = JSON.parse(body) as { event_id?: unknown; detail?: { event_id?: unknown } };
    const id = parsed.detail?.event_id ?? parsed.event_id;
    return typeof id === 'string' ? id : null;
  } catch {
    return null;
  }
}

function count(tally: ContactTally, r: MessageResult): void {
  if (r.status === 'sheet') tally.sheets += r.sheets;
  else if (r.status === 'rejected' || r.status === 'dead-lettered') tally.deadLettered++;
}
