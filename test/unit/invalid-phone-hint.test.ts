import { describe, expect, it } from 'vitest';
import { invalidPhoneHint } from '#commons/phone/invalid-hint.ts';

describe('invalidPhoneHint: what is wrong with a phone cell, when the cell shows it', () => {
  it.each([
    ['+1415555', undefined, /^too few digits/],
    ['555-2671', 'US', /^too few digits/],
    ['+1 415 555 20011', undefined, /^too many digits/],
    ['+999 123456', undefined, /^no country has the calling code/],
    ['+14155552003;+14155552005', undefined, /^the cell holds more than one number/],
    ['4155552001 or 4155552002', 'US', /^the cell holds more than one number/],
    ['(415) 555-2001, (415) 555-2002', 'US', /^the cell holds more than one number/],
    ['1.41556E+10', 'US', /^Excel stored this number in scientific notation/],
    ['4.15555E+09', undefined, /^Excel stored this number in scientific notation and dropped its last digits/],
    // Every digit still there: no claim that any was lost.
    ['1.4155552001E+10', 'US', /^Excel wrote this number in scientific notation: format the phone column as Text/],
    [`+1${'4'.repeat(30_000)};+1${'5'.repeat(30_000)}`, undefined, /^far too long .*\(60,005 characters\)/],
    // Its length fits its country, yet no line there has it: a country code is there already, or the default one.
    ['+14150000000', undefined, /^no phone line of its country has this number, .*check the area code/],
    ['+1 212 111 2222', 'US', /^no phone line of its country has this number/],
    ['98200 12345', 'US', /^read in the default country, US, it is no number in use there: .*own country code/],
  ] as const)('%s (default country %s)', (input, country, hint) => {
    expect(invalidPhoneHint(input, country)).toMatch(hint);
  });

  it.each([
    // Without a country code or a default country, the general advice (give one) is the right one.
    ['415-555-2001', undefined],
    ['hello', 'US'],
    ['call me maybe', undefined],
    ['', 'US'],
  ] as const)('has nothing better than the general advice for %s', (input, country) => {
    expect(invalidPhoneHint(input, country)).toBeNull();
  });
});
