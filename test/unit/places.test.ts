import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { PLACES } from '#commons/calling-hours/places.ts';
import { PLACES_PATH, renderPlaces } from '#scripts/places.ts';

describe('the country and subdivision table intake reads', () => {
  it('is what date-holidays says today (regenerate with npm run build:places)', () => {
    expect(readFileSync(PLACES_PATH, 'utf8')).toBe(renderPlaces());
  });

  it('knows the zones and states the rules need', () => {
    expect(PLACES.US?.zones).toEqual(expect.arrayContaining(['America/Boise', 'America/Los_Angeles']));
    expect(PLACES.US?.states.FL).toBe('Florida');
    expect(PLACES.CA?.states.QC).toMatch(/Qu[ée]bec/);
  });
});
