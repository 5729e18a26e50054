import examples from 'libphonenumber-js/examples.mobile.json';
import { parsePhoneNumberWithError } from 'libphonenumber-js/max';
import { describe, expect, it } from 'vitest';
import { fastParse } from '#commons/phone/phone-fast.ts';

/** What libphonenumber-js itself answers: the reference the fast path must match exactly. */
function library(text: string, country: string | undefined) {
  try {
    const p = parsePhoneNumberWithError(text, country as never);
    return p.isValid() ? { e164: p.number as string, country: p.country as string | undefined } : undefined;
  } catch {
    return undefined;
  }
}

/** A seeded generator, so a failure names an input that can be replayed. */
function rng(seed: number) {
  let s = seed;
  return () => {
    s = (s * 1_103_515_245 + 12_345) % 2_147_483_648;
    return s / 2_147_483_648;
  };
}

function variants(national: string, callingCode: string, random: () => number): string[] {
  const digit = () => String(Math.floor(random() * 10));
  const mutated = national.slice(0, -3) + digit() + digit() + digit();
  const shorter = national.slice(0, -1);
  const longer = national + digit();
  const spaced = (n: string) => n.replace(/(\d{3})(?=\d)/g, '$1 ');
  return [
    `+${callingCode}${national}`,
    `+${callingCode} ${spaced(mutated)}`,
    `+${callingCode} (${mutated.slice(0, 3)}) ${mutated.slice(3)}`,
    `+${callingCode}-${shorter}`,
    `+${callingCode}.${longer}`,
    `+${callingCode}0${national}`,
    national,
    mutated,
    `0${national}`,
    `1${national}`,
    `${callingCode}${national}`,
    `${callingCode}0${national}`,
    `00${callingCode}${national}`,
    `(${national.slice(0, 3)}) ${national.slice(3, 6)}-${national.slice(6)}`,
    shorter,
    longer,
  ];
}

describe('phone fast path', () => {
  const countries = Object.keys(examples);
  const callingCodeOf = (c: string) =>
    parsePhoneNumberWithError((examples as Record<string, string>)[c] as string, c as never).countryCallingCode;

  it('answers exactly what libphonenumber-js answers, or steps aside, for every country and many shapes', () => {
    const random = rng(7);
    let answered = 0;
    let total = 0;
    const mismatches: string[] = [];
    for (const country of countries) {
      const national = (examples as Record<string, string>)[country] as string;
      const cc = callingCodeOf(country);
      for (const text of variants(national, cc, random)) {
        for (const defaultCountry of [country, 'US', 'GB', 'IN', undefined]) {
          total++;
          const fast = fastParse(text, defaultCountry);
          if (!fast) continue;
          answered++;
          const lib = library(text, defaultCountry);
          if (JSON.stringify(fast) !== JSON.stringify(lib))
            mismatches.push(
              `${text} (${defaultCountry}): fast ${JSON.stringify(fast)}, library ${JSON.stringify(lib)}`,
            );
        }
      }
    }
    expect(mismatches.slice(0, 10)).toEqual([]);
    // The fast path must carry most of the load to be worth having.
    expect(answered / total).toBeGreaterThan(0.2);
  });

  it('answers the shapes a US contact list has, and random digits, as the library does', () => {
    const random = rng(11);
    const mismatches: string[] = [];
    let answered = 0;
    for (let i = 0; i < 20_000; i++) {
      const ten = String(2_000_000_000 + Math.floor(random() * 7_999_999_999));
      const shapes = [
        `+1 ${ten}`,
        `(${ten.slice(0, 3)}) ${ten.slice(3, 6)}-${ten.slice(6)}`,
        ten,
        `+44 7${ten.slice(1)}`,
        `+91 9${ten.slice(1)}`,
      ];
      for (const text of shapes) {
        const fast = fastParse(text, 'US');
        if (!fast) continue;
        answered++;
        const lib = library(text, 'US');
        if (JSON.stringify(fast) !== JSON.stringify(lib))
          mismatches.push(`${text}: ${JSON.stringify(fast)} vs ${JSON.stringify(lib)}`);
      }
    }
    expect(mismatches.slice(0, 10)).toEqual([]);
    expect(answered).toBeGreaterThan(40_000);
  });
});
