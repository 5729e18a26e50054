import { describe, expect, it } from 'vitest';
import { parseHolidays, parseWindowRules } from '#commons/calling-window.ts';
import type { CampaignPlan } from '#commons/campaign-plan.ts';
import { DEFAULT_LEGAL_HOURS, type LegalHoursTable, parseLegalHours } from '#commons/legal-hours.ts';
import {
  nextOpening,
  noOpeningReason,
  type PartWindow,
  partWindow,
  STATE_HORIZON_MS,
  tooShortWords,
  windowStateAt,
} from '#commons/window-plan.ts';

const MIN = 60_000;
const DAY = 86_400_000;
const iso = (t: number | null) => (t === null ? null : new Date(t).toISOString().slice(0, 16));
const at = (s: string) => Date.parse(s);

function plan(zones: string[], country: string | null, spec: string | null, holidays = ''): CampaignPlan {
  return {
    uploadId: 'u',
    bucket: 'b',
    part: { index: 1, of: 1, key: 'k', rows: 1, zones, timeZone: zones[0] ?? null, country },
    agentId: 'a',
    campaign: { name: 'n', startDateTime: null, timeZone: null, retries: 0 },
    window: { rules: spec ? parseWindowRules(spec) : null, holidays: parseHolidays(holidays) },
    reportPrefix: 'reports/u/',
  };
}

/** When the windows are made: fixes which public holidays they list. */
const MADE = at('2026-03-01T00:00Z');
/** The built-in table without Great Britain's conservative default: a country with no hours of its own. */
const NO_GB = parseLegalHours('{"GB": "off"}');

function windowOf(p: CampaignPlan, legal: LegalHoursTable = NO_GB): PartWindow {
  const r = partWindow(p, legal, MADE);
  if (!r.ok) throw new Error(`${r.code}: ${r.message}`);
  return JSON.parse(JSON.stringify(r.window)); // the workflow carries it as JSON
}

const state = (w: PartWindow, now: string, marginMin = 5) => {
  const s = windowStateAt(w, at(now), marginMin * MIN);
  return { open: s.open, changesAt: iso(s.changesAt) };
};

describe('part window: upload hours ∩ legal hours, in every candidate zone', () => {
  it('clips an upload window to the legal hours and says so (a 20-hour "09:00-5:00" becomes 09:00-21:00)', () => {
    const w = windowOf(plan(['America/New_York'], 'US', 'Mon-Fri 09:00-5:00'));
    expect(w).toMatchObject({ source: 'upload', clipped: true, zones: ['America/New_York'] });
    expect(w.description).toContain('Mon,Tue,Wed,Thu,Fri 09:00-21:00');
    expect(w.description).toContain('cut to the legal hours of US (Sun,Mon,Tue,Wed,Thu,Fri,Sat 08:00-21:00)');
    expect(w.legal[0]?.source).toMatch(/47 CFR § 64\.1200\(c\)\(1\)/);
    // Tuesday 02:00 in New York was inside the upload's window; it is not legal, so it is closed.
    expect(state(w, '2026-03-03T07:00Z')).toEqual({ open: false, changesAt: '2026-03-03T14:00' });
    expect(state(w, '2026-03-03T20:00Z')).toEqual({ open: true, changesAt: '2026-03-04T01:55' });
  });

  it.each([
    ['US', ['America/New_York'], DEFAULT_LEGAL_HOURS, '; legal hours of US'],
    // Great Britain's hours are callsheet's conservative default, not a law: not called legal.
    ['GB', ['Europe/London'], DEFAULT_LEGAL_HOURS, '; calling hours of GB'],
    ['GB', ['Europe/London'], parseLegalHours('{"GB": "Mon-Fri 10:00-18:00"}'), '; calling hours of GB'],
  ])('names the hours of %s after what sets them', (country, zones, table, named) => {
    const w = windowOf(plan(zones, country, null), table);
    expect(w.description).toContain(named);
    expect(w.description).not.toContain(named.includes('legal') ? 'calling hours' : 'legal hours');
  });

  it('keeps an upload window inside legal hours as it is', () => {
    const w = windowOf(plan(['America/Los_Angeles'], 'US', 'Mon-Fri 09:00-09:20'));
    expect(w).toMatchObject({ source: 'upload', clipped: false, timeZone: 'America/Los_Angeles' });
  });

  it("applies the country's legal hours when the upload sets none (Canada: the CRTC's stricter hours)", () => {
    const w = windowOf(plan(['America/Toronto'], 'CA', null));
    expect(w).toMatchObject({ source: 'legal hours', clipped: false });
    // Saturday 2026-03-07: 10:00-18:00 EST; Monday 09:00-21:30.
    expect(state(w, '2026-03-07T14:30Z')).toEqual({ open: false, changesAt: '2026-03-07T15:00' });
    expect(state(w, '2026-03-07T20:00Z')).toEqual({ open: true, changesAt: '2026-03-07T22:55' });
    expect(state(w, '2026-03-09T12:00Z')).toEqual({ open: false, changesAt: '2026-03-09T13:00' }); // 09:00 EDT
  });

  it.each([
    [
      'GB',
      null,
      'no_legal_hours',
      "set a calling window for GB numbers: the LEGAL_HOURS setting switches off callsheet's default hours for GB",
    ],
    [null, null, 'no_legal_hours', 'set a calling window'],
    ['US', 'Mon-Fri 22:00-07:00', 'window_outside_legal_hours', 'has no hour within the legal hours for US'],
  ])('refuses a part of country %s with window %s: %s', (country, spec, code, message) => {
    const r = partWindow(plan(['Europe/London'], country, spec), NO_GB, MADE);
    expect(r).toMatchObject({ ok: false, code, message: expect.stringContaining(message) });
  });

  it('refuses a part without zones, or with a zone the runtime does not know, instead of guessing one', () => {
    expect(partWindow(plan([], 'US', null), DEFAULT_LEGAL_HOURS, MADE)).toMatchObject({
      ok: false,
      code: 'no_time_zone',
    });
    expect(partWindow(plan(['Mars/Olympus'], 'US', null), DEFAULT_LEGAL_HOURS, MADE)).toMatchObject({
      ok: false,
      code: 'unknown_time_zone',
    });
  });

  it('accepts a country without an entry once an override or the upload gives hours', () => {
    const legal = parseLegalHours('{"GB": "Mon-Fri 09:00-20:00"}');
    const w = windowOf(plan(['Europe/London'], 'GB', 'daily 08:00-22:00'), legal);
    expect(w).toMatchObject({ clipped: true, legal: [{ scope: 'GB', source: 'deployment setting LEGAL_HOURS' }] });
    expect(windowOf(plan(['Europe/London'], 'GB', 'Mon 10:00-11:00'), NO_GB)).toMatchObject({
      legal: [],
      clipped: false,
    });
  });

  it('reads a plan from before parts carried zones by its one time zone', () => {
    const old = plan([], 'US', null);
    const { zones: _gone, ...part } = old.part;
    const w = windowOf({ ...old, part: { ...part, timeZone: 'America/Chicago' } as CampaignPlan['part'] });
    expect(w.zones).toEqual(['America/Chicago']);
  });
});

describe('zone-spanning parts are open only where every candidate zone is', () => {
  it.each([
    // +1605 (South Dakota) spans Central and Mountain: 08:00 Mountain opens, 21:00 Central closes.
    [['America/Chicago', 'America/Denver'], '2026-03-03T14:30Z', false, '2026-03-03T15:00'],
    [['America/Chicago', 'America/Denver'], '2026-03-04T02:00Z', true, '2026-03-04T02:55'],
    // +1907 (Alaska) spans Anchorage and Adak (an hour apart): Adak opens at 08:00 HST = 18:00Z.
    [['America/Adak', 'America/Anchorage'], '2026-01-13T17:30Z', false, '2026-01-13T18:00'],
    [['America/Adak', 'America/Anchorage'], '2026-01-14T05:30Z', true, '2026-01-14T05:55'],
    [['America/Adak', 'America/Anchorage'], '2026-01-14T06:00Z', false, '2026-01-14T18:00'],
  ])('%j at %s: open %s, changes %s', (zones, now, open, changesAt) => {
    const w = windowOf(plan(zones, 'US', null));
    expect(state(w, now)).toEqual({ open, changesAt });
  });

  it('gives a part whose zones never share an hour no opening (held, not dialled)', () => {
    // 09:00-10:00 in London and in Tokyo never overlap.
    const w = windowOf(plan(['Europe/London', 'Asia/Tokyo'], 'GB', 'daily 09:00-10:00'));
    expect(state(w, '2026-03-03T00:00Z')).toEqual({ open: false, changesAt: null });
    expect(nextOpening(w, at('2026-03-03T00:00Z'), 5 * MIN, 14 * DAY)).toBeNull();
  });
});

describe('why a part has no opening: closed, or too short for the quiet time before a close', () => {
  it.each([
    // Zones that never share an hour: closed.
    { zones: ['Europe/London', 'Asia/Tokyo'], spec: 'daily 09:00-10:00', kind: 'closed', longest: null },
    // Five minutes a weekday: open, but never longer than 5 minutes.
    { zones: ['UTC'], spec: 'Mon-Fri 10:00-10:05', kind: 'too_short', longest: 5 * MIN },
    // The longest stretch counts: 3 minutes on Monday, 6 on Tuesday.
    { zones: ['UTC'], spec: 'Mon 10:00-10:03; Tue 14:00-14:06', kind: 'too_short', longest: 6 * MIN },
    // The week before New York's clocks change, London's 09:00-14:04 and New York's share 14:00-14:04Z.
    { zones: ['Europe/London', 'America/New_York'], spec: 'daily 09:00-14:04', kind: 'too_short', longest: 4 * MIN },
  ])('$spec in $zones: $kind', ({ zones, spec, kind, longest }) => {
    const w = windowOf(plan(zones, 'GB', spec));
    const from = at('2026-03-02T00:00Z');
    expect(nextOpening(w, from, 7 * MIN, 5 * DAY)).toBeNull();
    expect(noOpeningReason(w, from, 5 * DAY)).toEqual(longest === null ? { kind } : { kind, longestMs: longest });
  });

  it.each([
    // Two minutes left of a two-hour window, the next two Saturdays holidays: it does not open again, not "too short".
    {
      spec: 'Sat 10:00-12:00',
      holidays: '2026-03-14, 2026-03-21',
      now: '2026-03-07T11:58Z',
      horizon: 14 * DAY,
      expected: { kind: 'closed' },
    },
    // Five minutes left of Friday's eight hours, with a one-day look-ahead.
    { spec: 'Mon-Fri 09:00-17:00', holidays: '', now: '2026-03-06T16:55Z', horizon: DAY, expected: { kind: 'closed' } },
    // Two minutes left of a five-minute window: the later ones are five minutes, too short.
    {
      spec: 'Mon-Fri 10:00-10:05',
      holidays: '',
      now: '2026-03-06T10:03Z',
      horizon: 14 * DAY,
      expected: { kind: 'too_short', longestMs: 5 * MIN },
    },
  ])(
    'measures whole stretches, not what is left of one open now: $spec at $now',
    ({ spec, holidays, now, horizon, expected }) => {
      const w = windowOf(plan(['UTC'], 'GB', spec, holidays));
      expect(nextOpening(w, at(now), 7 * MIN, horizon)).toBeNull();
      expect(noOpeningReason(w, at(now), horizon)).toEqual(expected);
    },
  );

  it('says how long the window opens and why no call may start in it', () => {
    expect(tooShortWords(5 * MIN, { closingMarginMs: 5 * MIN, pauseLeadMs: 120_000 })).toBe(
      'is open at most 5 min at a time, and no call may start in the last 7 min before each close ' +
        '(the 5 min closing margin and the 2 min the pause is sent ahead of it)',
    );
    expect(tooShortWords(90_000, { closingMarginMs: 60_000, pauseLeadMs: 45_000 })).toContain('at most 90 s at a time');
  });
});

describe('window state and next opening, with a closing margin', () => {
  it('does not let a call start within the margin, nor in a stretch shorter than it', () => {
    const w = windowOf(plan(['UTC'], 'GB', 'Mon 09:00-10:00; Tue 09:00-09:04'));
    expect(state(w, '2026-03-02T09:54Z')).toEqual({ open: true, changesAt: '2026-03-02T09:55' });
    expect(state(w, '2026-03-02T09:55Z')).toEqual({ open: false, changesAt: '2026-03-09T09:00' });
    expect(state(w, '2026-03-02T09:55Z', 0)).toEqual({ open: true, changesAt: '2026-03-02T10:00' });
    const next = nextOpening(w, at('2026-03-02T12:00Z'), 5 * MIN, 14 * DAY);
    expect([iso(next?.opensAt ?? null), iso(next?.closesAt ?? null)]).toEqual(['2026-03-09T09:00', '2026-03-09T09:55']);
    const withoutMargin = nextOpening(w, at('2026-03-02T12:00Z'), 0, 14 * DAY);
    expect(iso(withoutMargin?.opensAt ?? null)).toBe('2026-03-03T09:00');
  });

  it('opens now when open now, and holds when the next opening is past the horizon', () => {
    const w = windowOf(plan(['America/New_York'], 'US', 'Mon 09:00-17:00', '2026-03-09, 2026-03-16'));
    const now = at('2026-03-02T15:00Z');
    expect(nextOpening(w, now, 5 * MIN, 14 * DAY)).toEqual({ opensAt: now, closesAt: at('2026-03-02T21:55Z') });
    // Next Mondays are holidays: the one after is 21 days away.
    expect(nextOpening(w, at('2026-03-02T22:00Z'), 5 * MIN, 14 * DAY)).toBeNull();
    expect(iso(nextOpening(w, at('2026-03-02T22:00Z'), 5 * MIN, 30 * DAY)?.opensAt ?? null)).toBe('2026-03-23T13:00');
  });

  it('reports no change for a window open around the clock, and none for a window that never opens', () => {
    const legal = parseLegalHours('{"GB": "daily 00:00-24:00"}');
    const always = windowOf(plan(['Pacific/Kiritimati', 'Pacific/Chatham'], 'GB', null), legal);
    expect(state(always, '2026-03-03T12:00Z')).toEqual({ open: true, changesAt: null });
    const next = nextOpening(always, at('2026-03-03T12:00Z'), 5 * MIN, 14 * DAY);
    expect(next?.opensAt).toBe(at('2026-03-03T12:00Z'));
    expect(next?.closesAt).toBeGreaterThanOrEqual(at('2026-03-03T12:00Z') + 14 * DAY);
    const holidays = Array.from({ length: 60 }, (_, i) =>
      new Date(at('2026-03-01T00:00Z') + i * DAY).toISOString().slice(0, 10),
    );
    const never = windowOf(plan(['UTC'], 'GB', 'daily 09:00-17:00', holidays.join(' ')));
    expect(state(never, '2026-03-03T12:00Z')).toEqual({ open: false, changesAt: null });
    expect(STATE_HORIZON_MS).toBeGreaterThanOrEqual(14 * DAY);
  });

  it.each([
    // Zones beyond ±12 h and half-hour DST, under Australian legal hours or an upload window.
    ['Pacific/Chatham', 'NZ', 'Mon-Fri 09:00-17:00', '2026-01-04T19:00Z', false, '2026-01-04T19:15'],
    ['Pacific/Chatham', 'NZ', 'Mon-Fri 09:00-17:00', '2026-01-05T03:00Z', true, '2026-01-05T03:10'],
    ['Pacific/Kiritimati', 'KI', 'Mon-Fri 09:00-17:00', '2026-06-07T18:00Z', false, '2026-06-07T19:00'],
    ['Pacific/Auckland', 'NZ', 'Mon-Fri 09:00-17:00', '2026-01-04T20:30Z', true, '2026-01-05T03:55'],
    // Lord Howe, Saturday after DST ends (Sunday 2026-04-05 02:00 → 01:30): AU hours 09:00-17:00 at +10:30.
    ['Australia/Lord_Howe', 'AU', null, '2026-04-11T00:00Z', true, '2026-04-11T06:25'],
    // Easter 2026 falls on that weekend, and Australia bans calls on public holidays: Saturday the 4th (Easter
    // Saturday) and Monday the 6th (Easter Monday) are closed, so the next opening is Tuesday 09:00 (+10:30).
    ['Australia/Lord_Howe', 'AU', null, '2026-04-03T22:00Z', false, '2026-04-06T22:30'],
    // Sydney on the fall-back Sunday: no Sunday calls; Easter Monday closed; Tuesday 09:00 AEST.
    ['Australia/Sydney', 'AU', null, '2026-04-05T00:00Z', false, '2026-04-06T23:00'],
  ])('%s (%s, %s) at %s: open %s, changes %s', (zone, country, spec, now, open, changesAt) => {
    const w = windowOf(plan([zone], country, spec));
    expect(state(w, now)).toEqual({ open, changesAt });
  });
});
