import { describe, expect, it } from 'vitest';
import { optOutInTranscript, optOutOfContact, optOutPhraseIn } from '#commons/opt-out.ts';
import { OPT_OUT_PHRASES } from '#commons/opt-out-phrases.ts';

describe('opt-out phrases', () => {
  it.each([
    ['Please do not call me again.', 'do not call me'],
    ["Don't call me, ever.", "don't call me"],
    ['Don’t call me!', "don't call me"],
    ['STOP CALLING ME', 'stop calling me'],
    ['Can you take me off your list please', 'take me off your list'],
    ['remove my number, thanks', 'remove my number'],
    ['I want to opt out.', 'i want to opt out'],
    ['कृपया मुझे दोबारा कॉल मत करना।', 'दोबारा कॉल मत करना'],
    ['मुझे फोन मत करो', 'मुझे फोन मत करो'],
    ['मेरा नंबर हटा दो', 'मेरा नंबर हटा दो'],
    ['Bhai mujhe call mat karo yaar', 'mujhe call mat karo'],
    ['mera number list se hata do', 'mera number list se hata do'],
  ])('finds an opt-out in %j', (text, phrase) => {
    expect(optOutPhraseIn(text)).toBe(phrase);
  });

  it.each([
    'No, I am not interested.',
    'Call me tomorrow morning.',
    'Please call me back later.',
    'I told my boss do not call meetings on Friday', // "call meetings" is not "call me"
    'Who is this?',
    'अभी मैं व्यस्त हूँ, बाद में कॉल करना',
    'mujhe call karna kal',
  ])('does not take %j for an opt-out', (text) => {
    expect(optOutPhraseIn(text)).toBeNull();
  });

  it('recognizes every phrase of every language inside a sentence', () => {
    for (const phrase of Object.values(OPT_OUT_PHRASES).flat()) expect(optOutPhraseIn(`uh, ${phrase}.`)).not.toBeNull();
  });

  it('counts only what the contact said, never the agent', () => {
    expect(
      optOutInTranscript([
        { speaker: 'agent', text: 'If you say stop calling me, we never call again.' },
        { speaker: 'Bot', text: 'Say "remove my number" at any time.' },
        { speaker: 'user', text: 'Okay, sounds good.' },
      ]),
    ).toBeNull();
    expect(
      optOutInTranscript([
        { speaker: 'agent', text: 'Hello!' },
        { speaker: 'user', text: 'Stop calling me.' },
      ]),
    ).toBe('stop calling me');
    expect(optOutInTranscript(null)).toBeNull();
  });

  it('reads a do_not_call tag or an opt-out lead status on a contact', () => {
    expect(optOutOfContact({ tags: ['vip', 'Do Not Call'] })).toBe('tag Do Not Call');
    expect(optOutOfContact({ tags: ['do_not_call'] })).toBe('tag do_not_call');
    expect(optOutOfContact({ lead_status: 'Opted Out' })).toBe('lead status Opted Out');
    expect(optOutOfContact({ lead_status: 'unsubscribed', tags: [] })).toBe('lead status unsubscribed');
    expect(optOutOfContact({ tags: ['callback'], lead_status: 'interested' })).toBeNull();
    expect(optOutOfContact({})).toBeNull();
  });
});
