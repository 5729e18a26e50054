import { describe, expect, it, vi } from 'vitest';
import type { ContactState } from '#contacts/contact-state.ts';
import { useEmulator } from '../helpers/emulator.ts';
import { emulatorContact, requestsTo, type SyncRig, useSyncRig } from './harness.ts';

// Real stand-ins on a loaded 2-core machine: generous limits; no test measures time.
vi.setConfig({ testTimeout: 90_000, hookTimeout: 60_000 });

const f = useEmulator();
// One bulk request a minute for the sync (the plan less both reserves), and no waiting for the next.
const ONE_A_MINUTE = {
  API_BUDGET_PER_MINUTE: '3',
  API_BUDGET_LIFECYCLE_PER_MINUTE: '1',
  API_BUDGET_SAFETY_PER_MINUTE: '1',
  API_BUDGET_MAX_WAIT_SECONDS: '0',
};

const phone = (i: number) => `+1415555${String(1000 + i).padStart(4, '0')}`;
const CONTACTS = 300;

/** Requests to the contacts table since the last reset, by operation. */
function contactRequests(rig: SyncRig): Record<string, number> {
  const table = rig.env.CONTACTS_TABLE as string;
  const tallies = rig.requests?.tallies() ?? [];
  return Object.fromEntries(tallies.filter((t) => t.table === table).map((t) => [t.operation, t.requests]));
}

/** The backlog: one event for each of CONTACTS new contacts. */
function sendBacklog(rig: SyncRig, prefix: string): void {
  for (let i = 0; i < CONTACTS; i++) rig.send({ event_id: `${prefix}${i}`, phone_number: phone(i), name: `N${i}` });
}

/** Every contact reached the API in three bodies, and nothing was given up. */
async function expectAllSynced(rig: SyncRig): Promise<void> {
  expect((await requestsTo(f, '/contacts/bulk')).map((r) => r.status)).toEqual([200, 200, 200]);
  for (const i of [0, 150, CONTACTS - 1]) expect((await emulatorContact(f, phone(i)))?.contact_name).toBe(`N${i}`);
  expect(rig.queue.deadLetters).toEqual([]);
}

describe('a sync the budget holds back', () => {
  // Each delivery of a 300-contact batch sends its first body and the budget stops the rest.
  const rig = useSyncRig(f, ONE_A_MINUTE, { batchSize: 500, countRequests: true });

  it('claims only the contacts of bodies it tries to send, and a redelivery re-reads stored events 100 at a time', async () => {
    sendBacklog(rig, 'c');

    await rig.queue.drain();
    // Stored once each (a claim and a write; contacts read and event ids marked in batches); 100 pushed; the next
    // 100 claimed and let go when the budget refused their body; the last 100 never touched.
    expect(rig.queue.depth).toBe(200);
    expect(contactRequests(rig)).toEqual({
      PutItem: 2 * CONTACTS,
      BatchGetItem: 3 + 3,
      BatchWriteItem: CONTACTS / 25,
      UpdateItem: 2 * 200,
    });
    const behind = (await rig.store.read(phone(CONTACTS - 1))) as ContactState;
    // Never claimed, so never let go either: no claim, no failed push on record.
    expect(behind.claim).toBeUndefined();
    expect(behind.lastPush).toBeUndefined();

    rig.requests?.reset();
    await rig.settle();
    // Two more deliveries: nothing stored again, no event claimed again; events and contacts read in batches.
    const again = contactRequests(rig);
    expect(again.PutItem ?? 0).toBe(0);
    expect(again.GetItem ?? 0).toBe(0);
    expect(again.UpdateItem).toBe(2 * 200 + 2 * 100);
    expect(again.BatchGetItem).toBe(2 + 2 + 1 + 1);

    await expectAllSynced(rig);
  });
});

describe('a sync backlog in batches of 100', () => {
  const rig = useSyncRig(f, ONE_A_MINUTE, { batchSize: 100, countRequests: true });

  it('once the budget refused this minute, the batches behind claim no contact until the next', async () => {
    sendBacklog(rig, 'q');

    await rig.queue.drain();
    // Three invocations in one minute: the first sends its body; the second claims its 100 and lets them go when
    // its body is refused; the third, told by the refusal it already saw, claims no one.
    expect(rig.queue.depth).toBe(200);
    expect(contactRequests(rig).UpdateItem).toBe(2 * 100 + 2 * 100);
    const third = (await rig.store.read(phone(CONTACTS - 1))) as ContactState;
    expect(third.claim).toBeUndefined();
    expect(third.lastPush).toBeUndefined();

    await rig.settle();
    await expectAllSynced(rig);
  });
});
