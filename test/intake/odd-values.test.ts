import { describe, expect, it } from 'vitest';
import { costlyNumberType, normalizePhone } from '#commons/phone/phone.ts';
import { DEFAULT_LIMITS } from '#commons/spreadsheet/limits.ts';
import { readSettings } from '#intake/settings.ts';
import { validateUpload } from '#intake/validate-upload.ts';
import { xlsx } from '../helpers/sheets.ts';

describe('invisible characters in a phone number', () => {
  it('are dropped, so the contact is kept with the number a person sees', () => {
    const invisible = [
      '\u200b',
      '\u200c',
      '\u200d',
      '\u2060',
      '\ufeff',
      '\u200e',
      '\u200f',
      '\u202a',
      '\u202c',
      '\u2066',
      '\u00ad',
    ];
    for (const ch of invisible) {
      expect(normalizePhone(`+1 415${ch}555${ch}2671`, 'US'), `U+${ch.charCodeAt(0).toString(16)}`).toEqual({
        ok: true,
        e164: '+14155552671',
        country: 'US',
      });
    }
    expect(normalizePhone('\u202a(415)\u2009555\u20122671\u202c', 'US')).toMatchObject({ e164: '+14155552671' });
    expect(normalizePhone('\u200b\u200d', 'US')).toEqual({ ok: false, reason: 'missing_phone' });
  });
});

describe('costly numbers', () => {
  it('are told apart from ordinary ones by their type in their country', () => {
    expect(costlyNumberType('+19005551234', 'US')).toBe('PREMIUM_RATE');
    expect(costlyNumberType('+449098790000', 'GB')).toBe('PREMIUM_RATE');
    expect(costlyNumberType('+447012345678', 'GB')).toBe('PERSONAL_NUMBER');
    expect(costlyNumberType('+979123456789', null)).toBe('PREMIUM_RATE'); // international premium rate, no country
    for (const [n, c] of [
      ['+14155552671', 'US'],
      ['+18005551234', 'US'], // toll free: free to call
      ['+442079460958', 'GB'],
      ['+447911123456', 'GB'],
      ['+80012345678', null],
    ] as const)
      expect(costlyNumberType(n, c), n).toBeNull();
  });

  it('are rejected with a reason by default, and called when the upload allows them', async () => {
    const sheet = await xlsx([
      ['Phone Number', 'Name'],
      ['+1 415 555 2671', 'Ada'],
      ['1-900-555-1234', 'Psychic line'],
    ]);
    const refused = await validateUpload(sheet, 'c.xlsx', { defaultCountry: 'US' });
    expect(refused.report.contacts.map((c) => c.phone)).toEqual(['+14155552671']);
    expect(refused.report.rejected).toEqual([{ row: 3, reason: 'costly_number', input: '+19005551234' }]);
    expect(refused.report.rows).toEqual({ total: 2, valid: 1, rejected: 1 });

    const allowed = await validateUpload(sheet, 'c.xlsx', {
      defaultCountry: 'US',
      metadata: { 'allow-costly-numbers': 'yes' },
    });
    expect(allowed.settings.allowCostlyNumbers).toBe(true);
    expect(allowed.report.contacts.map((c) => c.phone)).toEqual(['+14155552671', '+19005551234']);
    expect(allowed.report.rejected).toEqual([]);
  });
});

describe('start dates and times that do not exist', () => {
  it('are errors naming the setting, never rolled over into another moment', () => {
    const cases: [string, RegExp][] = [
      ['2026-02-30T09:00', /February 2026 has 28 days/],
      ['2028-02-30 09:00', /February 2028 has 29 days/],
      ['2026-04-31T09:00:00', /April 2026 has 30 days/],
      ['2026-13-01T09:00', /there is no month 13/],
      ['2026-03-01T25:00', /there is no hour 25/],
      ['2026-03-01T24:00', /there is no hour 24/],
      ['2026-03-01T09:61', /there is no minute 61/],
      ['2026-03-01T09:30:60', /there is no second 60/],
      ['2026-03-01T09:30+25:00', /\+25:00 is not a UTC offset/],
    ];
    for (const [value, why] of cases) {
      expect(
        () =>
          readSettings([
            ['start', value],
            ['time zone', 'Europe/Paris'],
          ]),
        value,
      ).toThrow(
        new RegExp(
          `^Settings sheet row 1: "${value.replace(/[+.]/g, '\\$&')}" is not a real date and time: .*${why.source}`,
        ),
      );
    }
    expect(() => readSettings(null, { 'start-date-time': '2026-02-29T10:00', 'time-zone': 'UTC' })).toThrow(
      /^S3 metadata x-amz-meta-start-date-time: .*February 2026 has 28 days/,
    );
    expect(
      readSettings([
        ['start', '2028-02-29T23:59:59'],
        ['time zone', 'UTC'],
      ]).start,
    ).toEqual({
      dateTime: '2028-02-29T23:59:59',
      timeZone: 'UTC',
    });
  });
});

describe('a file that cannot be read for a reason nobody foresaw', () => {
  it('is refused with a report saying so, instead of throwing', async () => {
    const sheet = await xlsx([['Phone Number'], ['+14155552671']]);
    // A limit that throws when read stands in for any unexpected error while reading.
    const limits = { ...DEFAULT_LIMITS };
    Object.defineProperty(limits, 'maxRows', {
      get() {
        throw new TypeError('unexpected');
      },
    });
    const out = await validateUpload(sheet, 'c.xlsx', { defaultCountry: 'US', limits });
    expect(out.report).toMatchObject({
      ok: false,
      error: {
        code: 'unreadable',
        message: expect.stringMatching(/^callsheet could not read this file \(TypeError: unexpected\)\. Save it again/),
      },
    });
    expect(out.scanned).toBeNull();
  });
});
