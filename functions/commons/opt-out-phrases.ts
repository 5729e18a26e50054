/**
 * What a person says to stop being called. Matched, after normalization (lower case, punctuation and repeated
 * spaces removed), as whole words anywhere in a line the contact (not the agent) spoke. Keep every phrase
 * specific enough that an ordinary "no" or "not interested" does not match: an opt-out removes a number for good.
 *
 * English, Hindi (Devanagari) and Hindi as it is usually typed or transcribed in Latin letters (Hinglish).
 * Extend a list here and add a case to test/outcomes/opt-out.test.ts.
 */
export const OPT_OUT_PHRASES: Readonly<Record<'en' | 'hi' | 'hi-Latn', readonly string[]>> = {
  en: [
    'do not call me',
    "don't call me",
    'dont call me',
    'stop calling me',
    'stop calling',
    'never call me',
    'never call again',
    'do not call again',
    "don't call again",
    'take me off your list',
    'take me off the list',
    'remove me from your list',
    'remove me from the list',
    'remove my number',
    'delete my number',
    'put me on your do not call list',
    'add me to your do not call list',
    'unsubscribe me',
    'opt me out',
    'i want to opt out',
  ],
  hi: [
    'मुझे कॉल मत करो',
    'मुझे कॉल मत करना',
    'मुझे कॉल मत कीजिए',
    'मुझे फोन मत करो',
    'मुझे फोन मत करना',
    'मुझे फ़ोन मत करो',
    'दोबारा कॉल मत करना',
    'दोबारा फोन मत करना',
    'फिर से कॉल मत करना',
    'कॉल करना बंद करो',
    'फोन करना बंद करो',
    'मेरा नंबर हटा दो',
    'मेरा नंबर लिस्ट से हटा दो',
  ],
  'hi-Latn': [
    'mujhe call mat karo',
    'mujhe call mat karna',
    'mujhe phone mat karo',
    'mujhe phone mat karna',
    'dobara call mat karna',
    'dubara call mat karna',
    'phir se call mat karna',
    'call karna band karo',
    'phone karna band karo',
    'mera number hata do',
    'mera number list se hata do',
  ],
};
