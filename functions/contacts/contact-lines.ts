import { isUtf8 } from 'node:buffer';
import type { CountryCode } from 'libphonenumber-js/max';
import type { ContactUpserted } from '#commons/contact-events.ts';
import { checkContactEvent, MAX_EVENT_BYTES } from './contact-event.ts';

/**
 * The longest line read: one event as large as the contact queue takes one. A longer line is refused from its
 * length alone, before it is decoded or parsed (JSON.parse of one 10 MB line took 755 MB).
 */
export const MAX_LINE_BYTES = MAX_EVENT_BYTES;

export interface LineRejection {
  /** 1-based, as an editor numbers lines. */
  line: number;
  reason: string;
}

export interface ContactLines {
  /** Each line that is a valid event, as written (the sync checks it again when it applies it). */
  events: ContactUpserted[];
  /** Each line that is not, with the reason. */
  rejected: LineRejection[];
}

const LF = 0x0a;
const CR = 0x0d;
const startsWith = (bytes: Buffer, ...prefix: number[]) => prefix.every((b, i) => bytes[i] === b);

/**
 * JSON lines, one `Contact Upserted` event per line (`callsheet contacts push`): each line is checked on its own,
 * so one bad line costs only itself. Lines end in LF or CRLF; blank lines are skipped; a UTF-8 byte order mark
 * before line 1 is allowed. A line that is too long or not UTF-8 is refused with its number, never stored with
 * U+FFFD in place of its bytes.
 */
export function readContactLines(input: Uint8Array, defaultCountry?: CountryCode): ContactLines {
  const bytes = Buffer.from(input.buffer, input.byteOffset, input.byteLength);
  const out: ContactLines = { events: [], rejected: [] };
  if (startsWith(bytes, 0xff, 0xfe) || startsWith(bytes, 0xfe, 0xff)) {
    out.rejected.push({ line: 1, reason: 'the file is UTF-16 text: save it as UTF-8, one JSON event per line' });
    return out;
  }
  let start = startsWith(bytes, 0xef, 0xbb, 0xbf) ? 3 : 0;
  for (let line = 1; start <= bytes.length; line++) {
    const lf = bytes.indexOf(LF, start);
    const end = lf === -1 ? bytes.length : lf;
    const stop = end > start && bytes[end - 1] === CR ? end - 1 : end;
    const reason = readLine(bytes.subarray(start, stop), defaultCountry, out.events);
    if (reason) out.rejected.push({ line, reason });
    start = end + 1;
  }
  return out;
}

/** One line: its event added to `events`, or why it is not one (null for a blank line too). */
function readLine(raw: Buffer, defaultCountry: CountryCode | undefined, events: ContactUpserted[]): string | null {
  if (raw.length > MAX_LINE_BYTES)
    return `${raw.length.toLocaleString('en')} bytes long; a line holds one event of at most ${MAX_LINE_BYTES.toLocaleString('en')} bytes`;
  if (!isUtf8(raw)) return 'not UTF-8 text: save the file as UTF-8';
  const text = raw.toString('utf8');
  if (text.trim() === '') return null;
  let event: unknown;
  try {
    event = JSON.parse(text);
  } catch (err) {
    return `not JSON (${(err as Error).message})`;
  }
  const check = checkContactEvent(event, defaultCountry);
  if (!check.ok) return check.reason;
  events.push(event as ContactUpserted);
  return null;
}
