import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { NANP_AREA_CODES } from '#commons/calling-hours/nanp-area-codes.ts';
import { AREA_CODES_PATH, renderAreaCodes } from '#scripts/nanp-area-codes.ts';

describe('NANP area codes → states and provinces', () => {
  it('is what the geocoding data says today (regenerate with npm run build:area-codes)', () => {
    expect(readFileSync(AREA_CODES_PATH, 'utf8')).toBe(renderAreaCodes());
  });

  it.each([
    ['208', ['US-ID']],
    ['305', ['US-FL']],
    ['202', ['US-DC']],
    ['206', ['US-WA']],
    ['416', ['CA-ON']],
    ['902', ['CA-NS', 'CA-PE']],
    ['867', ['CA-NT', 'CA-NU', 'CA-YT']],
  ])('%s serves %j', (npa, scopes) => {
    expect(NANP_AREA_CODES[npa]).toEqual(scopes);
  });

  it('covers every state, DC and every province and territory, and no other country', () => {
    const scopes = new Set(Object.values(NANP_AREA_CODES).flat());
    expect([...scopes].filter((s) => s.startsWith('US-'))).toHaveLength(51);
    expect([...scopes].filter((s) => s.startsWith('CA-'))).toHaveLength(13);
    expect([...scopes].every((s) => /^(US|CA)-[A-Z]{2}$/.test(s))).toBe(true);
    // Caribbean NANP countries have codes of their own, not states: 876 is Jamaica.
    expect(NANP_AREA_CODES['876']).toBeUndefined();
    expect(Object.keys(NANP_AREA_CODES).length).toBeGreaterThan(380);
  });
});
