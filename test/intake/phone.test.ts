import { describe, expect, it } from 'vitest';
import { normalizePhone } from '#commons/phone/phone.ts';

describe('phone normalization (libphonenumber max metadata)', () => {
  it('reads national formats in the default country, with spaces, dashes, dots, brackets and trunk prefixes', () => {
    expect(normalizePhone('(415) 555-2671', 'US')).toEqual({ ok: true, e164: '+14155552671', country: 'US' });
    expect(normalizePhone('415.555.2671', 'US')).toMatchObject({ e164: '+14155552671' });
    expect(normalizePhone('1-415-555-2671', 'US')).toMatchObject({ e164: '+14155552671' });
    expect(normalizePhone('098200 12345', 'IN')).toMatchObject({ e164: '+919820012345' });
    expect(normalizePhone('020 7946 0958', 'GB')).toMatchObject({ e164: '+442079460958' });
    expect(normalizePhone('\u00a0+44 20 7946 0958 ', undefined)).toMatchObject({ e164: '+442079460958' });
    expect(normalizePhone('0044 20 7946 0958', 'GB')).toMatchObject({ e164: '+442079460958' });
  });

  it('reads number cells digit-exact, including ones a spreadsheet shows in scientific notation', () => {
    expect(normalizePhone(4155552671, 'US')).toMatchObject({ e164: '+14155552671' });
    expect(normalizePhone(9.19820012345e11, 'US')).toMatchObject({ e164: '+919820012345' }); // the + was eaten
    expect(normalizePhone(61412345678, 'US')).toMatchObject({ e164: '+61412345678' });
    expect(normalizePhone(4155552671.5, 'US')).toEqual({ ok: false, reason: 'invalid_phone' });
  });

  it('rejects rather than guesses', () => {
    expect(normalizePhone('', 'US')).toEqual({ ok: false, reason: 'missing_phone' });
    expect(normalizePhone('   ', 'US')).toEqual({ ok: false, reason: 'missing_phone' });
    expect(normalizePhone(null, 'US')).toEqual({ ok: false, reason: 'missing_phone' });
    expect(normalizePhone('n/a', 'US')).toEqual({ ok: false, reason: 'invalid_phone' });
    expect(normalizePhone('12345', 'US')).toEqual({ ok: false, reason: 'invalid_phone' });
    expect(normalizePhone('+1 555 555 0100', 'US')).toEqual({ ok: false, reason: 'invalid_phone' }); // no such area code
    expect(normalizePhone('415 555 2671', undefined)).toEqual({ ok: false, reason: 'invalid_phone' }); // no country to read it in
    // A text cell keeps its meaning: national digits are not re-read as international.
    expect(normalizePhone('919820012345', 'US')).toEqual({ ok: false, reason: 'invalid_phone' });
  });
});
