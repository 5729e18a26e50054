import { describe, expect, it } from 'vitest';
import { describeWindow } from '#commons/calling-window.ts';
import {
  citation,
  DEFAULT_LEGAL_HOURS,
  hoursOfRule,
  legalHoursOf,
  legalWindowOf,
  parseLegalHours,
  readLegalHours,
  rulesThatApply,
} from '#commons/legal-hours.ts';

describe('legal calling hours', () => {
  it.each([
    ['US', 'Sun,Mon,Tue,Wed,Thu,Fri,Sat 08:00-21:00', /47 CFR § 64\.1200\(c\)\(1\)/],
    ['CA', 'Mon,Tue,Wed,Thu,Fri 09:00-21:30; Sun,Sat 10:00-18:00', /CRTC Unsolicited Telecommunications Rules/],
    ['FR', 'Mon,Tue,Wed,Thu,Fri 10:00-13:00,14:00-20:00', /décret n° 2022-1313/],
    ['AU', 'Mon,Tue,Wed,Thu,Fri 09:00-20:00; Sat 09:00-17:00', /Industry Standard 2017/],
    ['ES', 'Mon,Tue,Wed,Thu,Fri 09:00-21:00', /Ley 3\/2014/],
  ])('%s: %s, from %s', (country, hours, source) => {
    const entry = legalHoursOf(DEFAULT_LEGAL_HOURS, country);
    expect(entry && describeWindow({ rules: hoursOfRule(entry) ?? [], holidays: [] })).toBe(hours);
    expect(entry && citation(entry)).toMatch(source);
  });

  it('cites a law and a section for every entry, and has none for a country it cannot place', () => {
    for (const entry of Object.values(DEFAULT_LEGAL_HOURS)) {
      expect(entry.source.law.length).toBeGreaterThan(5);
      expect(entry.source.section.length).toBeGreaterThan(0);
    }
    expect(legalHoursOf(DEFAULT_LEGAL_HOURS, null)).toBeNull();
    expect(legalHoursOf(DEFAULT_LEGAL_HOURS, 'ZZ')).toBeNull();
  });

  it('applies the country first, then each state the number may belong to, and intersects their hours', () => {
    const rules = rulesThatApply(DEFAULT_LEGAL_HOURS, 'US', ['US-FL']);
    expect(rules?.map((r) => r.scope)).toEqual(['US', 'US-FL']);
    expect(describeWindow({ rules: legalWindowOf(rules ?? []) ?? [], holidays: [] })).toBe(
      'Mon,Tue,Wed,Thu,Fri,Sat,Sun 08:00-20:00',
    );
    expect(rulesThatApply(DEFAULT_LEGAL_HOURS, 'ZZ', ['US-FL'])).toBeNull();
  });

  it('reads the LEGAL_HOURS override over the built-in table, keeping a holiday ban', () => {
    const table = parseLegalHours('{"gb": "Mon-Fri 09:00-20:00", "US": "daily 09:00-20:00", "fr": "Mon 10:00-12:00"}');
    expect(table.GB).toMatchObject({
      scope: 'GB',
      hours: 'Mon-Fri 09:00-20:00',
      basis: 'setting',
      source: { law: 'deployment setting LEGAL_HOURS' },
    });
    expect(table.US?.hours).toBe('daily 09:00-20:00');
    expect(table.FR).toMatchObject({ hours: 'Mon 10:00-12:00', noHolidays: true });
    expect(table.ES).toBe(DEFAULT_LEGAL_HOURS.ES);
  });

  it('switches off a conservative default but never hours that come from law', () => {
    const table = parseLegalHours('{"ZZ": "off"}');
    expect(table.ZZ).toBeUndefined();
    const out = readLegalHours('{"US": "off"}');
    expect('problem' in out && out.problem).toMatch(/the hours for US come from law .*47 CFR.* cannot be switched off/);
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
