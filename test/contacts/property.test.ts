import { describe, expect, it } from 'vitest';
import { CONTACT_FIELDS } from '#contacts/contact-event.ts';
import type { ContactState } from '#contacts/contact-state.ts';
import type { ContactSync, QueuedEvent } from '#contacts/contact-sync.ts';
import { rng } from '#local/emulator/random.ts';
import { useEmulator } from '../helpers/emulator.ts';
import { emulatorContact, useSyncRig } from './harness.ts';

const f = useEmulator();
const rig = useSyncRig(f);

interface Ev {
  event_id: string;
  phone_number: string;
  name?: string | null;
  city?: string;
  source?: string;
  tags?: string[];
  note?: string;
}

function randomEvents(rand: () => number, run: number, n: number): Ev[] {
  const pick = <T>(xs: T[]): T => xs[Math.floor(rand() * xs.length)] as T;
  const phones = [0, 1, 2, 3].map((i) => `+1415555${String(2000 + run * 10 + i)}`);
  return Array.from({ length: n }, (_, i) => {
    const e: Ev = { event_id: `run${run}-e${i}`, phone_number: pick(phones) };
    if (rand() < 0.5) e.name = pick(['Ana', 'Bo', 'Cy', '', '   ', null]);
    if (rand() < 0.4) e.city = pick(['Pune', 'Goa', 'Oslo']);
    if (rand() < 0.3) e.source = pick(['Web Form', 'CRM', 'referral']);
    if (rand() < 0.5) e.tags = [pick(['a', 'b', 'c', 'd']), pick(['b', 'e', ' ', 'f'])];
    if (rand() < 0.4) e.note = `note ${i}`;
    return e;
  });
}

function shuffle<T>(rand: () => number, xs: T[]): T[] {
  const out = [...xs];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  return out;
}

/** Two containers handle the messages at the same time; what they hand back is delivered again until done. */
async function deliverConcurrently(syncs: ContactSync[], messages: QueuedEvent[]): Promise<void> {
  let pending = messages;
  for (let round = 0; pending.length > 0; round++) {
    if (round > 20) throw new Error('messages kept failing');
    const halves = syncs.map((_, k) => pending.filter((_, i) => i % syncs.length === k));
    const results = (await Promise.all(syncs.map((s, k) => s.handle(halves[k] as QueuedEvent[])))).flat();
    const retry = new Set(results.filter((r) => r.status === 'retry').map((r) => r.messageId));
    expect(results.filter((r) => r.status === 'rejected' || r.status === 'dead-lettered')).toEqual([]);
    pending = pending.filter((m) => retry.has(m.messageId)).map((m) => ({ ...m, receiveCount: m.receiveCount + 1 }));
  }
}

describe('property: callsheet and the API agree after any sequence of events', () => {
  it('random upserts, replays, reorderings and concurrent writers', async () => {
    const second = await rig.another();
    for (let run = 0; run < 6; run++) {
      const rand = rng(1000 + run);
      const events = randomEvents(rand, run, 40);
      // Replays: a third of the events come again, some much later; then everything in random order.
      const replays = events.filter(() => rand() < 0.33);
      const order = shuffle(rand, [...events, ...replays]);
      const batches = [order.slice(0, 25), order.slice(25)];
      let seq = 0;
      for (const batch of batches) {
        const messages = batch.map((e) => ({
          messageId: `m${run}-${seq++}`,
          body: JSON.stringify(e),
          receiveCount: 1,
        }));
        await deliverConcurrently([rig.sync, second], messages);
      }
      // And the whole history once more: all seen, nothing may change.
      const before = await Promise.all([...new Set(events.map((e) => e.phone_number))].map((p) => rig.store.read(p)));
      await deliverConcurrently(
        [rig.sync, second],
        events.map((e, i) => ({ messageId: `again${run}-${i}`, body: JSON.stringify(e), receiveCount: 1 })),
      );
      for (const state of before) {
        const s = state as ContactState;
        const now = (await rig.store.read(s.phone)) as ContactState;
        expect({ ...now, pushed: null, lastPush: null }).toEqual({ ...s, pushed: null, lastPush: null });

        const notes = (await rig.store.notes(now)).map((n) => n.text);
        const expectedNotes = events.filter((e) => e.phone_number === s.phone && e.note).map((e) => e.note);
        expect([...notes].sort()).toEqual([...expectedNotes].sort()); // each note exactly once
        const allTags = new Set(
          events
            .filter((e) => e.phone_number === s.phone)
            .flatMap((e) => (e.tags ?? []).map((t) => t.trim()).filter(Boolean)),
        );
        expect(new Set(now.tags)).toEqual(allTags);

        const theirs = await emulatorContact(f, s.phone);
        expect(theirs, `run ${run} ${s.phone}`).not.toBeNull();
        expect({
          ...Object.fromEntries(CONTACT_FIELDS.map((k) => [k, theirs?.[k] ?? null])),
          tags: theirs?.tags,
          notes: theirs?.notes,
        }).toEqual({
          ...Object.fromEntries(CONTACT_FIELDS.map((k) => [k, now.fields[k] ?? null])),
          tags: now.tags,
          notes,
        });
      }
    }
  }, 180_000); // a loaded 2-core machine needs time; nothing here measures it
});
