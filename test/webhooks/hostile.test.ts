import { describe, expect, it } from 'vitest';
import { CALL_EVENT_LIMITS } from '#commons/outcomes/call-event.ts';
import { OutcomeStore } from '#commons/outcomes/outcome-store.ts';
import { signWebhook } from '#commons/voice-api/webhooks.ts';
import { outcomesCsv } from '#lifecycle/part-end/export.ts';
import { parseCsv } from '#local/stack/html-report.ts';
import { usePipeline } from '../helpers/pipeline.ts';
import { stackDb } from '../outcomes/webhook-run.ts';

/**
 * Hostile webhook bodies over real HTTP to the local stack's receiver (the Function URL handler behind a plain
 * server on 127.0.0.1, its outcomes queue and dead letters on dynalite). Every body here is validly signed
 * unless a test says otherwise: the point is what the receiver does with bytes it must trust came from the vendor.
 */
const p = usePipeline();

let n = 0;
const base = (overrides: { data?: Record<string, unknown>; [k: string]: unknown } = {}) => {
  n++;
  const { data, ...top } = overrides;
  return {
    event: 'call.completed',
    timestamp: '2026-03-02T09:05:00.000Z',
    ...top,
    data: {
      call_id: `call_hostile_${n}`,
      agent_id: 'agent_1',
      duration: 61,
      status: 'completed',
      transcript_url: null,
      recording_url: null,
      metadata: { campaign_id: 'cmp_hostile', phone_number: '+14155550100', contact_name: 'Ann' },
      ...data,
    },
  };
};

async function post(body: string | Buffer, options: { sign?: boolean; contentType?: string } = {}) {
  const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
  const res = await fetch(p.stack.webhooks.url, {
    method: 'POST',
    headers: {
      'content-type': options.contentType ?? 'application/json',
      ...(options.sign === false ? {} : { 'X-VoiceAgent-Signature': signWebhook(bytes, p.stack.webhooks.secret) }),
    },
    body: bytes,
  });
  const text = await res.text();
  await p.stack.webhooks.queue.idle();
  return { status: res.status, body: text ? (JSON.parse(text) as { message?: string }) : {} };
}

describe('hostile webhook bodies over HTTP', () => {
  it.each([
    ['a status that is an object with toString', { data: { status: { toString: 1 } } }, 'data.status'],
    ['a 3,000-character call id', { data: { call_id: 'c'.repeat(3000) } }, 'data.call_id'],
    ['a call id one over the limit', { data: { call_id: 'c'.repeat(CALL_EVENT_LIMITS.callId + 1) } }, 'data.call_id'],
    ['a call id with a line break', { data: { call_id: 'call_1\nforged log line' } }, 'data.call_id'],
    ['a call id that is a number', { data: { call_id: 12345 } }, 'data.call_id'],
    ['an event that is an array', { event: ['call.completed'] }, 'event'],
    ['a timestamp that is an object', { timestamp: { $date: 1 } }, 'timestamp'],
    ['a timestamp that is no date', { timestamp: 'yesterday-ish' }, 'timestamp'],
    ['a duration given as text', { data: { duration: '61' } }, 'data.duration'],
    ['a negative duration', { data: { duration: -1 } }, 'data.duration'],
    ['a javascript: transcript link', { data: { transcript_url: 'javascript:alert(1)' } }, 'data.transcript_url'],
    [
      'a recording link of 3,000 characters',
      { data: { recording_url: `https://x/${'a'.repeat(3000)}` } },
      'data.recording_url',
    ],
    ['metadata that is a string', { data: { metadata: 'campaign=1' } }, 'data.metadata'],
    [
      'a phone number that is an object',
      { data: { metadata: { phone_number: { e164: '+1' } } } },
      'data.metadata.phone_number',
    ],
    ['a campaign id with spaces', { data: { metadata: { campaign_id: 'cmp 1' } } }, 'data.metadata.campaign_id'],
    [
      'a name with a lone surrogate',
      { data: { metadata: { contact_name: 'Ann \ud800' } } },
      'data.metadata.contact_name',
    ],
    [
      'a name of 5,000 characters',
      { data: { metadata: { contact_name: 'A'.repeat(5000) } } },
      'data.metadata.contact_name',
    ],
  ])('answers %s with 400 and its reason, and queues nothing', async (_name, overrides, field) => {
    const event = base(overrides as Record<string, unknown>);
    const body = JSON.stringify(event);
    const deadBefore = p.stack.webhooks.queue.deadLetters.length;
    const res = await post(body);
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(/^body is not a call event callsheet can record: /);
    expect(res.body.message).toContain(`${field} must be`);
    // The reason names the rule and what came, never the value itself.
    expect(res.body.message).not.toContain('forged log line');
    expect(p.stack.webhooks.queue.deadLetters).toHaveLength(deadBefore);
    const callId = (event.data as { call_id?: unknown }).call_id;
    if (typeof callId === 'string' && callId.length <= CALL_EVENT_LIMITS.callId && !callId.includes('\n'))
      expect(await p.stack.webhooks.outcomes.contactOutcomes('cmp_hostile')).toEqual([]);
  });

  it('answers 400 to data that is an array or a body that is not an object', async () => {
    for (const body of [JSON.stringify({ ...base(), data: [base().data] }), '[1,2]', '"call.completed"', 'null']) {
      const res = await post(body);
      expect(res.status, body).toBe(400);
      expect(res.body.message).toMatch(/(data|the body) must be an object/);
    }
  });

  it('refuses a body that is not UTF-8 with 400, and one mangled on the way with 401; neither is queued', async () => {
    const json = Buffer.from(JSON.stringify(base({ data: { metadata: { contact_name: 'Ann XX' } } })), 'utf8');
    const at = json.indexOf('XX');
    json[at] = 0xc3; // a lead byte followed by an ASCII letter: not UTF-8
    json[at + 1] = 0x28;
    const deadBefore = p.stack.webhooks.queue.deadLetters.length;
    // Sent as bytes the Function URL passes on base64-encoded: the receiver sees exactly what was signed.
    const raw = await post(json, { contentType: 'application/octet-stream' });
    expect(raw).toEqual({ status: 400, body: { message: 'body is not valid UTF-8' } });
    // Sent as JSON text the bytes become U+FFFD before the receiver sees them, so they no longer match the signature.
    expect((await post(json)).status).toBe(401);
    expect(p.stack.webhooks.queue.deadLetters).toHaveLength(deadBefore);
    expect(await p.stack.webhooks.outcomes.contactOutcomes('cmp_hostile')).toEqual([]);
  });

  it('refuses unsigned and oversized bodies before reading them', async () => {
    const body = JSON.stringify(base({ data: { status: { toString: 1 } } }));
    expect((await post(body, { sign: false })).status).toBe(401);
    const big = JSON.stringify(base({ data: { metadata: { contact_name: 'A'.repeat(70 * 1024) } } }));
    expect((await post(big)).status).toBe(413);
  });

  it('notes an event for a call the API does not know and acknowledges it, with no dead letter', async () => {
    const deadBefore = p.stack.webhooks.queue.deadLetters.length;
    const event = base({ data: { call_id: 'call_never_made' } });
    expect((await post(JSON.stringify(event))).status).toBe(202);
    // The same call again under another status (no metadata, so the API is asked again): still no dead letter.
    const again = { ...event, event: 'call.failed', data: { ...event.data, status: 'failed', metadata: {} } };
    expect((await post(JSON.stringify(again))).status).toBe(202);
    expect(p.stack.webhooks.queue.deadLetters).toHaveLength(deadBefore);
    const store = new OutcomeStore(stackDb(p), p.stack.dynamo.tables.outcomes);
    expect(await store.unknownCall('call_never_made')).toMatchObject({
      callId: 'call_never_made',
      event: 'call.failed',
      campaignId: null,
      eventAt: '2026-03-02T09:05:00.000Z',
      deliveries: 2,
    });
    expect(await store.get('call_never_made')).toBeNull();
  });

  it('records formulas sent as a name and a number as text, and the export defuses them in any locale', async () => {
    const failed = (callId: string, phone: string, name: string) =>
      JSON.stringify(
        base({
          event: 'call.failed',
          data: {
            call_id: callId,
            status: 'failed',
            metadata: { campaign_id: 'cmp_formula', phone_number: phone, contact_name: name },
          },
        }),
      );
    expect((await post(failed('call_formula_1', '+14155552671', "x;=cmd|' /C calc'!A0;y"))).status).toBe(202);
    expect((await post(failed('call_formula_2', "=1+2;=cmd|'/C calc'!A0", ' "@SUM(1)'))).status).toBe(202);
    const rows = await p.stack.webhooks.outcomes.contactOutcomes('cmp_formula');
    expect(rows.map((r) => r.contactName).sort()).toEqual([' "@SUM(1)', "x;=cmd|' /C calc'!A0;y"]);
    const csv = outcomesCsv(rows);
    for (const cell of cellsInAnyLocale(csv)) expect(cell, csv).not.toMatch(FORMULA);
    // Read back as RFC 4180: the values, each risky segment behind an apostrophe, the E.164 number untouched.
    const [, ...table] = parseCsv(csv).filter((r) => r.length > 1);
    expect(table.map((r) => [r[0], r[1]]).sort()).toEqual([
      ["'=1+2;'=cmd|'/C calc'!A0", '\' "@SUM(1)'],
      ['+14155552671', "x;'=cmd|' /C calc'!A0;y"],
    ]);
  });
});

/**
 * Starts a spreadsheet could run: after spaces and double quotes, =, +, -, @, tab or CR. The one exception is the
 * quoted E.164 number that opens each row, followed by its closing quote (csv-field.ts says why it is safe).
 */
const FORMULA = /^(?!"\+[1-9][0-9]{1,14}"(,|$))[ "]*[=+\-@\t\r]/;

/** Every cell of every line as programs in other locales split it: on `,`, `;`, tab or `|`, ignoring quotes. */
function cellsInAnyLocale(csv: string): string[] {
  const lines = csv.split(/\r\n|\n|\r/);
  return [',', ';', '\t', '|'].flatMap((sep) => lines.flatMap((line) => line.split(sep)));
}
