import { describe, expect, it } from 'vitest';
import { regionsOfNumber } from '#commons/calling-hours/regions.ts';
import { StatedPlaces, statedRegion, statedRegions, statedZones, zonesOfCountry } from '#intake/stated-place.ts';
import { type ZoneChoice, zonesForNumber, zonesOf } from '#intake/time-zones.ts';

const NOW = Date.parse('2026-03-02T12:00:00Z');
const choiceOf = (phone: string): ZoneChoice => zonesForNumber(phone, NOW) as ZoneChoice;
const decide = (phone: string, country: string | null, stated: string) =>
  statedZones(choiceOf(phone), zonesOf(phone), country, stated, NOW);

describe("a row's Time Zone cell against its number's zones", () => {
  it.each([
    // One of the number's zones of different clocks: the candidates narrow to it.
    ['+12085550123', 'US', 'America/Los_Angeles', { zones: ['America/Los_Angeles'], source: 'sheet' }],
    ['+12085550123', 'US', 'America/Boise', { zones: ['America/Boise'], source: 'sheet' }],
    ['+19075551234', 'US', 'America/Adak', { zones: ['America/Adak'], source: 'sheet' }],
    // Any case, and a link, name the zone.
    ['+12085550123', 'US', 'america/los_angeles', { zones: ['America/Los_Angeles'], source: 'sheet' }],
    ['+12085550123', 'US', 'US/Pacific', { zones: ['America/Los_Angeles'], source: 'sheet' }],
    // A zone keeping a candidate's clock is that candidate: Denver is Boise time.
    ['+12085550123', 'US', 'America/Denver', { zones: ['America/Boise'], source: 'sheet' }],
    // Toll-free: every +1 clock; Detroit keeps New York's.
    ['+18005551234', 'US', 'America/Detroit', { zones: ['America/New_York'], source: 'sheet' }],
    // A number of one clock that the cell agrees with is unchanged (and keeps its own wording).
    ['+14155552671', 'US', 'America/Los_Angeles', { zones: ['America/Los_Angeles'], source: 'number' }],
    ['+447911123456', 'GB', 'Europe/Guernsey', { zones: ['Europe/London'], source: 'country' }],
    ['+919820012345', 'IN', 'Asia/Calcutta', { zones: ['Asia/Kolkata'], source: 'number' }],
    // Of the country but not where the number's data places it: added, the stricter reading.
    [
      '+12085550123',
      'US',
      'America/New_York',
      { zones: ['America/Boise', 'America/Los_Angeles', 'America/New_York'], source: 'sheet-added' },
    ],
    [
      '+14155552671',
      'US',
      'America/Chicago',
      { zones: ['America/Chicago', 'America/Los_Angeles'], source: 'sheet-added' },
    ],
    [
      '+61265641000',
      'AU',
      'Australia/Perth',
      { zones: ['Australia/Perth', 'Australia/Sydney'], source: 'sheet-added' },
    ],
    // Not a zone the number's country uses.
    ['+12085550123', 'US', 'Europe/Paris', 'zone_contradicts_number'],
    ['+14155552671', 'US', 'America/Vancouver', 'zone_contradicts_number'],
    ['+14155552671', 'US', 'UTC', 'zone_contradicts_number'],
    ['+18005551234', 'CA', 'America/Detroit', 'zone_contradicts_number'],
    ['+33612345678', 'FR', 'America/New_York', 'zone_contradicts_number'],
    // Not a zone at all.
    ['+12085550123', 'US', 'Mars/Olympus', 'unknown_time_zone'],
    ['+12085550123', 'US', 'Pacific Time', 'unknown_time_zone'],
    ['+12085550123', 'US', 'PST8PDT-ish', 'unknown_time_zone'],
  ] as const)('%s (%s) with %j → %j', (phone, country, stated, expected) => {
    expect(decide(phone, country, stated)).toEqual(expected);
  });

  it("judges a country's zones by its tz database zones, not by the calling code it shares", () => {
    // +1 is shared: a US number's country has no Canadian zone, and a Canadian's no US one.
    expect(zonesOfCountry('US').has('America/Chicago')).toBe(true);
    expect(zonesOfCountry('US').has('America/Toronto')).toBe(false);
    expect(zonesOfCountry('CA').has('America/Toronto')).toBe(true);
    expect(zonesOfCountry('CA').has('America/Chicago')).toBe(false);
  });
});

describe("a row's State/Region cell", () => {
  it.each([
    ['FL', 'US', 'US-FL'],
    ['us-fl', 'US', 'US-FL'],
    ['Florida', 'US', 'US-FL'],
    ['  new   york ', 'US', 'US-NY'],
    // A bare code is read as one of the number's country first: CA is California for a US number.
    ['CA', 'US', 'US-CA'],
    ['ON', 'CA', 'CA-ON'],
    ['CA-ON', 'CA', 'CA-ON'],
    ['Québec', 'CA', 'CA-QC'],
    ['quebec', 'CA', 'CA-QC'],
    ['Scotland', 'GB', 'GB-SCT'],
    // Another country's.
    ['ON', 'US', 'region_contradicts_number'],
    ['Ontario', 'US', 'region_contradicts_number'],
    ['CA-ON', 'US', 'region_contradicts_number'],
    ['US-FL', 'CA', 'region_contradicts_number'],
    ['Bayern', 'US', 'region_contradicts_number'],
    // Nobody's.
    ['XX', 'US', 'unknown_region'],
    ['US-XX', 'US', 'unknown_region'],
    ['Narnia', 'GB', 'unknown_region'],
  ] as const)('%j for a %s number → %s', (stated, country, expected) => {
    expect(statedRegion(stated, country)).toBe(expected);
  });

  it.each([
    // 305 is Florida's: FL narrows nothing, GA is added (both apply), ON contradicts.
    ['+13055550123', 'US', 'FL', ['US-FL']],
    ['+13055550123', 'US', 'GA', ['US-FL', 'US-GA']],
    ['+13055550123', 'US', 'Georgia', ['US-FL', 'US-GA']],
    // An area code the table does not know rings anywhere in the US, so every state applies: one stated narrows it.
    ['+18005551234', 'US', 'FL', ['US-FL']],
    ['+18005551234', 'US', 'TX', ['US-TX']],
    // Outside the US and Canada the number gives none: the stated one applies.
    ['+447911123456', 'GB', 'Wales', ['GB-WLS']],
    ['+13055550123', 'US', 'ON', 'region_contradicts_number'],
    ['+13055550123', 'US', 'Atlantis', 'unknown_region'],
  ] as const)('%s (%s) with %j → %j', (phone, country, stated, expected) => {
    expect(statedRegions(regionsOfNumber(phone, country), country, stated)).toEqual(expected);
  });

  it('keeps the area code array itself when the stated state is its only one', () => {
    const own = regionsOfNumber('+13055550123', 'US');
    expect(statedRegions(own, 'US', 'US-FL')).toBe(own);
  });
});

describe('answers for one intake', () => {
  it('shares one zone choice and one regions array among rows that come to the same answer', () => {
    const places = new StatedPlaces(NOW);
    const boise = choiceOf('+12085550123');
    const a = places.zones(boise, '+12085550123', 'US', 'America/Los_Angeles');
    const b = places.zones(boise, '+12085550199', 'US', 'US/Pacific');
    expect(a).toEqual({ zones: ['America/Los_Angeles'], source: 'sheet' });
    expect(b).toBe(a);
    // Another prefix of the same area code that comes to the same answer shares it too.
    const alaska = choiceOf('+19075551234');
    const adak = places.zones(alaska, '+19075551234', 'US', 'America/Adak');
    expect(places.zones(alaska, '+19075551299', 'US', 'america/adak')).toBe(adak);
    // An unchanged answer is the number's own choice.
    const sf = choiceOf('+14155552671');
    expect(places.zones(sf, '+14155552671', 'US', 'America/Los_Angeles')).toBe(sf);

    const own = regionsOfNumber('+13055550123', 'US');
    const ga = places.regions(own, 'US', 'GA');
    expect(ga).toEqual(['US-FL', 'US-GA']);
    expect(places.regions(own, 'US', 'Georgia')).toBe(ga);
    expect(places.regions(own, 'US', 'ON')).toBe('region_contradicts_number');
  });
});
