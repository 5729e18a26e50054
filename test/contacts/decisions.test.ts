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

describe('planApply: changes in the order they were made (schema v2 changed_at)', () => {
  const T = (minute: number) => new Date(Date.UTC(2026, 2, 2, 8, minute)).toISOString();
  /** Applies changes in the order given, as the store does one after another. */
  const applyAll = (changes: ContactChange[], now = NOW) => {
    let s: ContactState | null = null;
    const superseded: string[][] = [];
    for (const c of changes) {
      const plan = planApply(s, c, now);
      superseded.push(plan.superseded);
      if (plan.kind === 'write') s = plan.next;
    }
    return { state: s as unknown as ContactState, superseded };
  };

  it('an older change arriving last keeps the newer value; its other fields, tags and note still apply', () => {
    const newer = change({ eventId: 'n', changedAt: T(30), fields: { contact_name: 'New' }, tags: ['b'] });
    const older = change({
      eventId: 'o',
      changedAt: T(10),
      fields: { contact_name: 'Old', city: 'Goa' },
      tags: ['a'],
      note: 'from before',
    });
    const { state: s, superseded } = applyAll([newer, older]);
    expect(s.fields).toEqual({ contact_name: 'New', city: 'Goa' });
    expect(s.fieldTimes).toEqual({ contact_name: T(30), city: T(10) });
    expect(s.tags).toEqual(['b', 'a']);
    expect(s.noteCount).toBe(1);
    expect(superseded).toEqual([[], ['contact_name']]);
  });

  it('any arrival order of the same changes gives the same fields: each keeps its latest change', () => {
    const changes = [
      change({ eventId: 'a', changedAt: T(1), fields: { contact_name: 'A1', city: 'C1' } }),
      change({ eventId: 'b', changedAt: T(2), fields: { contact_name: 'A2' } }),
      change({ eventId: 'c', changedAt: T(3), fields: { city: 'C3', email: 'e@x.co' } }),
      change({ eventId: 'd', changedAt: T(4), fields: { contact_name: 'A4', email: 'f@x.co' } }),
    ];
    const orders = (xs: ContactChange[]): ContactChange[][] =>
      xs.length <= 1
        ? [xs]
        : xs.flatMap((x, i) => orders([...xs.slice(0, i), ...xs.slice(i + 1)]).map((r) => [x, ...r]));
    for (const order of orders(changes))
      expect(applyAll(order).state.fields, order.map((c) => c.eventId).join('')).toEqual({
        contact_name: 'A4',
        city: 'C3',
        email: 'f@x.co',
      });
  });

  it('the same value changed again later moves its time, so a change made in between does not win', () => {
    const { state: s } = applyAll([
      change({ eventId: 'a', changedAt: T(1), fields: { city: 'Pune' } }),
      change({ eventId: 'c', changedAt: T(3), fields: { city: 'Pune' } }),
      change({ eventId: 'b', changedAt: T(2), fields: { city: 'Goa' } }),
    ]);
    expect(s.fields.city).toBe('Pune');
    expect(s.fieldTimes?.city).toBe(T(3));
  });

  it('a field stored before version 2 (no time) yields to any change', () => {
    const plan = planApply(state(), change({ changedAt: T(0), fields: { city: 'Goa' } }), NOW);
    expect(plan).toMatchObject({ kind: 'write', changed: true, next: { fields: { city: 'Goa' } } });
  });

  it('a version 1 change counts as made when it is applied: it wins over earlier changes, not later ones', () => {
    const stored = applyAll([change({ eventId: 'v2', changedAt: T(30), fields: { city: 'Goa', email: 'a@b.co' } })]);
    // Applied at 08:20: the v2 change of 08:30 (a clock a little ahead) stays; at 09:00 the v1 change wins.
    const early = planApply(stored.state, change({ eventId: 'v1', fields: { city: 'Pune' } }), new Date(T(20)));
    expect(early).toMatchObject({ kind: 'unchanged', superseded: ['city'] });
    const late = planApply(stored.state, change({ eventId: 'v1', fields: { city: 'Pune' } }), NOW);
    expect(late).toMatchObject({
      kind: 'write',
      next: { fields: { city: 'Pune', email: 'a@b.co' }, fieldTimes: { city: NOW.toISOString(), email: T(30) } },
    });
  });

  it('a version 1 change repeating the stored value writes nothing', () => {
    const { state: s } = applyAll([change({ eventId: 'a', changedAt: T(1), fields: { city: 'Pune' } })]);
    expect(planApply(s, change({ eventId: 'b', fields: { city: 'Pune' } }), NOW)).toEqual({
      kind: 'unchanged',
      superseded: [],
    });
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
