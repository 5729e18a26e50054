import { describe, expect, it } from 'vitest';
import { describeWindow } from '../../functions/commons/calling-window.ts';
import {
  DEFAULT_LEGAL_HOURS,
  legalHoursOf,
  parseLegalHours,
  readLegalHours,
} from '../../functions/commons/legal-hours.ts';

describe('legal calling hours', () => {
  it.each([
    ['US', 'Sun,Mon,Tue,Wed,Thu,Fri,Sat 08:00-21:00', /47 CFR 64\.1200\(c\)\(1\)/],
    ['CA', 'Mon,Tue,Wed,Thu,Fri 09:00-21:30; Sun,Sat 10:00-18:00', /CRTC Unsolicited Telecommunications Rules/],
    ['IN', 'Sun,Mon,Tue,Wed,Thu,Fri,Sat 09:00-21:00', /TRAI .*TCCCPR.* 2018/],
    ['FR', 'Mon,Tue,Wed,Thu,Fri 10:00-13:00,14:00-20:00', /décret n° 2022-1313/],
    ['AU', 'Mon,Tue,Wed,Thu,Fri 09:00-20:00; Sat 09:00-17:00', /Industry Standard 2017/],
    ['ES', 'Mon,Tue,Wed,Thu,Fri 09:00-21:00', /Ley 3\/2014/],
  ])('%s: %s, from %s', (country, hours, source) => {
    const entry = legalHoursOf(DEFAULT_LEGAL_HOURS, country);
    expect(entry && describeWindow({ rules: entry.rules, holidays: [] })).toBe(hours);
    expect(entry?.source).toMatch(source);
  });

  it('has an entry only where it names a source, and none for countries it cannot cite', () => {
    for (const entry of Object.values(DEFAULT_LEGAL_HOURS)) expect(entry.source.length).toBeGreaterThan(20);
    expect(legalHoursOf(DEFAULT_LEGAL_HOURS, 'GB')).toBeNull();
    expect(legalHoursOf(DEFAULT_LEGAL_HOURS, null)).toBeNull();
  });

  it('reads the LEGAL_HOURS override over the built-in table', () => {
    const table = parseLegalHours('{"gb": "Mon-Fri 09:00-20:00", "US": "daily 09:00-20:00"}');
    expect(table.GB).toMatchObject({
      country: 'GB',
      spec: 'Mon-Fri 09:00-20:00',
      source: 'deployment setting LEGAL_HOURS',
    });
    expect(table.US?.spec).toBe('daily 09:00-20:00');
    expect(table.IN).toBe(DEFAULT_LEGAL_HOURS.IN);
  });

  it.each([
    ['not json', /not JSON/],
    ['["GB"]', /not a JSON object/],
    ['{"Britain": "Mon-Fri 09:00-20:00"}', /"Britain" is not a two-letter country code/],
    ['{"GB": 9}', /the hours for GB must be a text/],
    ['{"GB": "Mon-Fri 9am-5pm"}', /the hours for GB: "9am" is not a time of day/],
  ])('refuses %s with a reason', (value, problem) => {
    const out = readLegalHours(value);
    expect('problem' in out && out.problem).toMatch(problem);
  });
});
