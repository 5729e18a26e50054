import { type CountryCode, validatePhoneNumberLength } from 'libphonenumber-js/core';
import { PHONE_METADATA } from './metadata.ts';

/** Characters of the longest cell that could still be one or two phone numbers as people write them. */
const LONGEST = 64;
/** A number Excel wrote in scientific notation when the cell was not text: `1.41556E+10`. */
const SCIENTIFIC = /^\+?(\d)(?:\.(\d+))?e\+?(\d+)$/i;
/** Two runs of digits long enough to be numbers, with a separator between them. */
const SEVERAL = /\d[\d\s().-]{5,}\d\s*(;|,|\/|\||\bor\b|\band\b)\s*[+(]?\d[\d\s().-]{5,}\d/i;

/**
 * What is wrong with a phone cell that is not a valid number, when it can be told from the cell, in words that say
 * how to fix it; null when the general advice (a country code, or the default country) is the best there is.
 */
export function invalidPhoneHint(input: string, defaultCountry?: CountryCode): string | null {
  const text = input.trim();
  // Longer than any number written with spaces and an extension: said so, and never given to the patterns below
  // (a hostile cell of thousands of digits would cost them time in proportion to its length squared).
  if (text.length > LONGEST)
    return `far too long for a phone number (${text.length.toLocaleString('en')} characters): check that this column holds the numbers`;
  const scientific = SCIENTIFIC.exec(text);
  if (scientific) {
    // 1.41556E+10 keeps 6 of 11 digits; 1.4155552001E+10 keeps them all, but is still no phone number as written.
    const kept = 1 + (scientific[2]?.length ?? 0);
    return kept <= Number(scientific[3])
      ? 'Excel stored this number in scientific notation and dropped its last digits: format the phone column as Text, type the numbers again (or export them from their source as text) and upload again'
      : 'Excel wrote this number in scientific notation: format the phone column as Text and export the sheet again';
  }
  if (!/\d/.test(text)) return null;
  if (SEVERAL.test(text)) return 'the cell holds more than one number: keep one number per row';
  if (!text.startsWith('+') && !defaultCountry) return null;
  switch (
    defaultCountry
      ? validatePhoneNumberLength(text, defaultCountry, PHONE_METADATA)
      : validatePhoneNumberLength(text, PHONE_METADATA)
  ) {
    case 'TOO_SHORT':
      return 'too few digits for a phone number of its country: check for a missing digit';
    case 'TOO_LONG':
      return 'too many digits for a phone number of its country: check for an extra digit, or two numbers run together';
    case 'INVALID_LENGTH':
      return 'no phone number of its country has this many digits: check the number';
    case 'INVALID_COUNTRY':
      return text.startsWith('+')
        ? 'no country has the calling code this number starts with: check the digits after the +'
        : null;
    case 'NOT_A_NUMBER':
      return null;
    default:
      // As many digits as its country's numbers have, yet none of them is this one (an area code or exchange not
      // in use): the general advice, to give a country code, would be wrong for a number that has one.
      return text.startsWith('+')
        ? 'no phone line of its country has this number, though it has the right number of digits: check the area code and the digits after it'
        : `read in the default country, ${defaultCountry}, it is no number in use there: check the digits, or write it with its own country code, as in +44 20 7946 0000`;
  }
}
