import { CA_PROVINCE_RULES } from './ca-provinces.ts';
import { NANP_AREA_CODES } from './nanp-area-codes.ts';
import { US_STATE_RULES } from './us-states.ts';

const NONE: readonly string[] = Object.freeze([]);
const EVERY: Record<string, readonly string[]> = {
  US: Object.freeze(Object.keys(US_STATE_RULES).sort()),
  CA: Object.freeze(Object.keys(CA_PROVINCE_RULES).sort()),
};

/**
 * The states or provinces (`US-FL`, `CA-NS`) whose rules may apply to a number: for the US and Canada, those its
 * area code serves (NANPA's assignments). An area code the table does not know (a new overlay, a toll-free or
 * non-geographic code) may ring anywhere in the country, so every subdivision's rule applies: the stricter reading.
 * Elsewhere none: the country's rule is the only one. The arrays are shared; callers never change them.
 */
export function regionsOfNumber(e164: string, country: string | null): readonly string[] {
  if (country !== 'US' && country !== 'CA') return NONE;
  return (country === 'US' ? US_SERVED : CA_SERVED).get(e164.slice(2, 5)) ?? (EVERY[country] as readonly string[]);
}

/**
 * Per country, the area codes whose every subdivision is in it, with those subdivisions: asked once per number of an
 * upload, a map answers without checking the subdivisions' country each time (an area code of mixed countries is
 * in neither map, so every subdivision of the number's country applies).
 */
const servedIn = (country: string): ReadonlyMap<string, readonly string[]> =>
  new Map(Object.entries(NANP_AREA_CODES).filter(([, served]) => served.every((r) => r.startsWith(`${country}-`))));
const US_SERVED = servedIn('US');
const CA_SERVED = servedIn('CA');

/** Whether the number's area code is in the table (false: every subdivision's rule applies). */
export const knowsAreaCodeOf = (e164: string): boolean => e164.startsWith('+1') && e164.slice(2, 5) in NANP_AREA_CODES;
