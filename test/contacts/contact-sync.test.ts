import { BatchWriteCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it, vi } from 'vitest';
import { documentClient } from '#commons/aws/clients.ts';
import { SuppressionList } from '#commons/suppression-list.ts';
import { VoiceApiClient } from '#commons/voice-api/index.ts';
import { CONTACT_FIELDS, type ContactChange } from '#contacts/contact-event.ts';
import { ContactPusher } from '#contacts/contact-pusher.ts';
import type { ContactState } from '#contacts/contact-state.ts';
import { ContactStore, changeDigest } from '#contacts/contact-store.ts';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '#local/stack/local-aws.ts';
import { TEST_KEY, useEmulator } from '../helpers/emulator.ts';
import { emulatorContact, requestsTo, useSyncRig } from './harness.ts';

// Real stand-ins on a loaded 2-core machine: generous limits; no test measures time.
vi.setConfig({ testTimeout: 90_000, hookTimeout: 60_000 });

const f = useEmulator();
const rig = useSyncRig(f);

const A = '+14155550101';
const B = '+14155550102';

/** callsheet's view of a contact in the emulator's shape, to compare the two. */
async function ours(phone: string) {
  const state = (await rig.store.read(phone)) as ContactState;
  const notes = await rig.store.notes(state);
  return {
    ...Object.fromEntries(CONTACT_FIELDS.map((k) => [k, state.fields[k] ?? null])),
    tags: state.tags,
    notes: notes.map((n) => n.text),
  };
}

/** An event id claimed and not marked applied, as a delivery that died after claiming it leaves it. */
async function putClaim(change: ContactChange, at: string): Promise<void> {
  const db = documentClient({
    region: LOCAL_REGION,
    endpoints: { dynamodb: rig.dynamo.endpoint },
    credentials: LOCAL_CREDENTIALS,
  });
  await db.send(
    new PutCommand({
      TableName: rig.dynamo.tables.contacts,
      Item: {
        pk: `event#${change.eventId}`,
        kind: 'event',
        phone: change.phone,
        digest: changeDigest(change),
        state: 'claimed',
        at,
      },
    }),
  );
  db.destroy();
}

async function theirs(phone: string): Promise<Record<string, unknown> | null> {
  const c = await emulatorContact(f, phone);
  if (!c) return null;
  return { ...Object.fromEntries(CONTACT_FIELDS.map((k) => [k, c[k] ?? null])), tags: c.tags, notes: c.notes };
}

describe('contact state in DynamoDB', () => {
  it('follows the upsert rules: non-blank fields overwrite, blank ones stay, tags union, notes append', async () => {
    rig.send({
      event_id: 'e1',
      phone_number: '(415) 555-0101',
      country: 'US',
      name: 'Ana',
      city: 'Pune',
      tags: ['vip'],
    });
    rig.send({
      event_id: 'e2',
      phone_number: A,
      name: '  ',
      city: 'Goa',
      email: null,
      tags: ['vip', 'new'],
      note: 'first',
    });
    rig.send({ event_id: 'e3', phone_number: A, source: 'Web Form', note: 'second', tags: [' later '] });
    await rig.settle();
    const state = (await rig.store.read(A)) as ContactState;
    expect(state.fields).toEqual({ contact_name: 'Ana', city: 'Goa', source: 'web_form' });
    expect(state.tags).toEqual(['vip', 'new', 'later']);
    expect((await rig.store.notes(state)).map((n) => n.text)).toEqual(['first', 'second']);
    expect(await theirs(A)).toEqual(await ours(A));
  });

  it('a replayed event changes nothing and appends no note, even after later changes', async () => {
    const e1 = { event_id: 'r1', phone_number: A, name: 'Old', note: 'hello' };
    rig.send(e1);
    await rig.settle();
    rig.send({ event_id: 'r2', phone_number: A, name: 'New' });
    rig.send(e1);
    rig.send(e1);
    await rig.settle();
    const state = (await rig.store.read(A)) as ContactState;
    expect(state.fields.contact_name).toBe('New');
    expect(state.noteCount).toBe(1);
    expect(await theirs(A)).toEqual({ ...(await ours(A)), notes: ['hello'] });
    expect(
      await rig.store.apply(
        { eventId: 'r1', phone: A, fields: { contact_name: 'Old' }, tags: [], note: 'hello' },
        new Date(),
      ),
    ).toEqual({ status: 'duplicate', superseded: [] });
  });

  it('concurrent writers to one contact all land, each once', async () => {
    // Twelve events, each delivered twice at the same time (a redelivery racing the first delivery).
    const change = (i: number) => ({
      eventId: `c${i}`,
      phone: B,
      fields: { city: `City ${i}` },
      tags: [`t${i}`],
      note: `note ${i}`,
    });
    const statuses = await Promise.all(
      Array.from({ length: 24 }, (_, i) => rig.store.apply(change(i % 12), new Date())),
    );
    expect(statuses.filter((s) => s.status === 'duplicate')).toHaveLength(12);
    const state = (await rig.store.read(B)) as ContactState;
    expect(state.noteCount).toBe(12);
    expect(new Set((await rig.store.notes(state)).map((n) => n.text)).size).toBe(12);
    expect([...state.tags].sort()).toEqual(Array.from({ length: 12 }, (_, i) => `t${i}`).sort());
    // Only the newest note may still wait in the contact item: each write moves the earlier ones out.
    expect(Object.keys(state.pendingNotes).length).toBeLessThanOrEqual(1);
  });
});

describe('the order of changes (schema v2) and event ids', () => {
  const v2 = (eventId: string, changedAt: string, rest: Record<string, unknown>) => ({
    schema_version: 2,
    event_id: eventId,
    phone_number: A,
    changed_at: changedAt,
    ...rest,
  });
  const message = (id: string, event: unknown) => ({ messageId: id, body: JSON.stringify(event), receiveCount: 1 });

  it('an older change arriving last never overwrites a newer one, in one batch or two', async () => {
    const newer = v2('t2', '2026-03-02T08:30:00Z', { name: 'New', city: 'Goa' });
    const older = v2('t1', '2026-03-02T08:10:00+00:00', { name: 'Old', email: 'old@x.co', note: 'from before' });
    expect(await rig.sync.handle([message('m1', newer), message('m2', older)])).toMatchObject([
      { status: 'done', applied: 'created' },
      { status: 'done', applied: 'updated', superseded: ['contact_name'] },
    ]);
    // Delivered again in the other order, in separate batches (replays: nothing changes).
    await rig.sync.handle([message('m3', older)]);
    await rig.sync.handle([message('m4', newer)]);
    // And a second contact, the older change alone in a later batch.
    rig.send({ ...newer, event_id: 's2', phone_number: B });
    await rig.settle();
    rig.send({ ...older, event_id: 's1', phone_number: B });
    await rig.settle();
    for (const phone of [A, B]) {
      const state = (await rig.store.read(phone)) as ContactState;
      expect(state.fields).toEqual({ contact_name: 'New', city: 'Goa', email: 'old@x.co' });
      expect(state.fieldTimes?.contact_name).toBe('2026-03-02T08:30:00.000Z');
      expect(await theirs(phone)).toEqual({ ...(await ours(phone)), notes: ['from before'] });
    }
    expect(rig.queue.deadLetters).toEqual([]);
  });

  it('a change dated more than 15 minutes ahead of the clock is refused with the reason', async () => {
    rig.send(v2('f1', '2026-03-02T09:16:00Z', { name: 'Future' }));
    rig.send(v2('f2', '2026-03-02T09:14:00Z', { name: 'Soon' }));
    rig.send(v2('f3', '2026-02-30T08:00:00Z', { name: 'Never' }));
    await rig.settle();
    expect(rig.queue.deadLetters.map((d) => d.reason)).toEqual([
      expect.stringMatching(/^invalid event: changed_at: 2026-03-02T09:16:00Z is more than 15 minutes ahead/),
      'invalid event: changed_at: 2026-02-30T08:00:00Z is not a real time',
    ]);
    expect(((await rig.store.read(A)) as ContactState).fields.contact_name).toBe('Soon');
  });

  it('one event_id reused on two phones in one batch is applied once; the other is refused with the reason', async () => {
    rig.send({ event_id: 'same', phone_number: A, name: 'Ana', note: 'for Ana' });
    rig.send({ event_id: 'same', phone_number: B, name: 'Bo', note: 'for Bo' });
    await rig.settle();
    expect(rig.queue.invocations).toEqual([2]);
    expect((await theirs(A))?.notes).toEqual(['for Ana']);
    expect(await rig.store.read(B)).toBeNull();
    expect(await emulatorContact(f, B)).toBeNull();
    expect(rig.queue.deadLetters).toEqual([
      expect.objectContaining({
        reason: expect.stringMatching(
          /^invalid event: event_id "same" was already used at \S+ for a different change \(to \+14155550101\); .*new event_id$/,
        ),
      }),
    ]);
  });

  it('an id reused later for another phone or other fields is refused; its replay is applied once', async () => {
    rig.send({ event_id: 'x', phone_number: A, name: 'Ana', note: 'once' });
    await rig.settle();
    // In one later batch: the same id for B, for A with other fields, and the original again.
    rig.send({ event_id: 'x', phone_number: B, name: 'Bo' });
    rig.send({ event_id: 'x', phone_number: A, name: 'Other' });
    rig.send({ event_id: 'x', phone_number: A, name: 'Ana', note: 'once' });
    await rig.settle();
    expect(rig.queue.deadLetters.map((d) => d.reason)).toEqual([
      expect.stringMatching(/event_id "x" was already used at .* for a different change \(to \+14155550101\)/),
      expect.stringMatching(/event_id "x" was already used at .* for a different change; /),
    ]);
    expect(((await rig.store.read(A)) as ContactState).fields.contact_name).toBe('Ana');
    expect((await theirs(A))?.notes).toEqual(['once']);
    expect(await rig.store.read(B)).toBeNull();
  });

  it('an id claimed by a delivery that died before applying it is applied by the next delivery', async () => {
    const change = { eventId: 'crash', phone: A, fields: { contact_name: 'Late' }, tags: [], note: 'after a crash' };
    // As the store's claim leaves it when its Lambda dies between claiming the id and writing the contact.
    await putClaim(change, 'x');
    rig.send({ event_id: 'crash', phone_number: A, name: 'Late', note: 'after a crash' });
    rig.send({ event_id: 'crash', phone_number: A, name: 'Late', note: 'after a crash' });
    await rig.settle();
    expect(await theirs(A)).toMatchObject({ contact_name: 'Late', notes: ['after a crash'] });
    expect(rig.queue.deadLetters).toEqual([]);
  });

  it('a delivery that died after writing its note, redelivered after 20 more notes, appends no note twice', async () => {
    const now = new Date(rig.clock.now());
    const change = (eventId: string, note: string): ContactChange => ({
      eventId,
      phone: A,
      fields: {},
      tags: [],
      note,
    });
    // Applied, its id left claimed and not marked: as when the Lambda dies between the contact write and the mark.
    expect((await rig.store.apply(change('died', 'first note'), now, { marks: [] })).status).toBe('created');
    // More events than the contact's recent event ids keep, so the redelivery cannot tell it from them.
    for (let i = 0; i < 22; i++) await rig.store.apply(change(`later${i}`, `later ${i}`), now);
    expect((await rig.store.read(A))?.recentEvents).not.toContain('died');
    expect(await rig.store.apply(change('died', 'first note'), now)).toEqual({ status: 'duplicate', superseded: [] });
    const notes = await rig.store.notes((await rig.store.read(A)) as ContactState);
    expect(notes.map((n) => n.text)).toEqual(['first note', ...Array.from({ length: 22 }, (_, i) => `later ${i}`)]);
    expect(await rig.store.appliedEvents([change('died', 'first note')])).toEqual(new Set([expect.anything()]));
  });

  it('an id used again after its claim expired, redelivered after a crash, is applied: an older note is not its', async () => {
    const day = 86_400_000;
    const t0 = rig.clock.now();
    const sheetRow: ContactChange = {
      eventId: 'sheet:abc:2',
      phone: A,
      fields: { contact_name: 'Ana' },
      tags: [],
      note: 'hi',
    };
    await rig.store.apply(sheetRow, new Date(t0));
    // More changes than the contact's recent event ids keep, the last one a new name.
    for (let i = 0; i <= 20; i++)
      await rig.store.apply(
        { eventId: `crm-${i}`, phone: A, fields: { contact_name: i === 20 ? 'Bea' : `N${i}` }, tags: [], note: null },
        new Date(t0 + day + i),
      );
    // The same sheet uploaded 16 days later (the first claim expired): its delivery claimed the id and died.
    const later = new Date(t0 + 16 * day).toISOString();
    await putClaim(sheetRow, later);
    expect((await rig.store.apply(sheetRow, new Date(later))).status).toBe('updated');
    const state = (await rig.store.read(A)) as ContactState;
    expect(state.fields.contact_name).toBe('Ana');
    expect((await rig.store.notes(state)).map((n) => n.text)).toEqual(['hi', 'hi']);
  });

  it('a change planned on a batch-read state that went stale is planned again on a fresh read', async () => {
    rig.send({ event_id: 'st1', phone_number: A, name: 'First' });
    await rig.settle();
    const stale = (await rig.store.read(A)) as ContactState;
    const change = (eventId: string, name: string): ContactChange => ({
      eventId,
      phone: A,
      fields: { contact_name: name },
      tags: [],
      note: null,
    });
    // Another container stores a change after the batch read the contact.
    expect((await rig.store.apply(change('st2', 'Second'), new Date(rig.clock.now()))).status).toBe('updated');
    // On the stale state this change looks like nothing to do; it is not.
    const result = await rig.store.apply(change('st3', 'First'), new Date(rig.clock.now() + 1), { read: stale });
    expect(result.status).toBe('updated');
    expect((await rig.store.read(A))?.fields.contact_name).toBe('First');
  });

  it('marks event ids one by one when the batch write fails', async () => {
    const db = documentClient({
      region: LOCAL_REGION,
      endpoints: { dynamodb: rig.dynamo.endpoint },
      credentials: LOCAL_CREDENTIALS,
    });
    // DynamoDB refusing BatchWriteItem (throttled): the only way to provoke it against dynalite.
    const send = db.send.bind(db) as (command: unknown) => Promise<unknown>;
    db.send = ((command: unknown) =>
      command instanceof BatchWriteCommand ? Promise.reject(new Error('throttled')) : send(command)) as typeof db.send;
    const store = new ContactStore(db, rig.dynamo.tables.contacts);
    const changes: ContactChange[] = ['mk1', 'mk2', 'mk3'].map((eventId) => ({
      eventId,
      phone: A,
      fields: {},
      tags: [eventId],
      note: null,
    }));
    await store.markApplied(changes, new Date(rig.clock.now()));
    expect((await store.appliedEvents(changes)).size).toBe(3);
    db.destroy();
  });

  it('a batch whose event ids could not be marked comes back whole and appends no note twice', async () => {
    // DynamoDB refusing the batch's marks (as a throttled BatchWriteItem would): the only way to provoke it here.
    const marks = vi.spyOn(rig.store, 'markApplied').mockRejectedValueOnce(new Error('throttled'));
    // 25 notes to one contact, more than its recent event ids keep, and one note each to two more.
    for (let i = 0; i < 25; i++) rig.send({ event_id: `many${i}`, phone_number: A, note: `note ${i}` });
    rig.send({ event_id: 'one-b', phone_number: B, note: 'for B' });
    rig.send({ event_id: 'one-c', phone_number: '+14155550103', note: 'for C' });
    await rig.settle();
    expect(marks).toHaveBeenCalledTimes(2);
    expect((await theirs(A))?.notes).toEqual(Array.from({ length: 25 }, (_, i) => `note ${i}`));
    expect((await theirs(B))?.notes).toEqual(['for B']);
    expect((await theirs('+14155550103'))?.notes).toEqual(['for C']);
    expect(rig.queue.deadLetters).toEqual([]);
  });
});

describe('push to the API in bulk', () => {
  it('sends 250 changed contacts in ceil(250/100) requests, and unchanged contacts cost nothing', async () => {
    for (let i = 0; i < 250; i++)
      rig.send({ event_id: `b${i}`, phone_number: `+1415555${String(1000 + i)}`, name: `N${i}` });
    await rig.settle();
    expect((await requestsTo(f, '/contacts/bulk')).map((r) => r.status)).toEqual([200, 200, 200]);
    // Same values again, new event ids: stored as unchanged, nothing sent.
    for (let i = 0; i < 250; i++)
      rig.send({ event_id: `b2-${i}`, phone_number: `+1415555${String(1000 + i)}`, name: `N${i}` });
    await rig.settle();
    expect(await requestsTo(f, '/contacts/bulk')).toHaveLength(3);
    expect(await theirs('+14155551249')).toEqual(await ours('+14155551249'));
  });

  it('an answer of 200 it cannot read counts its notes as sent: the next push sends no note twice', async () => {
    const now = () => new Date(rig.clock.now());
    await rig.store.apply({ eventId: 'u1', phone: A, fields: { contact_name: 'Ana' }, tags: [], note: 'once' }, now());
    // The API carries the body out and answers 200, and a shorter body arrives, whole but not JSON (the emulator's
    // `cut` fault closes the connection mid-body instead: the client reads both as unread, test/contract/).
    const cut: typeof fetch = async (input, init) => {
      const res = await fetch(input, init);
      if (!String(input).endsWith('/contacts/bulk')) return res;
      const text = await res.text();
      return new Response(text.slice(0, 10), { status: res.status, headers: res.headers });
    };
    const pusher = (fetchImpl: typeof fetch) =>
      new ContactPusher({
        store: rig.store,
        now,
        api: new VoiceApiClient({ baseUrl: f.emu.url, apiKey: TEST_KEY, fetch: fetchImpl, maxRetries: 0 }).contacts,
      });
    expect((await pusher(cut).push([A])).get(A)).toMatchObject({
      status: 'retry',
      reason: /could not be read .*not valid JSON.*carried out/,
    });
    expect(await theirs(A)).toMatchObject({ contact_name: 'Ana', notes: ['once'] });
    // Another change later: its note is sent, the first one is not sent again.
    await rig.store.apply({ eventId: 'u2', phone: A, fields: {}, tags: [], note: 'twice' }, now());
    expect((await pusher(fetch).push([A])).get(A)).toMatchObject({ status: 'pushed' });
    expect((await theirs(A))?.notes).toEqual(['once', 'twice']);
  });

  it('sends only what changed since the last push', async () => {
    rig.send({ event_id: 'd1', phone_number: A, name: 'Ana', city: 'Pune', tags: ['a'], note: 'n1' });
    await rig.settle();
    rig.send({ event_id: 'd2', phone_number: A, name: 'Ana', city: 'Goa', tags: ['a', 'b'], note: 'n2' });
    await rig.settle();
    const bodies = (await requestsTo(f, '/contacts/bulk')).map((r) => r.body as { contacts: unknown[] });
    expect(bodies[1]?.contacts).toEqual([{ phone_number: A, city: 'Goa', tags: ['b'], note: 'n2' }]);
  });

  it('invalid events are dead-lettered with a reason and never hold up the batch', async () => {
    rig.send({ event_id: 'ok1', phone_number: A, name: 'Fine' });
    rig.send({ event_id: 'bad1', phone_number: '12', name: 'x' });
    rig.send({ event_id: 'bad2', phone_number: B, email: 'not-an-email' });
    rig.send({ event_id: 'bad3', phone_number: B, surname: 'x' });
    rig.queue.send('{not json');
    await rig.settle();
    expect(rig.queue.invocations).toEqual([5]);
    expect((await theirs(A))?.contact_name).toBe('Fine');
    expect(rig.queue.deadLetters.map((d) => d.reason)).toEqual([
      expect.stringContaining('phone_number'),
      'invalid event: email: not a valid email address',
      'invalid event: event: unknown field "surname"',
      'invalid event: not JSON',
    ]);
    expect(await rig.store.read(B)).toBeNull();
  });

  it('reports a partial batch failure: only the contact another push holds comes back, then syncs', async () => {
    rig.send({ event_id: 'p0', phone_number: B, name: 'Held' });
    await rig.settle(); // B exists and was pushed
    const held = (await rig.store.read(B)) as ContactState;
    // Another container is pushing B right now (its claim runs 90 more seconds).
    expect(
      await rig.store.claim(held, { token: 'other', until: rig.clock.now() + 90_000, noteCount: 0 }, rig.clock.now()),
    ).toBe(true);
    rig.send({ event_id: 'p1', phone_number: A, name: 'Free' });
    rig.send({ event_id: 'p2', phone_number: B, name: 'Changed' });
    await rig.queue.drain();
    expect(rig.queue.depth).toBe(1);
    expect((await theirs(A))?.contact_name).toBe('Free');
    expect((await theirs(B))?.contact_name).toBe('Held');
    // The other push died: after its claim runs out, the redelivery pushes B.
    await rig.settle();
    expect((await theirs(B))?.contact_name).toBe('Changed');
    expect(rig.queue.deadLetters).toEqual([]);
  });

  it('a push planned on a contact that changed since is refused its claim', async () => {
    rig.send({ event_id: 'cv1', phone_number: A, name: 'Old' });
    await rig.settle();
    const read = (await rig.store.read(A)) as ContactState;
    await rig.store.apply(
      { eventId: 'cv2', phone: A, fields: { contact_name: 'New' }, tags: [], note: null },
      new Date(rig.clock.now()),
    );
    const claim = { token: 'late', until: rig.clock.now() + 60_000, noteCount: read.noteCount };
    expect(await rig.store.claim(read, claim, rig.clock.now())).toBe(false);
    expect(await rig.store.claim((await rig.store.read(A)) as ContactState, claim, rig.clock.now())).toBe(true);
  });

  it('a claim DynamoDB fails to answer holds back only that contact', async () => {
    const claim = rig.store.claim.bind(rig.store);
    const spy = vi.spyOn(rig.store, 'claim').mockImplementation(async (state, c, now) => {
      // Throttled for B alone: the error path no stand-in provokes.
      if (state.phone === B) throw new Error('ProvisionedThroughputExceededException');
      return claim(state, c, now);
    });
    rig.send({ event_id: 'ce1', phone_number: A, name: 'Sent' });
    rig.send({ event_id: 'ce2', phone_number: B, name: 'Held' });
    await rig.queue.drain();
    expect(rig.queue.depth).toBe(1);
    expect((await theirs(A))?.contact_name).toBe('Sent');
    expect(await theirs(B)).toBeNull();
    spy.mockRestore();
    await rig.settle();
    expect((await theirs(B))?.contact_name).toBe('Held');
    expect(rig.queue.deadLetters).toEqual([]);
  });

  it('a message whose push keeps failing goes to the dead letters with the reason', async () => {
    await f.admin.fault({ path: '/contacts/bulk', status: 422, count: 100 });
    rig.send({ event_id: 'x1', phone_number: A, name: 'Never' });
    await rig.settle();
    expect(rig.queue.deadLetters).toHaveLength(1);
    expect(rig.queue.deadLetters[0]?.reason).toMatch(/gave up after 4 deliveries: .*422/);
    expect(await emulatorContact(f, A)).toBeNull();
  });

  it('backs off on 429 until the window resets, then sends once', async () => {
    await f.admin.fault({ path: '/contacts/bulk', status: 429, count: 1 });
    const start = rig.clock.now();
    rig.send({ event_id: 'l1', phone_number: A, name: 'Later', note: 'once' });
    await rig.settle();
    expect((await requestsTo(f, '/contacts/bulk')).map((r) => r.status)).toEqual([429, 200]);
    // The whole account waited for the next minute window, not just this request.
    expect(rig.clock.now()).toBeGreaterThanOrEqual(Math.floor(start / 60_000) * 60_000 + 60_000);
    expect((await theirs(A))?.notes).toEqual(['once']);
  });

  it('a push whose answer was lost never sends its notes again', async () => {
    await f.admin.fault({ path: '/contacts/bulk', status: 500, count: 1 });
    rig.send({ event_id: 'm1', phone_number: A, name: 'Maybe', note: 'only once' });
    await rig.settle();
    const statuses = (await requestsTo(f, '/contacts/bulk')).map((r) => r.status);
    expect(statuses[0]).toBe(500);
    const resent = (await requestsTo(f, '/contacts/bulk'))
      .slice(1)
      .map((r) => r.body as { contacts: { note?: string }[] });
    expect(resent.flatMap((b) => b.contacts).some((c) => c.note !== undefined)).toBe(false);
    expect((await theirs(A))?.contact_name).toBe('Maybe');
    const state = (await rig.store.read(A)) as ContactState;
    expect(state.pushed.noteCount).toBe(1);
  });
});

describe('opt-outs in contact changes', () => {
  const list = () =>
    new SuppressionList(
      documentClient({
        region: LOCAL_REGION,
        endpoints: { dynamodb: rig.dynamo.endpoint },
        credentials: LOCAL_CREDENTIALS,
      }),
      rig.dynamo.tables.suppression,
    );

  it('list the number as do-not-call, by a do_not_call tag or an opt-out lead status', async () => {
    rig.send({ event_id: 'dnc-1', phone_number: '+14155550181', tags: ['do_not_call'] });
    rig.send({ event_id: 'dnc-2', phone_number: '+14155550182', lead_status: 'Opted Out' });
    rig.send({ event_id: 'dnc-3', phone_number: '+14155550183', tags: ['vip'], lead_status: 'Warm Lead' });
    await rig.settle();
    // Stored and pushed as any change is, and the two opted-out numbers listed with the reason.
    expect(((await rig.store.read('+14155550181')) as ContactState).tags).toEqual(['do_not_call']);
    expect((await emulatorContact(f, '+14155550182'))?.lead_status).toBe('opted_out');
    const suppression = list();
    expect([...(await suppression.matching(['+14155550181', '+14155550182', '+14155550183']))].sort()).toEqual([
      '+14155550181',
      '+14155550182',
    ]);
    const listed = (await suppression.list()).filter((e) => e.phone === '+14155550181' || e.phone === '+14155550182');
    expect(listed.map((e) => [e.phone, e.reason, e.source]).sort()).toEqual([
      ['+14155550181', 'opted out: tag do_not_call', 'contact-event'],
      ['+14155550182', 'opted out: lead status opted_out', 'contact-event'],
    ]);
  });

  it('store and push nothing of an opt-out that cannot be listed yet: the message comes back', async () => {
    // The list's table refusing a write: nothing else here makes it fail.
    const failing = vi
      .spyOn(SuppressionList.prototype, 'add')
      .mockRejectedValueOnce(Object.assign(new Error('throttled'), { name: 'ProvisionedThroughputExceededException' }));
    const message = {
      messageId: 'dnc-retry',
      body: JSON.stringify({ event_id: 'dnc-4', phone_number: '+14155550184', tags: ['DNC'] }),
      receiveCount: 1,
    };
    expect(await rig.sync.handle([message])).toMatchObject([
      { status: 'retry', reason: 'not listed as do-not-call: ProvisionedThroughputExceededException: throttled' },
    ]);
    expect(await rig.store.read('+14155550184')).toBeNull();
    expect(await emulatorContact(f, '+14155550184')).toBeNull();
    failing.mockRestore();
    expect(await rig.sync.handle([{ ...message, receiveCount: 2 }])).toMatchObject([{ status: 'done' }]);
    expect([...(await list().matching(['+14155550184']))]).toEqual(['+14155550184']);
  });
});
