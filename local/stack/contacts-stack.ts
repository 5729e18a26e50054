import { type Log, silentLog } from '#commons/log.ts';
import { TABLES } from '#commons/tables.ts';
import type { Clock } from '#commons/voice-api/rate-limiter.ts';
import { buildContactSync } from '#contacts/build-sync.ts';
import { readContactsConfig } from '#contacts/config.ts';
import { makeContactsHandler } from '#contacts/handler.ts';
import { CONTACT_SHEETS } from '#contacts/sheet-intake.ts';
import { LocalBatchQueue } from './contact-queue.ts';
import type { LocalS3 } from './s3.ts';

export interface LocalContacts {
  /** The contact queue and its dead letters (`queue.deadLetters`, each with its reason). */
  queue: LocalBatchQueue;
  /** Sends one `Contact Upserted` event (the bare event, as sheets and the CLI send it). */
  send(event: unknown): void;
  /** Delivers until the queue is empty, moving the clock past each visibility timeout when it can. */
  settle(): Promise<void>;
}

export interface LocalContactsOptions {
  /** The stack's environment (endpoints, VOICE_API_URL and key, settings). */
  env: Record<string, string>;
  tables: { contacts: string; apiBudget: string };
  /** Contact sheets dropped under contacts/ in this bucket reach the queue, as the bucket notification does. */
  s3?: LocalS3;
  /** The simulated clock (the emulator's), whose budget waits move time; real time when absent. */
  clock?: { now(): number; set(time: number): void };
  log?: Log;
}

/**
 * Contact sync on the embedded stack: the contact queue (batches of up to 500, as in AWS) in front of the same
 * handler the Lambda runs, fed by contacts/ sheets in the local bucket. Deliveries start on their own; `settle()`
 * waits until everything is synced or dead-lettered.
 */
export async function startLocalContacts(options: LocalContactsOptions): Promise<LocalContacts> {
  const sim = options.clock;
  const clock: Clock | undefined = sim
    ? { now: () => sim.now(), sleep: async (ms) => sim.set(sim.now() + ms) }
    : undefined;
  const env = {
    ...options.env,
    [TABLES.contacts.env]: options.tables.contacts,
    [TABLES.apiBudget.env]: options.tables.apiBudget,
  };
  const queue = new LocalBatchQueue('callsheet-contacts', {
    batchSize: 500,
    visibilityMs: 60_000,
    now: sim ? () => sim.now() : () => Date.now(),
  });
  const { sync } = await buildContactSync(readContactsConfig(env, { queues: 'local' }), {
    now: () => new Date(sim ? sim.now() : Date.now()),
    deadLetters: queue,
    events: queue.events,
    ...(clock ? { api: { clock } } : {}),
  });
  queue.attach(makeContactsHandler(sync, options.log ?? silentLog));

  let running: Promise<void> | null = null;
  const drain = (): Promise<void> => {
    running ??= queue.drain().finally(() => {
      running = null;
    });
    return running;
  };
  options.s3?.onEvent((event) => {
    const records = event.Records.filter(
      (r) => r.eventName.startsWith('ObjectCreated:') && r.s3.object.key.startsWith(CONTACT_SHEETS),
    );
    if (records.length === 0) return;
    queue.send(JSON.stringify({ Records: records }));
    void drain();
  });
  return {
    queue,
    send(event) {
      queue.send(JSON.stringify(event));
      void drain();
    },
    async settle() {
      for (let round = 0; round < 50; round++) {
        await drain();
        await drain(); // messages sent while the last drain ran (a sheet's rows)
        const next = queue.nextVisibleAt();
        if (next === null && queue.depth === 0) return;
        if (next === null) continue;
        if (!sim) throw new Error('contact queue: messages wait for their visibility timeout (real time)');
        sim.set(next);
      }
      throw new Error('contact queue did not empty');
    },
  };
}
