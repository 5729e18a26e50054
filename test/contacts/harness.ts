import { afterEach, beforeEach } from 'vitest';
import { SharedApiBudget } from '#commons/api-budget/shared-budget.ts';
import { silentLog } from '#commons/log.ts';
import type { Clock } from '#commons/voice-api/rate-limiter.ts';
import { buildContactSync } from '#contacts/build-sync.ts';
import { readContactsConfig } from '#contacts/config.ts';
import type { ContactStore } from '#contacts/contact-store.ts';
import type { ContactSync } from '#contacts/contact-sync.ts';
import { makeContactsHandler } from '#contacts/handler.ts';
import { LocalBatchQueue } from '#local/stack/contact-queue.ts';
import { type LocalDynamo, startDynamo } from '#local/stack/dynamo.ts';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '#local/stack/local-aws.ts';
import { dynaliteClient } from '../helpers/dynalite-client.ts';
import { type DynamoProxy, startDynamoProxy } from '../helpers/dynamo-proxy.ts';
import { type EmulatorFixture, TEST_KEY } from '../helpers/emulator.ts';

export interface SyncRig {
  dynamo: LocalDynamo;
  env: Record<string, string>;
  store: ContactStore;
  sync: ContactSync;
  queue: LocalBatchQueue;
  budget: SharedApiBudget;
  clock: Clock;
  /** Sends one event (as JSON) to the contact queue. */
  send(event: unknown): void;
  /** Delivers until the queue is empty, moving simulated time past each visibility timeout. */
  settle(maxRounds?: number): Promise<void>;
  /** Another sync on the same table and API (a second Lambda container). */
  another(): Promise<ContactSync>;
  /** DynamoDB requests by table and operation since the last reset, when the rig counts them. */
  requests: DynamoProxy | null;
}

/**
 * Contact sync on dynalite (fresh per test) against the emulator over HTTP, on the emulator's simulated clock: the
 * client's and the budget's waits move simulated time instead of sleeping.
 */
/** The settings that point contact sync at dynalite's contacts and API-budget tables, as deployed. */
export const contactTablesEnv = (dynamo: LocalDynamo): Record<string, string> => ({
  AWS_REGION: LOCAL_REGION,
  AWS_ACCESS_KEY_ID: LOCAL_CREDENTIALS.accessKeyId,
  AWS_SECRET_ACCESS_KEY: LOCAL_CREDENTIALS.secretAccessKey,
  AWS_ENDPOINT_URL_DYNAMODB: dynamo.endpoint,
  CONTACTS_TABLE: dynamo.tables.contacts,
  API_BUDGET_TABLE: dynamo.tables.apiBudget,
  SUPPRESSION_TABLE: dynamo.tables.suppression,
});

export function useSyncRig(
  f: EmulatorFixture,
  settings: Record<string, string> | (() => Record<string, string>) = {},
  queueOptions: { batchSize?: number; visibilityMs?: number; countRequests?: boolean } = {},
): SyncRig {
  const rig = {} as SyncRig;
  beforeEach(async () => {
    const clock: Clock = {
      now: () => f.emu.core.clock.now(),
      sleep: async (ms) => {
        f.emu.core.clock.advance(ms);
      },
    };
    const dynamo = await startDynamo({ prefix: `t${Math.random().toString(36).slice(2, 8)}` });
    // Counted on the wire, between the sync and dynalite.
    const requests = queueOptions.countRequests ? await startDynamoProxy(dynamo.endpoint, 0) : null;
    const env: Record<string, string> = {
      ...contactTablesEnv(dynamo),
      ...(requests ? { AWS_ENDPOINT_URL_DYNAMODB: requests.url } : {}),
      VOICE_API_URL: f.emu.url,
      VOICE_API_KEY: TEST_KEY,
      CONTACTS_MAX_RECEIVES: '4',
      ...(typeof settings === 'function' ? settings() : settings),
    };
    const queue = new LocalBatchQueue('contacts', {
      batchSize: queueOptions.batchSize ?? 100,
      visibilityMs: queueOptions.visibilityMs ?? 60_000,
      maxReceives: 6,
      now: clock.now,
    });
    const build = () =>
      buildContactSync(readContactsConfig(env, { queues: 'local' }), {
        now: () => new Date(clock.now()),
        deadLetters: queue,
        events: queue.events,
        api: { clock, baseDelayMs: 1, maxDelayMs: 5 },
      });
    const { store, sync } = await build();
    queue.attach(makeContactsHandler(sync, silentLog));
    const config = readContactsConfig(env, { queues: 'local' });
    Object.assign(rig, {
      dynamo,
      requests,
      env,
      store,
      sync,
      queue,
      clock,
      budget: new SharedApiBudget(dynaliteClient(dynamo.endpoint), config.budget.table, config.budget.limits, clock),
      send: (event: unknown) => queue.send(JSON.stringify(event)),
      settle: async (maxRounds = 20) => {
        for (let round = 0; round < maxRounds; round++) {
          await queue.drain();
          const next = queue.nextVisibleAt();
          if (next === null) return;
          f.emu.core.clock.set(next);
        }
        throw new Error(`queue not empty after ${maxRounds} rounds`);
      },
      another: async () => (await build()).sync,
    });
  });
  afterEach(async () => {
    await rig.requests?.close();
    await rig.dynamo?.close();
  });
  return rig;
}

/** The contact as the emulator stores it, or null. */
export async function emulatorContact(
  f: EmulatorFixture,
  phone: string,
): Promise<{ contact_name: string | null; tags: string[]; notes: string[]; [k: string]: unknown } | null> {
  const res = await fetch(`${f.emu.url}/_emulator/contacts/${encodeURIComponent(phone)}`);
  if (res.status === 404) return null;
  return (await res.json()) as { contact_name: string | null; tags: string[]; notes: string[] };
}

/** Requests the emulator received on a path (the request log). */
export async function requestsTo(f: EmulatorFixture, path: string): Promise<{ status: number; body?: unknown }[]> {
  const log = await f.admin.requests<{ path: string; status: number; body?: unknown }[]>();
  const list = Array.isArray(log) ? log : ((log as unknown as { requests: typeof log }).requests ?? []);
  return list.filter((r) => r.path.endsWith(path));
}
