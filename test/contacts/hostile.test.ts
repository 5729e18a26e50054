import type { SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { checkContactMessage, MAX_EVENT_BYTES } from '#contacts/contact-event.ts';
import { MAX_LINE_BYTES, readContactLines } from '#contacts/contact-lines.ts';
import { SqsDeadLetters } from '#contacts/dead-letters.ts';
import { useEmulator } from '../helpers/emulator.ts';
import { useSyncRig } from './harness.ts';

// Hostile contact input: JSON lines (`callsheet contacts push`) and queue messages. Memory and time bounds are
// measured in the bench (bench/contacts.ts), not here: these tests check what is refused, why, and that nothing
// gets as far as parsing or storing what it should not.

const PHONE = '+14155550101';
const event = (id: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ event_id: id, phone_number: PHONE, ...extra });
const file = (...parts: (string | Buffer)[]) =>
  Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p, 'utf8') : p)));
const ids = (events: unknown[]) => events.map((e) => (e as { event_id: string }).event_id);

afterEach(() => {
  vi.restoreAllMocks();
});

describe('contact lines: length', () => {
  it('a 10 MB line is refused from its length, before it is decoded or parsed; the other lines are read', () => {
    const huge = `{"event_id":"big","phone_number":"${PHONE}","note":"${'x'.repeat(10 * 1024 * 1024)}"}`;
    const parse = vi.spyOn(JSON, 'parse');
    const out = readContactLines(file(event('a'), '\n', huge, '\n', event('b'), '\n'));
    expect(ids(out.events)).toEqual(['a', 'b']);
    expect(out.rejected).toEqual([
      {
        line: 2,
        reason: `${Buffer.byteLength(huge).toLocaleString('en')} bytes long; a line holds one event of at most 65,536 bytes`,
      },
    ]);
    expect(Math.max(...parse.mock.calls.map(([text]) => text.length))).toBeLessThan(MAX_LINE_BYTES);
  });

  it('a line of exactly the cap is read; one byte more is refused (CR of a CRLF not counted)', () => {
    const line = (bytes: number) => event('e').padEnd(bytes, ' ');
    const at = readContactLines(file(line(MAX_LINE_BYTES), '\r\n', line(MAX_LINE_BYTES + 1), '\r\n'));
    expect(ids(at.events)).toEqual(['e']);
    expect(at.rejected.map((r) => r.line)).toEqual([2]);
  });

  it('the queue refuses a 10 MB message before parsing it', () => {
    const parse = vi.spyOn(JSON, 'parse');
    const check = checkContactMessage(event('big', { note: 'x'.repeat(10 * 1024 * 1024) }));
    expect(check).toEqual({ ok: false, reason: `event is larger than ${MAX_EVENT_BYTES} bytes` });
    expect(parse).not.toHaveBeenCalled();
  });
});

describe('contact lines: encoding', () => {
  it('a UTF-8 byte order mark before line 1 is allowed; one anywhere else is not JSON', () => {
    const bom = Buffer.from([0xef, 0xbb, 0xbf]);
    const out = readContactLines(file(bom, event('a', { name: 'Zoë' }), '\r\n', bom, event('b'), '\r\n'));
    expect(out.events).toEqual([{ event_id: 'a', phone_number: PHONE, name: 'Zoë' }]);
    expect(out.rejected).toEqual([{ line: 2, reason: expect.stringMatching(/^not JSON \(/) }]);
  });

  it.each([
    ['a lone continuation byte', [0x80]],
    ['a sequence cut short', [0xe2, 0x82]],
    ['an overlong encoding of "/"', [0xc0, 0xaf]],
    ['an encoded UTF-16 surrogate', [0xed, 0xa0, 0x80]],
    ['a byte UTF-8 never uses', [0xff]],
    ['Latin-1 text (é as one byte)', [0xe9]],
  ])('%s is refused with the line number, never stored as U+FFFD', (_, bad) => {
    const note = file(`{"event_id":"bad","phone_number":"${PHONE}","note":"caf`, Buffer.from(bad), '"}');
    const out = readContactLines(file(event('a'), '\n\n', note, '\n', event('b')));
    expect(ids(out.events)).toEqual(['a', 'b']);
    expect(out.rejected).toEqual([{ line: 3, reason: 'not UTF-8 text: save the file as UTF-8' }]);
    expect(JSON.stringify(out.events)).not.toContain('\ufffd');
  });

  it('a UTF-16 file gets one reason saying how to save it', () => {
    const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(`${event('a')}\n${event('b')}\n`, 'utf16le')]);
    expect(readContactLines(utf16)).toEqual({
      events: [],
      rejected: [{ line: 1, reason: 'the file is UTF-16 text: save it as UTF-8, one JSON event per line' }],
    });
  });

  it('an escaped lone surrogate is not text: refused in a line and on the queue', () => {
    const line = `{"event_id":"s","phone_number":"${PHONE}","name":"Ana \\ud800"}`;
    const reason = 'name: not valid Unicode text (a lone surrogate such as \\ud800)';
    expect(readContactLines(file(line)).rejected).toEqual([{ line: 1, reason }]);
    expect(checkContactMessage(line)).toEqual({ ok: false, reason });
    const tag = `{"event_id":"s","phone_number":"${PHONE}","tags":["ok","\\udc00x"]}`;
    expect(checkContactMessage(tag)).toMatchObject({ ok: false, reason: expect.stringMatching(/^tags: not valid/) });
    // A pair written as escapes is one character, and fine.
    expect(checkContactMessage(`{"event_id":"s","phone_number":"${PHONE}","name":"\\ud83d\\ude00"}`)).toMatchObject({
      ok: true,
      change: { fields: { contact_name: '😀' } },
    });
  });
});

describe('contact lines and queue messages: shape', () => {
  it.each([
    ['__proto__', `{"event_id":"p","phone_number":"${PHONE}","__proto__":{"polluted":1}}`, 'unknown field "__proto__"'],
    [
      'constructor',
      `{"event_id":"p","phone_number":"${PHONE}","constructor":{"prototype":{"polluted":1}}}`,
      'unknown field "constructor"',
    ],
    [
      'nesting 30,000 deep',
      `{"event_id":"n","phone_number":"${PHONE}","tags":${'['.repeat(30_000)}${']'.repeat(30_000)}}`,
      'tags.0 must be string',
    ],
    ['an unclosed nest', '['.repeat(60_000), 'not JSON'],
    ['an array', `["e","${PHONE}"]`, 'event must be object'],
    ['a bare string', '"event"', 'event must be object'],
    ['schema_version 3', event('v', { schema_version: 3 }), 'schema_version: 3 is not supported (1 or 2)'],
    [
      'changed_at without version 2',
      event('v', { changed_at: '2026-03-02T08:00:00Z' }),
      'changed_at: goes with "schema_version": 2',
    ],
    ['version 2 without changed_at', event('v', { schema_version: 2 }), "must have required property 'changed_at'"],
    ['a time before 1970', event('v', { schema_version: 2, changed_at: '1969-12-31T23:59:59Z' }), 'before 1970'],
  ])('%s is refused with a reason and pollutes nothing', (_, line, reason) => {
    const out = readContactLines(file(line));
    expect(out.events).toEqual([]);
    expect(out.rejected).toEqual([{ line: 1, reason: expect.stringContaining(reason) }]);
    expect(checkContactMessage(line)).toEqual({ ok: false, reason: expect.stringContaining(reason) });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('an event breaking a rule 20,000 times gets a short reason', () => {
    const line = `{"event_id":"t","phone_number":"${PHONE}","tags":[${Array(20_000).fill('{}').join(',')}]}`;
    expect(line.length).toBeLessThan(MAX_LINE_BYTES);
    const [rejected] = readContactLines(file(line)).rejected;
    expect(rejected?.reason).toMatch(
      /^tags must NOT have more than 50 items; tags\.0 must be string; .*; and 19,996 more$/,
    );
    expect(rejected?.reason.length).toBeLessThan(300);
  });

  it('blank lines, whitespace-only lines and a missing final newline cost nothing', () => {
    const out = readContactLines(file('\n  \r\n', event('a'), '\n\t\n\r\n', event('b')));
    expect(out).toEqual({ events: [JSON.parse(event('a')), JSON.parse(event('b'))], rejected: [] });
    expect(readContactLines(Buffer.alloc(0))).toEqual({ events: [], rejected: [] });
  });
});

describe('dead letters of large hostile events', () => {
  it('ten 200 KB events are dead-lettered, each with its reason, in requests SQS accepts', async () => {
    // No SQS stand-in runs here: this one enforces SendMessageBatch's limits as SQS does (10 entries, 256 KiB).
    const kept: { body: string; reason: string }[] = [];
    const sqs = {
      send: async (command: SendMessageBatchCommand) => {
        const entries = command.input.Entries ?? [];
        const bytes = entries.reduce(
          (n, e) =>
            n +
            Buffer.byteLength(e.MessageBody ?? '') +
            Object.entries(e.MessageAttributes ?? {}).reduce(
              (m, [k, v]) => m + k.length + (v.DataType?.length ?? 0) + Buffer.byteLength(v.StringValue ?? ''),
              0,
            ),
          0,
        );
        if (entries.length > 10 || bytes > 256 * 1024)
          throw Object.assign(new Error('Batch requests cannot be longer than 262144 bytes'), {
            name: 'BatchRequestTooLong',
          });
        for (const e of entries)
          kept.push({ body: e.MessageBody ?? '', reason: e.MessageAttributes?.reason?.StringValue ?? '' });
        return { Successful: entries.map((e) => ({ Id: e.Id })), Failed: [] };
      },
    } as unknown as SQSClient;
    const letters = Array.from({ length: 10 }, (_, i) => {
      const body = event(`big${i}`, { note: 'x'.repeat(200_000) });
      const check = checkContactMessage(body);
      return { messageId: `m${i}`, body, reason: `invalid event: ${check.ok ? '' : check.reason}` };
    });
    await new SqsDeadLetters(sqs, 'https://sqs.local/dlq').put(letters);
    expect(kept).toEqual(letters.map(({ body, reason }) => ({ body, reason })));
    expect(kept[0]?.reason).toBe(`invalid event: event is larger than ${MAX_EVENT_BYTES} bytes`);
  });
});

describe('hostile events through the sync (dynalite and the emulator)', () => {
  const f = useEmulator();
  const rig = useSyncRig(f);

  it('each is dead-lettered with its reason; the valid event beside them is stored and pushed', async () => {
    rig.queue.send(event('fine', { name: 'Fine' }));
    rig.queue.send(`{"event_id":"s","phone_number":"${PHONE}","name":"\\udfff"}`);
    rig.queue.send(event('big', { note: 'x'.repeat(MAX_EVENT_BYTES) }));
    rig.queue.send(`{"event_id":"p","phone_number":"${PHONE}","__proto__":{"name":"x"}}`);
    rig.queue.send(event('far', { schema_version: 2, changed_at: '9999-12-31T23:59:59Z', name: 'Forever' }));
    await rig.settle();
    expect(rig.queue.deadLetters.map((d) => d.reason)).toEqual([
      'invalid event: name: not valid Unicode text (a lone surrogate such as \\ud800)',
      `invalid event: event is larger than ${MAX_EVENT_BYTES} bytes`,
      'invalid event: event: unknown field "__proto__"',
      expect.stringMatching(/^invalid event: changed_at: 9999-12-31T23:59:59Z is more than 15 minutes ahead/),
    ]);
    const state = await rig.store.read(PHONE);
    expect(state?.fields).toEqual({ contact_name: 'Fine' });
    expect(state?.fieldTimes?.contact_name).not.toMatch(/^9999/);
  });
});
