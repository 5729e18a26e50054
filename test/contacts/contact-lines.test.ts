import { describe, expect, it } from 'vitest';
import { MAX_EVENT_BYTES } from '#contacts/contact-event.ts';
import { isContactLines, readContactLines } from '#contacts/contact-lines.ts';

const line = (e: unknown) => JSON.stringify(e);

describe('JSON lines of contact events', () => {
  it('reads each line as an event and rejects the others with their line number and reason', () => {
    const text = [
      line({ event_id: 'a', phone_number: '(415) 555-0161', tags: ['vip'] }),
      '',
      '{oops',
      line({ event_id: 'b', phone_number: '+14155550162', email: 'nope' }),
      '   ',
      line({ event_id: 'c', phone_number: '+14155550163', note: 'hi' }),
    ].join('\r\n');
    const read = readContactLines(Buffer.from(text), 'US');
    expect(read.rows).toEqual({ total: 4, accepted: 2, rejected: 2 });
    expect(read.rejected).toEqual([
      { row: 3, reason: 'not JSON' },
      { row: 4, reason: 'email: not a valid email address' },
    ]);
    // National numbers become E.164, as a sheet's rows do, so the queue reads them whatever its default country.
    expect(read.events.map((e) => e.phone_number)).toEqual(['+14155550161', '+14155550163']);
  });

  it('skips a byte order mark, refuses text that is not UTF-8, and never parses a line longer than an event', () => {
    const long = line({ event_id: 'x', phone_number: '+14155550164', note: 'n'.repeat(MAX_EVENT_BYTES) });
    const bytes = Buffer.concat([
      Buffer.from([0xef, 0xbb, 0xbf]),
      Buffer.from(`${line({ event_id: 'bom', phone_number: '+14155550165' })}\n`),
      Buffer.from('{"event_id":"bad","phone_number":"+14155550166","note":"'),
      Buffer.from([0xc3, 0x28]),
      Buffer.from('"}\n'),
      Buffer.from(`${long}\n`),
    ]);
    const read = readContactLines(bytes);
    expect(read.events.map((e) => e.event_id)).toEqual(['bom']);
    expect(read.rejected).toEqual([
      { row: 2, reason: 'not UTF-8 text' },
      { row: 3, reason: `longer than ${MAX_EVENT_BYTES} bytes (one event per line)` },
    ]);
  });

  it('is chosen by the file name: .jsonl and .ndjson', () => {
    expect(['a.jsonl', 'B.NDJSON', 'c.csv', 'd.json', 'e.xlsx'].map(isContactLines)).toEqual([
      true,
      true,
      false,
      false,
      false,
    ]);
  });
});
