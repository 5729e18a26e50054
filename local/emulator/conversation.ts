import type { TranscriptLine } from '#commons/voice-api/types.ts';
import { between, pick } from './random.ts';

const USER_LINES = [
  'Hi, yes, who is this?',
  'Oh okay, I have a minute.',
  'Can you tell me a bit more about that?',
  'That sounds useful, actually.',
  'What would it cost me?',
  'I am driving right now, can you keep it short?',
  'Sure, go ahead.',
  'I think we already spoke last week.',
];
const AGENT_LINES = [
  'Thanks for taking my call.',
  'I am calling to follow up on your recent enquiry.',
  'It only takes a couple of minutes, I promise.',
  'Would a callback tomorrow morning suit you better?',
  'I can send the details by email as well.',
  'Great, I have noted that down.',
];
/**
 * Deterministic opt-outs for tests and demos: a call whose custom instruction contains `[emulator:opt-out]`
 * (English) or `[emulator:opt-out:hi]` (Hindi) has the contact answer the greeting with an opt-out phrase.
 */
const OPT_OUT_MARKER = /\[emulator:opt-out(?::(en|hi))?\]/i;
const OPT_OUT_LINES = {
  en: 'Please take me off your list and do not call me again.',
  hi: 'कृपया मुझे दोबारा कॉल मत करना।',
};

const OUTCOMES = ['interested', 'callback requested', 'not interested', 'already a customer', 'left details by email'];

/**
 * A plausible conversation for a simulated call: alternating speakers spread over the call, opened by the agent's
 * greeting line. Lines are timed so they can be streamed live as the call runs.
 */
export function conversation(
  r: () => number,
  opts: {
    greeting: string;
    contactName: string | null;
    answeredAt: number;
    durationSeconds: number;
    instructions?: string | null;
  },
): { lines: TranscriptLine[]; summary: string } {
  const count = Math.max(2, Math.min(12, Math.floor(opts.durationSeconds / 15)));
  const step = (opts.durationSeconds * 1000) / (count + 1);
  const lines: TranscriptLine[] = [];
  const marker = opts.instructions?.match(OPT_OUT_MARKER);
  const optOut: keyof typeof OPT_OUT_LINES | null = marker ? (marker[1]?.toLowerCase() === 'hi' ? 'hi' : 'en') : null;
  for (let i = 0; i < count; i++) {
    const speaker = i % 2 === 0 ? 'agent' : 'user';
    let text: string;
    if (i === 0) text = opts.contactName ? `${opts.greeting} Am I speaking with ${opts.contactName}?` : opts.greeting;
    else text = speaker === 'agent' ? pick(r, AGENT_LINES) : pick(r, USER_LINES);
    if (i === 1 && optOut) text = OPT_OUT_LINES[optOut];
    lines.push({ speaker, text, timestamp: new Date(opts.answeredAt + Math.round(step * (i + 1))).toISOString() });
  }
  const outcome = pick(r, OUTCOMES);
  return {
    lines,
    summary: `Call of ${opts.durationSeconds} s; outcome: ${outcome}; ${between(r, 1, 3)} follow-up item(s).`,
  };
}
