import { Metadata } from 'libphonenumber-js/core';
import { PHONE_METADATA } from './metadata.ts';

/**
 * A fast path for the common shapes of phone numbers (`+1 415 555 2671`, `(415) 555-2671` with a default
 * country), answering exactly what libphonenumber-js would, or `undefined` when it cannot be sure and the library
 * must decide. It exists because the library compiles a new RegExp for every pattern test (about 1 s per 100,000
 * numbers); here each pattern is compiled once. It uses the same `max` metadata through the library's public
 * Metadata class, and test/intake/phone-fast.test.ts checks it against the library on a large sample.
 */

/**
 * The types a valid number has one of, tried in this order until one matches. Compiling a type's pattern is most of
 * the cost of the first numbers of a country, so mobiles come first: most numbers called are mobiles.
 */
const TYPES = [
  'MOBILE',
  'FIXED_LINE',
  'TOLL_FREE',
  'PREMIUM_RATE',
  'PERSONAL_NUMBER',
  'VOICEMAIL',
  'UAN',
  'PAGER',
  'VOIP',
  'SHARED_COST',
] as const;

/** Number types that cost the caller more than an ordinary call, or reach no person (see phone.ts). */
export const COSTLY_TYPES = ['PREMIUM_RATE', 'SHARED_COST', 'PERSONAL_NUMBER', 'UAN', 'PAGER', 'VOICEMAIL'] as const;
export type CostlyType = (typeof COSTLY_TYPES)[number];

/** A number type of a country: its pattern, compiled when first tried, and the lengths it allows. */
interface TypePattern {
  source: string;
  compiled?: RegExp;
  lengths: number[] | undefined;
}

interface Plan {
  country: string;
  /** The costly types' patterns: a number matching none of them is not costly, without asking the library. */
  costly: TypePattern[];
  callingCode: string;
  general: RegExp;
  hasTypes: boolean;
  types: TypePattern[];
  /** Where a national (trunk) prefix could be stripped; the fast path steps aside for such numbers. */
  prefixForParsing: RegExp | null;
  idd: RegExp | null;
  leadingDigits: string | undefined;
  lengths: number[] | undefined;
}

// The typings omit methods the class has had for years; these are the ones used here.
const metadata = new Metadata(PHONE_METADATA) as Metadata & {
  getCountryCodesForCallingCode(code: string): string[] | undefined;
  hasCallingCode(code: string): boolean;
};
const plans = new Map<string, Plan>();
const whole = (p: string) => new RegExp(`^(?:${p})$`);
const typePattern = (t: { pattern(): string; possibleLengths(): number[] | undefined }): TypePattern => ({
  source: t.pattern(),
  lengths: t.possibleLengths(),
});

function matches(t: TypePattern, national: string): boolean {
  if (t.lengths && !t.lengths.includes(national.length)) return false;
  t.compiled ??= whole(t.source);
  return t.compiled.test(national);
}

function plan(country: string): Plan {
  let p = plans.get(country);
  if (!p) {
    metadata.selectNumberingPlan(country as never);
    const np = metadata.numberingPlan as unknown as {
      callingCode(): string;
      nationalNumberPattern(): string;
      nationalPrefixForParsing(): string | undefined;
      IDDPrefix(): string | undefined;
      leadingDigits(): string | undefined;
      possibleLengths(): number[] | undefined;
      type(t: string): { pattern(): string; possibleLengths(): number[] | undefined } | undefined;
    };
    const types = TYPES.map((t) => np.type(t)).filter((t) => t !== undefined && t.pattern() !== undefined);
    const costly = COSTLY_TYPES.map((t) => np.type(t)).filter((t) => t !== undefined && !!t.pattern());
    const forParsing = np.nationalPrefixForParsing();
    const idd = np.IDDPrefix();
    p = {
      country,
      costly: costly.map((t) => typePattern(t as NonNullable<typeof t>)),
      callingCode: np.callingCode(),
      general: whole(np.nationalNumberPattern()),
      hasTypes: (metadata as unknown as { hasTypes(): boolean }).hasTypes(),
      types: types.map((t) => typePattern(t as NonNullable<typeof t>)),
      prefixForParsing: forParsing ? new RegExp(`^(?:${forParsing})`) : null,
      idd: idd ? new RegExp(`^(?:${idd})`) : null,
      leadingDigits: np.leadingDigits(),
      lengths: np.possibleLengths(),
    };
    plans.set(country, p);
  }
  return p;
}

/** libphonenumber's getNumberType(...) !== undefined, with compiled patterns. */
function hasType(p: Plan, national: string): boolean {
  if (!p.general.test(national)) return false;
  return p.types.some((t) => matches(t, national));
}

function isValidIn(p: Plan, national: string): boolean {
  return p.hasTypes ? hasType(p, national) : p.general.test(national);
}

/**
 * getCountryByCallingCode: the one country, or the first whose leading digits or number types fit. `typed` says
 * the number was already found to have a type there, so its validity need not be checked again.
 */
function countryFor(callingCode: string, national: string): { country: string; typed: boolean } | undefined {
  const countries = metadata.getCountryCodesForCallingCode(callingCode);
  if (!countries || countries.length === 0) return undefined;
  if (countries.length === 1) return { country: countries[0] as string, typed: false };
  for (const c of countries) {
    const p = plan(c);
    if (p.leadingDigits) {
      if (national.search(p.leadingDigits) === 0) return { country: c, typed: false };
    } else if (hasType(p, national)) return { country: c, typed: true };
  }
  return undefined;
}

const FORMATTED = /^\+?[\d\s().\-/]+$/;

type LengthCheck = 'IS_POSSIBLE' | 'TOO_SHORT' | 'TOO_LONG' | 'INVALID_LENGTH';

/** checkNumberLength for the plan's general lengths. */
function lengthCheck(national: string, lengths: number[] | undefined): LengthCheck {
  if (!lengths || lengths.length === 0) return 'IS_POSSIBLE';
  const n = national.length;
  const min = lengths[0] as number;
  if (min === n) return 'IS_POSSIBLE';
  if (min > n) return 'TOO_SHORT';
  if ((lengths[lengths.length - 1] as number) < n) return 'TOO_LONG';
  return lengths.indexOf(n, 1) >= 0 ? 'IS_POSSIBLE' : 'INVALID_LENGTH';
}

/**
 * extractNationalNumber: strips a national (trunk) prefix when the library would. `null` when the prefix rule
 * captures groups (carrier codes, transform rules): those numbers are the library's to read.
 */
function extractNational(p: Plan, number: string, country: string | undefined): string | null {
  const m = p.prefixForParsing?.exec(number);
  if (!m) return number;
  if (m.length > 1 && m[m.length - 1]) return null;
  const stripped = number.slice(m[0].length);
  if (stripped === number) return number;
  if (p.general.test(number) && !p.general.test(stripped)) return number;
  if (p.lengths) {
    const c = country ?? countryFor(p.callingCode, stripped)?.country;
    const check = lengthCheck(stripped, c ? plan(c).lengths : p.lengths);
    if (check === 'TOO_SHORT' || check === 'INVALID_LENGTH') return number;
  }
  return stripped;
}

function mainPlan(callingCode: string): Plan | undefined {
  const main = metadata.getCountryCodesForCallingCode(callingCode)?.[0];
  return main ? plan(main) : undefined;
}

/** The calling code and national number the library would extract, or undefined to let it decide. */
function split(digits: string, plus: boolean, defaultCountry: string | undefined) {
  if (plus) {
    for (let i = 1; i <= 3 && i < digits.length; i++) {
      const cc = digits.slice(0, i);
      if (!metadata.hasCallingCode(cc)) continue;
      const p = mainPlan(cc);
      const national = p ? extractNational(p, digits.slice(i), undefined) : null;
      return national === null ? undefined : { callingCode: cc, national, country: undefined };
    }
    return undefined;
  }
  if (!defaultCountry) return undefined;
  const p = plan(defaultCountry);
  if (p.idd?.test(digits)) return undefined; // an international prefix (00, 011): the library decides
  const cc = p.callingCode;
  if (digits.startsWith(cc)) {
    // The country code typed without a plus (14155552671 in the US): extractCountryCallingCodeFrom...WithoutPlusSign.
    const shorter = digits.slice(cc.length);
    const withoutCode = extractNational(p, shorter, undefined);
    const asIs = extractNational(p, digits, undefined);
    if (withoutCode === null || asIs === null) return undefined;
    if ((!p.general.test(asIs) && p.general.test(withoutCode)) || lengthCheck(asIs, p.lengths) === 'TOO_LONG') {
      const main = mainPlan(cc);
      const national = main ? extractNational(main, shorter, undefined) : null;
      return national === null ? undefined : { callingCode: cc, national, country: undefined };
    }
  }
  const national = extractNational(p, digits, defaultCountry);
  return national === null ? undefined : { callingCode: cc, national, country: defaultCountry };
}

export function fastParse(
  text: string,
  defaultCountry: string | undefined,
): { e164: string; country: string } | undefined {
  if (!FORMATTED.test(text)) return undefined;
  const digits = text.replace(/\D/g, '');
  if (digits.length < 4 || digits.length > 17) return undefined;
  const parts = split(digits, text.startsWith('+'), defaultCountry);
  if (!parts || parts.national.length < 2) return undefined;
  const found = countryFor(parts.callingCode, parts.national);
  const country = found?.country ?? parts.country;
  if (!country) return undefined;
  // A number that has a type in its country is valid there (the type check includes the general pattern).
  if (!found?.typed && !isValidIn(plan(country), parts.national)) return undefined;
  return { e164: `+${parts.callingCode}${parts.national}`, country };
}

/** Whether a valid number may be of a costly type in its country (the library then says which type it is). */
export function mayBeCostly(country: string, national: string): boolean {
  return plan(country).costly.some((t) => matches(t, national));
}
