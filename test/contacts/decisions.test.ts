import { describe, expect, it } from 'vitest';
import type { ContactChange } from '#contacts/contact-event.ts';
import { type ContactState, planApply } from '#contacts/contact-state.ts';
import { packBulk, planContactPush } from '#contacts/push-plan.ts';
import { rateLimit } from '#local/emulator/rate-limit.ts';

const NOW = new Date('2026-03-02T09:00:00Z');
const P = '+14155550100';

const state = (over: Partial<ContactState> = {}): ContactState => ({
  phone: P,
  fields: { contact_name: 'Ana', city: 'Pune' },
  tags: ['a'],
  noteCount: 1,
  pendingNotes: {},
  recentEvents: ['e0'],
  version: 3,
  createdAt: NOW.toISOString(),
  changedAt: NOW.toISOString(),
  pushed: { fields: { contact_name: 'Ana', city: 'Pune' }, tagCount: 1, noteCount: 1, at: NOW.toISOString() },
  ...over,
});
const change = (over: Partial<ContactChange> = {}): ContactChange => ({
  eventId: 'e1',
  phone: P,
  fields: {},
  tags: [],
  note: null,
  ...over,
});

describe('planApply: the upsert rules', () => {
  it.each([
    ['same values, no note', change({ fields: { city: 'Pune' }, tags: ['a'] }), 'unchanged'],
    ['a field changes', change({ fields: { city: 'Goa' } }), 'write'],
    ['a new tag', change({ tags: ['a', 'b'] }), 'write'],
    ['a note, even with nothing else', change({ note: 'hi' }), 'write'],
  ] as const)('%s → %s', (_, c, kind) => {
    expect(planApply(state(), c, NOW).kind).toBe(kind);
  });

  it('overwrites only given fields, unions tags in first-seen order, numbers notes, remembers the event', () => {
    const plan = planApply(state(), change({ fields: { email: 'a@b.co' }, tags: ['b', 'a', 'c'], note: 'n2' }), NOW);
    if (plan.kind !== 'write') throw new Error('expected a write');
    expect(plan.next.fields).toEqual({ contact_name: 'Ana', city: 'Pune', email: 'a@b.co' });
    expect(plan.next.tags).toEqual(['a', 'b', 'c']);
    expect(plan.note).toMatchObject({ seq: 2, text: 'n2', eventId: 'e1' });
    expect(plan.next.recentEvents).toEqual(['e0', 'e1']);
    expect(plan.next.version).toBe(4);
  });

  it('creates a contact even from a number alone, never pushed', () => {
    const plan = planApply(null, change(), NOW);
    expect(plan).toMatchObject({ kind: 'write', created: true, next: { pushed: { at: null }, version: 1 } });
  });

  it('keeps only the last 20 event ids in the item', () => {
    const recent = Array.from({ length: 20 }, (_, i) => `r${i}`);
    const plan = planApply(state({ recentEvents: recent }), change({ fields: { city: 'Goa' } }), NOW);
    expect(plan.kind === 'write' && plan.next.recentEvents).toEqual([...recent.slice(1), 'e1']);
  });
});

describe('planContactPush: only what changed since the last push', () => {
  const note = (seq: number) => ({ seq, text: `n${seq}`, eventId: `e${seq}`, at: NOW.toISOString() });

  it.each([
    ['nothing new', state(), [], null],
    [
      'a changed field',
      state({ fields: { contact_name: 'Ana', city: 'Goa' } }),
      [],
      [{ phone_number: P, city: 'Goa' }],
    ],
    ['a new tag', state({ tags: ['a', 'b'] }), [], [{ phone_number: P, tags: ['b'] }]],
    [
      'two unsent notes',
      state({ noteCount: 3 }),
      [note(2), note(3)],
      [
        { phone_number: P, note: 'n2' },
        { phone_number: P, note: 'n3' },
      ],
    ],
    [
      'never pushed: the number alone',
      state({ fields: {}, tags: [], noteCount: 0, pushed: { fields: {}, tagCount: 0, noteCount: 0, at: null } }),
      [],
      [{ phone_number: P }],
    ],
  ] as const)('%s', (_, s, unsent, entries) => {
    const push = planContactPush(s as ContactState, [...unsent], NOW.toISOString());
    expect(push?.entries ?? null).toEqual(entries);
  });
});

describe('packBulk: bodies of at most 100 entries, a contact kept together and in order', () => {
  const push = (phone: string, entries: number) =>
    planContactPush(
      state({ phone, noteCount: entries, pushed: { ...state().pushed, noteCount: 0 } }),
      Array.from({ length: entries }, (_, i) => ({ seq: i + 1, text: `n${i + 1}`, eventId: `x${i}`, at: '' })),
      '',
    ) as NonNullable<ReturnType<typeof planContactPush>>;

  it.each([
    ['250 one-entry contacts', Array.from({ length: 250 }, () => 1), [100, 100, 50]],
    ['a 3-entry contact does not straddle', [...Array.from({ length: 99 }, () => 1), 3], [99, 3]],
    ['150 notes of one contact span two bodies', [150], [100, 50]],
    ['nothing', [], []],
  ] as const)('%s', (_, sizes, bodies) => {
    const chunks = packBulk(sizes.map((n, i) => push(`+1415555${String(1000 + i)}`, n)));
    expect(chunks.map((c) => c.entries.length)).toEqual(bodies);
    for (const c of chunks) expect(c.owners.map((o) => o.push.entries[o.entry])).toEqual(c.entries);
  });
});

describe('the emulator plan: minute and hour windows', () => {
  const at = Date.parse('2026-03-02T09:59:30Z');
  it.each([
    ['off', { rateLimitPerMinute: 0, rateLimitPerHour: null }, { start: 0, count: 0 }, false, undefined],
    ['room in both', { rateLimitPerMinute: 10, rateLimitPerHour: 100 }, { start: 0, count: 0 }, false, '9'],
    [
      'minute full',
      { rateLimitPerMinute: 10, rateLimitPerHour: 100 },
      { start: Date.parse('2026-03-02T09:59:00Z'), count: 10 },
      true,
      '0',
    ],
    [
      'hour full, minute empty',
      { rateLimitPerMinute: 10, rateLimitPerHour: 100 },
      { start: 0, count: 0, hourStart: Date.parse('2026-03-02T09:00:00Z'), hourCount: 100 },
      true,
      '0',
    ],
    [
      'the hour closer to running out names the headers',
      { rateLimitPerMinute: 10, rateLimitPerHour: 100 },
      { start: 0, count: 0, hourStart: Date.parse('2026-03-02T09:00:00Z'), hourCount: 97 },
      false,
      '2',
    ],
  ] as const)('%s', (_, settings, windows, exceeded, remaining) => {
    const d = rateLimit(settings, { ...windows }, at, 0);
    expect(d.exceeded).toBe(exceeded);
    expect(d.headers['X-RateLimit-Remaining']).toBe(remaining);
    if (exceeded) expect(Number(d.headers['Retry-After'])).toBeGreaterThan(0);
  });
});
