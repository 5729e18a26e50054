import Holidays from 'date-holidays';
import { describe, expect, it } from 'vitest';
import { CONSERVATIVE_DEFAULT, COUNTRY_RULES, FRIDAY_REST_DEFAULT } from '#commons/calling-hours/countries.ts';
import { parseWindowRules } from '#commons/calling-window.ts';
import { hoursFor } from '#local/cli/hours-for.ts';

const rules = Object.entries(COUNTRY_RULES);

/** The countries the table must cover, by region. */
const REGIONS: Record<string, string[]> = {
  'North America': ['US', 'CA', 'MX'],
  'South America': ['BR', 'AR', 'CO', 'CL', 'PE'],
  Europe: [
    'GB',
    'IE',
    'DE',
    'FR',
    'ES',
    'IT',
    'NL',
    'BE',
    'PT',
    'PL',
    'SE',
    'DK',
    'NO',
    'FI',
    'AT',
    'CH',
    'GR',
    'CZ',
    'RO',
  ],
  'the Gulf': ['AE', 'SA', 'QA', 'KW'],
  'South and East Asia': ['IN', 'PK', 'BD', 'SG', 'MY', 'PH', 'ID', 'TH', 'VN', 'JP', 'KR', 'CN', 'HK', 'TW'],
  Oceania: ['AU', 'NZ'],
  Africa: ['ZA', 'NG', 'KE', 'EG', 'MA'],
};

/** Countries date-holidays has no calendar for: their rules cannot close holidays, and say so. */
const NO_CALENDAR = ['KW', 'QA'];

const knownToDateHolidays = (cc: string) =>
  cc in new Holidays().getCountries() && new Holidays(cc).getHolidays(2026).some((h) => h.type === 'public');

describe('the country table', () => {
  it.each(rules)('%s: hours in the window grammar, a cited source, its own scope', (key, rule) => {
    expect(rule.scope).toBe(key);
    expect(key).toMatch(/^[A-Z]{2}$/);
    if (rule.hours === null) expect(rule.basis).toBe('none');
    else expect(() => parseWindowRules(rule.hours as string)).not.toThrow();
    expect(rule.source.law.trim()).not.toBe('');
    expect(rule.source.section.trim()).not.toBe('');
    if (rule.source.url) expect(rule.source.url).toMatch(/^https?:\/\//);
  });

  it('has at least 40 countries, every region the brief names among them', () => {
    expect(rules.length).toBeGreaterThanOrEqual(40);
    for (const [region, countries] of Object.entries(REGIONS))
      expect(
        countries.filter((cc) => !(cc in COUNTRY_RULES)),
        `${region} countries missing`,
      ).toEqual([]);
  });

  it('closes holidays only where date-holidays knows them, and says so where it does not', () => {
    for (const [cc, rule] of rules) {
      if (rule.noHolidays) expect(knownToDateHolidays(cc), `${cc} closes holidays it has no calendar for`).toBe(true);
    }
    expect(
      rules
        .filter(([cc]) => !knownToDateHolidays(cc))
        .map(([cc]) => cc)
        .sort(),
    ).toEqual(NO_CALENDAR);
    for (const cc of NO_CALENDAR) expect(COUNTRY_RULES[cc]?.note).toMatch(/no public-holiday calendar/);
  });

  it('applies a conservative default only where no law was found, closed on holidays, saying so', () => {
    const defaults = rules.filter(([, r]) => r.basis === 'default');
    expect(defaults.length).toBeGreaterThan(0);
    for (const [cc, rule] of defaults) {
      expect(rule.note, cc).toMatch(/no calling-hours law found/);
      expect(rule.noHolidays || NO_CALENDAR.includes(cc), cc).toBe(true);
    }
    // Where the weekly rest day is Friday the default closes Friday instead of Sunday.
    for (const cc of ['SA', 'QA', 'KW', 'EG', 'BD']) expect(COUNTRY_RULES[cc]?.hours).toBe(FRIDAY_REST_DEFAULT.hours);
    for (const cc of ['DE', 'GB', 'JP', 'NG']) expect(COUNTRY_RULES[cc]?.hours).toBe(CONSERVATIVE_DEFAULT.hours);
  });

  it('reads the laws as written (a mistyped spec fails here, not in production)', () => {
    const hours = (cc: string) => [COUNTRY_RULES[cc]?.basis, COUNTRY_RULES[cc]?.hours, COUNTRY_RULES[cc]?.noHolidays];
    expect(hours('US')).toEqual(['law', 'daily 08:00-21:00', false]);
    expect(hours('CA')).toEqual(['law', 'Mon-Fri 09:00-21:30; Sat,Sun 10:00-18:00', false]);
    expect(hours('FR')).toEqual(['law', 'Mon-Fri 10:00-13:00,14:00-20:00', true]);
    expect(hours('ES')).toEqual(['law', 'Mon-Fri 09:00-21:00', true]);
    expect(hours('NO')).toEqual(['law', 'Mon-Fri 09:00-21:00', true]);
    expect(hours('AU')).toEqual(['law', 'Mon-Fri 09:00-20:00; Sat 09:00-17:00', true]);
    expect(hours('ZA')).toEqual(['law', 'Mon-Fri 08:00-20:00; Sat 09:00-13:00', true]);
    expect(hours('CO')).toEqual(['law', 'Mon-Fri 07:00-19:00; Sat 08:00-15:00', true]);
    expect(hours('KR')).toEqual(['law', 'daily 08:00-21:00', false]);
    expect(hours('VN')).toEqual(['law', 'daily 08:00-17:00', false]);
    expect(hours('AE')).toEqual(['law', 'daily 09:00-18:00', false]);
    expect(hours('DE')).toEqual(['default', 'Mon-Fri 09:00-20:00; Sat 10:00-17:00', true]);
  });
});

/**
 * Days the table test (calling-hours-table.test.ts) does not reach: its cases are a Wednesday, a Saturday and a
 * Sunday. Friday is the day of rest in Saudi Arabia, Egypt and part of Malaysia; the Sunday is a working day there.
 */
describe('the Friday day of rest', () => {
  const FRIDAY = '2026-07-17';
  const SUNDAY = '2026-07-19';
  const local = (phone: string, on: string) => {
    const a = hoursFor(phone, { on });
    if ('error' in a) throw new Error(`${phone} on ${on}: ${a.error}`);
    return a.allowed.map((w) => `${w.from.slice(11, 16)}-${w.to.slice(11, 16)}`);
  };

  it.each([
    ['SA', '+966112345678', [], ['09:00-20:00']], // a Riyadh landline
    ['EG', '+20227345678', [], ['09:00-20:00']], // a Cairo landline
    ['MY', '+60321234567', [], []], // a Kuala Lumpur landline: Friday and Sunday both closed
    ['AE', '+97142345678', ['09:00-18:00'], ['09:00-18:00']], // Dubai: the law sets daily hours
  ])('%s (%s): Friday %j, Sunday %j', (_cc, phone, friday, sunday) => {
    expect(local(phone, FRIDAY)).toEqual(friday);
    expect(local(phone, SUNDAY)).toEqual(sunday);
  });
});
