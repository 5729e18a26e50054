import { describe, expect, it } from 'vitest';
import { knowsHolidaysOf, publicHolidays } from '#commons/calling-hours/holidays.ts';
import { regionsOfNumber } from '#commons/calling-hours/regions.ts';
import { parseLegalHours } from '#commons/legal-hours.ts';
import { zonesForNumber, zonesOf } from '#intake/time-zones.ts';
import { type HoursAnswer, hoursFor, isoInZone } from '#local/cli/hours-for.ts';

const answer = (phone: string, on: string, window: string | null = null): HoursAnswer => {
  const a = hoursFor(phone, { on, window });
  if ('error' in a) throw new Error(a.error);
  return a;
};
const local = (a: HoursAnswer) => a.allowed.map((w) => `${w.from.slice(11, 16)}-${w.to.slice(11, 16)}`);

describe('regions of a number: the states or provinces whose rules apply', () => {
  it.each([
    ['+13055550143', 'US', ['US-FL']],
    ['+12085550143', 'US', ['US-ID']],
    ['+33142685300', 'FR', []],
  ])('%s (%s) → %j', (phone, country, regions) => {
    expect(regionsOfNumber(phone, country)).toEqual(regions);
  });

  it('gives a number of one country with an area code of the other every subdivision of its own', () => {
    expect(regionsOfNumber('+14165550143', 'CA')).toEqual(['CA-ON']);
    expect(regionsOfNumber('+14165550143', 'US')).toEqual(regionsOfNumber('+18005550143', 'US'));
    expect(regionsOfNumber('+13055550143', 'CA')).toContain('CA-NS');
    expect(regionsOfNumber('+13055550143', 'CA').every((r) => r.startsWith('CA-'))).toBe(true);
  });

  it('gives a US number whose area code the table does not know every state (the stricter reading)', () => {
    const regions = regionsOfNumber('+18005550143', 'US');
    expect(regions).toContain('US-FL');
    expect(regions.every((r) => r.startsWith('US-'))).toBe(true);
  });
});

describe('zones of a number by its longest prefix', () => {
  it('answers each number by its own prefix, asked in any order, whatever was asked before', () => {
    // One area code, three answers: 208 343 names Denver, 208 765 Los Angeles; the area code adds Boise to both.
    const asked = ['+12083431234', '+12087651234', '+12083439999', '+12087650000', '+1208', '+447946000001'];
    const expected = [
      ['America/Denver', 'America/Boise', 'America/Los_Angeles'],
      ['America/Los_Angeles', 'America/Boise'],
      ['America/Denver', 'America/Boise', 'America/Los_Angeles'],
      ['America/Los_Angeles', 'America/Boise'],
    ];
    for (const order of [asked, [...asked].reverse()]) {
      const answers = new Map(order.map((p) => [p, zonesOf(p)]));
      expect(asked.slice(0, 4).map((p) => answers.get(p))).toEqual(expected);
      // Only the calling code: every zone of NANP, more than any one area code.
      expect(answers.get('+1208')?.length).toBeGreaterThan(20);
      expect(answers.get('+447946000001')).toEqual(['Europe/Guernsey', 'Europe/Isle_of_Man', 'Europe/London']);
    }
    expect(zonesOf('+999')).toEqual([]);
  });
});

describe('zones of split area codes', () => {
  it.each([
    ['+12085550143', ['America/Boise', 'America/Los_Angeles']],
    ['+19072223333', ['America/Adak']],
    // Gary and Hammond (Lake County, Indiana) keep Central time; the phone data names only Eastern.
    ['+12192345678', ['America/Chicago']],
    ['+19152345678', ['America/Denver', 'America/Chicago']],
  ])('%s rings in %j too', (phone, zones) => {
    const choice = zonesForNumber(phone, Date.parse('2026-12-07T12:00Z'));
    for (const z of zones) expect(choice?.zones).toContain(z);
    expect(choice?.source).toBe('several');
  });
});

describe('public holidays from date-holidays', () => {
  it('lists a scope’s public holidays on local dates, and refuses a scope or year it has no calendar for', () => {
    expect(publicHolidays('AU', '2026-04-01', '2026-04-30')).toEqual(
      expect.arrayContaining(['2026-04-03', '2026-04-06']),
    );
    expect(publicHolidays('FR', '2026-12-26', '2027-01-02')).toEqual(['2027-01-01']);
    expect(knowsHolidaysOf('FR')).toBe(true);
    expect(knowsHolidaysOf('US-ZZ')).toBe(false);
    expect(() => publicHolidays('ZZ', '2026-01-01', '2026-12-31')).toThrow(/no holiday calendar for ZZ/);
    expect(() => publicHolidays('FR', '2026-01-01', '2099-12-31')).toThrow(/covers 2025-2031, not 2026-2099/);
  });

  it('includes holidays on both ends of the range, across years, and none outside it', () => {
    // France: 1 January, Easter Monday (6 April 2026), 1 and 8 May, Ascension (14 May), ... 25 December.
    expect(publicHolidays('FR', '2026-05-01', '2026-05-08')).toEqual(['2026-05-01', '2026-05-08']);
    expect(publicHolidays('FR', '2026-05-02', '2026-05-07')).toEqual([]);
    expect(publicHolidays('FR', '2025-12-25', '2026-01-01')).toEqual(['2025-12-25', '2026-01-01']);
    expect(publicHolidays('FR', '2025-01-01', '2025-01-01')).toEqual(['2025-01-01']);
    expect(publicHolidays('FR', '2031-12-25', '2031-12-31')).toEqual(['2031-12-25']);
    const all = publicHolidays('FR', '2025-01-01', '2031-12-31');
    expect(all.length).toBeGreaterThan(7 * 10);
    expect([...all].sort()).toEqual(all);
    expect(publicHolidays('FR', '2026-01-01', '2026-12-31')).toEqual(all.filter((d) => d.startsWith('2026')));
  });
});

describe('hoursFor: when a number may be called on a date, and why', () => {
  it('is the strictest of federal and state hours (Florida, 08:00-20:00)', () => {
    const a = answer('+13055550143', '2026-12-07');
    expect(local(a)).toEqual(['08:00-20:00']);
    expect(a.rules.map((r) => r.scope)).toEqual(['US', 'US-FL']);
    expect(a.rules[1]?.source).toMatch(/501\.616\(6\)\(a\)/);
    expect(a.allowed[0]?.from).toBe('2026-12-07T08:00:00-05:00');
  });

  it('opens a split area code only where every zone is open (208: Boise and Los Angeles)', () => {
    const a = answer('+12085550143', '2026-12-07', 'Mon-Fri 09:00-17:00');
    expect(a.zones).toEqual(['America/Boise', 'America/Los_Angeles']);
    // 09:00 in Los Angeles is 10:00 in Boise; 17:00 in Boise is 16:00 in Los Angeles.
    expect(local(a)).toEqual(['10:00-17:00']);
    expect(a.zoneSource).toMatchObject({ areaCode: '208', source: expect.stringMatching(/49 CFR Part 71/) });
  });

  it('closes a public holiday where the rule bans them, and names it', () => {
    const a = answer('+61293744000', '2026-04-06');
    expect(a.allowed).toEqual([]);
    expect(a.holidays).toEqual([{ scope: 'AU', name: 'Easter Monday' }]);
    expect(local(answer('+61293744000', '2026-04-07'))).toEqual(['09:00-20:00']);
  });

  it('intersects the upload window and keeps split lunch hours (France)', () => {
    expect(local(answer('+33142685300', '2026-12-07'))).toEqual(['10:00-13:00', '14:00-20:00']);
    expect(local(answer('+33142685300', '2026-12-07', 'daily 12:00-15:00'))).toEqual(['12:00-13:00', '14:00-15:00']);
    expect(local(answer('+33142685300', '2026-12-06'))).toEqual([]);
  });

  it('applies a LEGAL_HOURS override to a state', () => {
    const table = parseLegalHours('{"US-FL": "Mon-Fri 10:00-12:00"}');
    const a = hoursFor('+13055550143', { on: '2026-12-07', table });
    expect('error' in a ? a.error : local(a)).toEqual(['10:00-12:00']);
  });

  it('says hours the LEGAL_HOURS setting switched off are that, and names the country when a window stands in', () => {
    const table = parseLegalHours('{"DE": "off"}');
    const off = hoursFor('+4930123456', { on: '2026-11-30', table });
    expect('error' in off && off.error).toBe(
      `+4930123456: set a calling window for DE numbers: the LEGAL_HOURS setting switches off callsheet's default hours for DE (--window, e.g. "Mon-Fri 09:00-20:00")`,
    );
    const windowed = hoursFor('+4930123456', { on: '2026-11-30', table, window: 'Mon-Fri 10:00-12:00' });
    expect('error' in windowed ? windowed.error : [windowed.country, windowed.rules, local(windowed)]).toEqual([
      'DE',
      [],
      ['10:00-12:00'],
    ]);
  });

  it.each([
    ['not-a-number', '2026-12-07', null, /not a valid phone number/],
    ['+13055550143', '2026-02-30', null, /not a date/],
    ['+13055550143', '2026-12-07', 'whenever', /the window: "whenever"/],
    ['+13055550143', '2026-12-07', 'daily 22:00-23:00', /no hour within the legal hours/],
  ])('answers %s on %s with window %s by a reason', (phone, on, window, why) => {
    const a = hoursFor(phone, { on, window });
    expect('error' in a && a.error).toMatch(why);
  });

  it('writes instants with the zone’s own offset, across a DST change', () => {
    expect(isoInZone(Date.parse('2026-03-08T06:59:00Z'), 'America/New_York')).toBe('2026-03-08T01:59:00-05:00');
    expect(isoInZone(Date.parse('2026-03-08T07:00:00Z'), 'America/New_York')).toBe('2026-03-08T03:00:00-04:00');
    // Lord Howe falls back half an hour at 02:00 local on 2026-04-05.
    expect(isoInZone(Date.parse('2026-04-04T14:59:00Z'), 'Australia/Lord_Howe')).toBe('2026-04-05T01:59:00+11:00');
    expect(isoInZone(Date.parse('2026-04-04T15:00:00Z'), 'Australia/Lord_Howe')).toBe('2026-04-05T01:30:00+10:30');
    expect(isoInZone(Date.parse('2026-06-01T00:00:00Z'), 'Asia/Kolkata')).toBe('2026-06-01T05:30:00+05:30');
  });
});
