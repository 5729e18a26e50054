import ExcelJS from 'exceljs';
import { describe, expect, it } from 'vitest';
import { readSettings } from '#intake/settings.ts';
import { validateUpload } from '#intake/validate-upload.ts';
import { xlsx } from '../helpers/sheets.ts';

async function withSettings(settings: (string | number | Date)[][], phones = ['4155552671']): Promise<Buffer> {
  const wb = new ExcelJS.Workbook();
  const contacts = wb.addWorksheet('Contacts');
  contacts.addRow(['Phone Number', 'Name']);
  for (const p of phones) contacts.addRow([p, 'Ann']);
  const ws = wb.addWorksheet('Settings');
  for (const r of settings) ws.addRow(r);
  return Buffer.from(await wb.xlsx.writeBuffer());
}

describe('upload settings', () => {
  it('reads every setting from a Settings worksheet, header row and spelling variants included', async () => {
    const bytes = await withSettings(
      [
        ['Setting', 'Value'],
        ['Campaign Name', 'Spring renewals'],
        ['start_date_time', new Date(Date.UTC(2026, 3, 1, 9, 30))],
        ['Time Zone', 'America/Chicago'],
        ['retries', 2],
        ['Calling window', 'Mon-Fri 09:00-12:00,13:00-17:00; Sat 10:00-13:00'],
        ['Holidays', new Date(Date.UTC(2026, 3, 3)), '2026-04-06'],
        ['default-country', 'gb'],
        ['repeat upload', 'no'],
      ],
      ['4155552671', '020 7946 0018'],
    );
    const out = await validateUpload(bytes, 'spring.xlsx', { defaultCountry: 'US' });
    expect(out.report.error).toBeNull();
    expect(out.report.contacts.map((c) => c.phone)).toEqual(['+442079460018']);
    expect(out.settings).toEqual({
      campaignName: 'Spring renewals',
      start: { dateTime: '2026-04-01T09:30:00', timeZone: 'America/Chicago' },
      retries: 2,
      window: [
        {
          days: [1, 2, 3, 4, 5],
          ranges: [
            { start: 540, end: 720 },
            { start: 780, end: 1020 },
          ],
        },
        { days: [6], ranges: [{ start: 600, end: 780 }] },
      ],
      holidays: ['2026-04-03', '2026-04-06'],
      defaultCountry: 'GB',
      repeatUpload: false,
    });
    // The upload's default country wins over the deployment's: 4155552671 is not a valid UK number.
    expect(out.report.rejected).toEqual([
      {
        row: 2,
        reason: 'invalid_phone',
        input: '4155552671',
        hint: expect.stringMatching(/^read in the default country, GB,/),
      },
    ]);
  });

  it('reads numbers in the country named by a Settings sheet before the contacts, or by S3 metadata', async () => {
    const wb = new ExcelJS.Workbook();
    // GB has no default legal hours, so these uploads name a calling window.
    wb.addWorksheet('Settings').addRows([
      ['default country', 'GB'],
      ['calling window', 'Mon-Fri 09:00-17:00'],
    ]);
    const contacts = wb.addWorksheet('Contacts');
    for (const r of [['Phone Number'], ['020 7946 0018'], ['4155552671']]) contacts.addRow(r);
    const first = await validateUpload(Buffer.from(await wb.xlsx.writeBuffer()), 'gb.xlsx', { defaultCountry: 'US' });
    expect(first.report.contacts.map((c) => c.phone)).toEqual(['+442079460018']);
    expect(first.report.rejected).toEqual([
      {
        row: 3,
        reason: 'invalid_phone',
        input: '4155552671',
        hint: expect.stringMatching(/^read in the default country, GB,/),
      },
    ]);

    const plain = await xlsx([['Phone Number'], ['020 7946 0018'], ['4155552671']]);
    const viaMetadata = await validateUpload(plain, 'gb.xlsx', {
      defaultCountry: 'US',
      metadata: { 'default-country': 'GB', 'calling-window': 'Mon-Fri 09:00-17:00' },
    });
    expect(viaMetadata.report.contacts.map((c) => c.phone)).toEqual(['+442079460018']);
  });

  it('the upload time zone never decides a number that spans zones: all its candidate zones are kept', async () => {
    const bytes = await withSettings(
      [
        ['start date time', '2026-04-01 09:00'],
        ['time zone', 'America/Denver'],
      ],
      ['+12015550123', '+18005550100'],
    );
    const out = await validateUpload(bytes, 'zones.xlsx');
    expect(out.report.parts.map((p) => [p.timeZone, p.zoneSource])).toEqual([
      ['America/New_York', 'number'],
      ['America/Adak', 'several'], // toll-free: anywhere the +1 plan rings, Denver among them
    ]);
    expect(out.report.parts[1]?.zones).toContain('America/Denver');
    expect(out.report.parts[1]?.zones).toContain('Pacific/Guam');
  });

  it('reads settings from S3 object metadata too', () => {
    expect(
      readSettings(null, { 'campaign-name': 'From metadata', retries: '0', 'calling-window': 'weekdays 10:00-16:00' }),
    ).toEqual({
      campaignName: 'From metadata',
      retries: 0,
      window: [{ days: [1, 2, 3, 4, 5], ranges: [{ start: 600, end: 960 }] }],
    });
  });

  it.each([
    [[['retries', 5]], {}, /Settings sheet row 1: retries must be a whole number from 0 to 3/],
    [[['retries', 'two']], {}, /retries must be a whole number/],
    [
      [['start', '2026-04-01T09:00']],
      {},
      /Settings sheet row 1: a start date-time is a local time, so it needs a time zone too: a Settings row "time zone"/,
    ],
    [
      [],
      { 'start-date-time': '2026-04-01T09:00' },
      /x-amz-meta-start-date-time: .* time zone too: S3 metadata x-amz-meta-time-zone,/,
    ],
    [[['time zone', 'Mars/Olympus']], {}, /"Mars\/Olympus" is not an IANA time zone/],
    [
      [
        ['start', 'next tuesday'],
        ['time zone', 'UTC'],
      ],
      {},
      /"next tuesday" is not a date and time/,
    ],
    [[['calling window', 'Mon-Fri 9am-5pm']], {}, /Settings sheet row 1: "9am" is not a time of day/],
    [[['holidays', '25/12/2026']], {}, /Settings sheet row 1: "25\/12\/2026" is not a date/],
    [[['country', 'Narnia']], {}, /"Narnia" is not a two-letter country code/],
    [[['repeat upload', 'maybe']], {}, /write yes or no/],
    [[['retry', 1]], {}, /"retry" is not a setting callsheet knows \(known: campaign name, /],
    [
      [['retries', 1]],
      { retries: '2' },
      /S3 metadata x-amz-meta-retries: "retries" is also given in Settings sheet row 1/,
    ],
    [[['', 'orphan']], {}, /a value without a setting name/],
  ])('rejects the whole file for a bad setting, naming it: %j %j', async (rows, metadata, message) => {
    const out = await validateUpload(await withSettings(rows as (string | number)[][]), 'bad.xlsx', {
      defaultCountry: 'US',
      metadata,
    });
    expect(out.report.ok).toBe(false);
    expect(out.report.error?.code).toBe('invalid_settings');
    expect(out.report.error?.message).toMatch(message);
    expect(out.parts).toEqual([]);
  });

  it('accepts the same value given in both places', () => {
    expect(readSettings([['Retries', 1]], { retries: '1' })).toEqual({ retries: 1 });
  });
});

describe('start horizon: a start no further ahead than the workflow can wait', () => {
  const now = Date.parse('2026-12-01T12:00:00Z');
  it.each([
    // 05:00 in Chicago is 11:00Z: 13 days 23 hours ahead.
    ['2026-12-15T05:00', 14, null],
    ['2026-12-16T09:00', 14, /the start is 16 days ahead, .* waits at most 14 days .*START_HORIZON_DAYS/],
    ['2029-12-01T09:00', 14, /the start is 1097 days ahead/],
    ['2026-12-16T09:00', 30, null],
    // One day said as one day.
    ['2026-12-03T09:00', 1, /the start is 3 days ahead, .* waits at most 1 day for its start .* within 1 day of/],
    ['2026-11-01T09:00', 14, null],
  ])('start %s with %d days: %s', (start, days, problem) => {
    const read = () =>
      readSettings(null, { 'start-date-time': start, 'time-zone': 'America/Chicago' }, undefined, { now, days });
    if (problem) expect(read).toThrow(problem);
    else expect(read().start?.dateTime).toBe(start);
  });

  it.each([
    ['no_answer after 14d', null],
    [
      'no_answer after 2h; busy after 15d',
      /a follow-up round waits 15 days after its part ends, .* at most 14 days .*START_HORIZON_DAYS/,
    ],
  ])('a follow-up round no further off than that either: %s', (rule, problem) => {
    const read = () => readSettings([['Follow up', rule]], {}, undefined, { now, days: 14 });
    if (problem) expect(read).toThrow(problem);
    else expect(read().followUp?.rules).toHaveLength(1);
    // Without a horizon (the CLI's validate), only the policy itself is checked.
    expect(readSettings([['Follow up', rule]]).followUp?.rules.length).toBeGreaterThan(0);
  });

  it('refuses the upload with a report naming the setting, and accepts it without a horizon', async () => {
    const bytes = await withSettings([
      ['start date time', '2029-12-01T09:00'],
      ['time zone', 'America/Chicago'],
    ]);
    const far = await validateUpload(bytes, 'far.xlsx', { startHorizon: { now, days: 14 } });
    expect(far.report.error?.message).toMatch(/Settings sheet.*1097 days ahead.*START_HORIZON_DAYS/is);
    expect((await validateUpload(bytes, 'far.xlsx', { defaultCountry: 'US' })).report.error).toBeNull();
  });
});
