import {
  type CountryCode,
  getCountryCallingCode,
  isSupportedCountry,
  type PhoneNumber,
  parsePhoneNumberWithError,
} from 'libphonenumber-js/core';
import { integerText } from '../spreadsheet/cell.ts';
import { PHONE_METADATA } from './metadata.ts';
import { COSTLY_TYPES, type CostlyType, fastParse, mayBeCostly } from './phone-fast.ts';

export { COSTLY_TYPES, type CostlyType };

export type PhoneRejection = 'missing_phone' | 'invalid_phone';

export type PhoneResult =
  | {
      ok: true;
      e164: string;
      country: string | null;
      /** An extension written after the number (`ext. 12`, `x3`): the API dials E.164 only, so it is not dialled. */
      extension?: string;
    }
  | { ok: false; reason: PhoneRejection };

/** A cell as read from a sheet: text, or a number when the sheet stored one. */
export type PhoneCell = string | number | null | undefined;

export function isCountryCode(code: string): code is CountryCode {
  return /^[A-Z]{2}$/.test(code) && isSupportedCountry(code as CountryCode, PHONE_METADATA);
}

/** The library's parse with the `max` metadata (PhoneNumber.getType needs it); throws as the library does. */
const parseWith = (text: string, country: CountryCode | undefined): PhoneNumber =>
  country ? parsePhoneNumberWithError(text, country, PHONE_METADATA) : parsePhoneNumberWithError(text, PHONE_METADATA);

function parse(text: string, country: CountryCode | undefined): PhoneResult | null {
  const fast = fastParse(text, country);
  if (fast) return { ok: true, e164: fast.e164, country: fast.country };
  try {
    const phone = parseWith(text, country);
    if (!phone.isValid()) return null;
    return {
      ok: true,
      e164: phone.number,
      country: phone.country ?? null,
      ...(phone.ext ? { extension: phone.ext } : {}),
    };
  } catch {
    return null;
  }
}

/** Digits of a number cell, exactly (a phone stored as a number, even one shown as 1.41556E+10). */
function numberDigits(n: number): string | null {
  if (!Number.isFinite(n) || n < 0 || !Number.isInteger(n)) return null;
  return integerText(n);
}

/**
 * Invisible format characters (Unicode Cf: zero-width space and joiners, word joiner, byte order mark, soft hyphen,
 * bidirectional marks and isolates) are dropped, as a person reading the cell never sees them; any other kind of
 * space or line separator reads as a space.
 */
export const cleanPhoneText = (cell: string): string =>
  // ASCII holds no format character and no space but the space itself: the usual cell skips both patterns.
  (isAscii(cell) ? cell : cell.replace(/\p{Cf}+/gu, '').replace(/[\p{Zs}\p{Zl}\p{Zp}]/gu, ' ')).trim();

function isAscii(text: string): boolean {
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) > 0x7f) return false;
  return true;
}

const callingCodeLengths = new Map<string, number>();

/**
 * The length of a country's calling code, 0 for a code the metadata does not know; once per country, as each call
 * to the library builds its metadata object again (it runs for every contact kept).
 */
function callingCodeLength(country: string): number {
  let length = callingCodeLengths.get(country);
  if (length === undefined) {
    length = isCountryCode(country) ? getCountryCallingCode(country, PHONE_METADATA).length : 0;
    callingCodeLengths.set(country, length);
  }
  return length;
}

/**
 * The costly type of a valid E.164 number, or null for an ordinary one (fixed line, mobile, toll free, VoIP). These
 * cost the caller a premium or shared rate, or reach no person: premium rate, shared cost, personal numbers (UK
 * 070, often used to pass on premium charges), UAN (universal access numbers, charged at special rates in many
 * countries), pagers and voicemail access.
 */
export function costlyNumberType(e164: string, country: string | null): CostlyType | null {
  const codeLength = country ? callingCodeLength(country) : 0;
  if (codeLength > 0 && !mayBeCostly(country as string, e164.slice(1 + codeLength))) return null;
  try {
    const type = parseWith(e164, undefined).getType();
    return (COSTLY_TYPES as readonly string[]).includes(type ?? '') ? (type as CostlyType) : null;
  } catch {
    return null;
  }
}

/** Why a costly number's row was rejected, for the person reading the report. */
export const COSTLY_TEXT =
  'a premium-rate, shared-cost or other costly number (or one that reaches no person); add the setting "allow costly numbers: yes" to call it (`callsheet validate --allow-costly` checks the sheet as if it were set)';

/**
 * Normalizes one `Phone Number` cell to E.164 with the full (`max`) metadata. Numbers without a country code are
 * read in `defaultCountry`; spaces, dashes, dots, brackets and national trunk prefixes are handled by the library.
 * Invalid numbers are rejected, never guessed, with one exception: a number cell whose digits are invalid in the
 * default country but valid as an international number is read as international, because spreadsheet programs
 * drop the leading `+` when a number like +919820012345 is typed into a cell.
 */
export function normalizePhone(cell: PhoneCell, defaultCountry: CountryCode | undefined): PhoneResult {
  if (cell === null || cell === undefined) return { ok: false, reason: 'missing_phone' };
  if (typeof cell === 'number') {
    const digits = numberDigits(cell);
    if (digits === null) return { ok: false, reason: 'invalid_phone' };
    return parse(digits, defaultCountry) ?? parse(`+${digits}`, undefined) ?? { ok: false, reason: 'invalid_phone' };
  }
  const text = cleanPhoneText(cell);
  if (text === '') return { ok: false, reason: 'missing_phone' };
  if (!/\d/.test(text)) return { ok: false, reason: 'invalid_phone' };
  return parse(text, defaultCountry) ?? { ok: false, reason: 'invalid_phone' };
}
