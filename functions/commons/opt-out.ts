import { OPT_OUT_PHRASES } from './opt-out-phrases.ts';

/** Lower case, curly apostrophes straightened, punctuation (any script) dropped, spaces collapsed. */
export function normalizeSpeech(text: string): string {
  return ` ${text
    .normalize('NFC')
    .toLowerCase()
    .replace(/[’‘`]/g, "'")
    .replace(/[^\p{L}\p{M}\p{N}'\s]+/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim()} `;
}

/**
 * The phrases normalized, made on first use rather than at module load: the first `normalizeSpeech` compiles its
 * Unicode-class pattern (a few ms), which the lifecycle's cold starts, mostly polls that read no transcript, skip.
 */
let phrases: { phrase: string; normalized: string }[] | undefined;

/** The first opt-out phrase said in `text` (whole words), or null. */
export function optOutPhraseIn(text: string): string | null {
  const said = normalizeSpeech(text);
  phrases ??= Object.values(OPT_OUT_PHRASES)
    .flat()
    .map((phrase) => ({ phrase, normalized: normalizeSpeech(phrase) }));
  return phrases.find((p) => said.includes(p.normalized))?.phrase ?? null;
}

export interface SpokenLine {
  speaker: string;
  text: string;
}

/** Speaker names of the calling side (the API names only `agent`; the others are seen in similar APIs). */
const AGENT_SPEAKERS = new Set(['agent', 'assistant', 'bot', 'ai']);

/** An opt-out spoken by the contact in a transcript: the agent's own lines never count. */
export function optOutInTranscript(lines: readonly SpokenLine[] | null | undefined): string | null {
  for (const line of lines ?? []) {
    if (AGENT_SPEAKERS.has(line.speaker.toLowerCase())) continue;
    const phrase = optOutPhraseIn(line.text);
    if (phrase) return phrase;
  }
  return null;
}

/** Tags that mean "never call" (compared in lower snake case, as the API normalizes lead statuses). */
export const OPT_OUT_TAGS = ['do_not_call', 'dnc', 'opted_out', 'opt_out'] as const;
/** Lead statuses (lower snake case, the API's normalization) that mean "never call". */
export const OPT_OUT_LEAD_STATUSES = ['do_not_call', 'opted_out', 'opt_out', 'unsubscribed', 'dnc'] as const;

const snake = (v: string) =>
  v
    .trim()
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_|_$/g, '');

/** Why a contact (from a contact event or the contacts API) must not be called, or null. */
export function optOutOfContact(contact: {
  tags?: readonly string[] | null;
  lead_status?: string | null;
}): string | null {
  const tag = (contact.tags ?? []).find((t) => (OPT_OUT_TAGS as readonly string[]).includes(snake(t)));
  if (tag) return `tag ${tag}`;
  const status = contact.lead_status ? snake(contact.lead_status) : '';
  if ((OPT_OUT_LEAD_STATUSES as readonly string[]).includes(status)) return `lead status ${contact.lead_status}`;
  return null;
}
