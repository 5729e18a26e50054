import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  findSignatureHeader,
  parseWebhook,
  signWebhook,
  verifyWebhook,
  WebhookVerificationError,
} from '#commons/voice-api/index.ts';

const body = JSON.stringify({
  event: 'call.completed',
  timestamp: '2026-01-01T00:00:00Z',
  data: { call_id: 'c1', agent_id: 'a1' },
});

describe('webhook signatures', () => {
  it('signs with hex HMAC-SHA256 of the raw body', () => {
    expect(signWebhook(body, 's3cret')).toBe(createHmac('sha256', 's3cret').update(body).digest('hex'));
    expect(signWebhook(Buffer.from(body), 's3cret')).toBe(signWebhook(body, 's3cret'));
  });

  it('verifies the right signature (any case, optional sha256= prefix) and nothing else', () => {
    const sig = signWebhook(body, 's3cret');
    expect(verifyWebhook(body, sig, 's3cret')).toBe(true);
    expect(verifyWebhook(body, sig.toUpperCase(), 's3cret')).toBe(true);
    expect(verifyWebhook(body, `sha256=${sig}`, 's3cret')).toBe(true);
    expect(verifyWebhook(`${body} `, sig, 's3cret')).toBe(false); // one changed byte of the body
    expect(verifyWebhook(body, sig, 'other')).toBe(false);
    const flipped = (sig[0] === 'a' ? 'b' : 'a') + sig.slice(1);
    expect(verifyWebhook(body, flipped, 's3cret')).toBe(false);
  });

  it('is false, never throws, for wrong-length, odd-length, non-hex, empty or missing signatures', () => {
    const sig = signWebhook(body, 's3cret');
    for (const bad of [sig.slice(0, 62), `${sig}00`, sig.slice(1), 'zz'.repeat(32), '', '   ', null, undefined]) {
      expect(verifyWebhook(body, bad, 's3cret')).toBe(false);
    }
    expect(verifyWebhook(body, sig, '')).toBe(false);
  });

  it('finds the X-<Service>-Signature header whatever the service name and case', () => {
    expect(findSignatureHeader({ 'content-type': 'application/json', 'x-acme-voice-signature': 'abc' })).toBe('abc');
    expect(findSignatureHeader(new Headers({ 'X-VoiceAgent-Signature': 'def' }))).toBe('def');
    expect(findSignatureHeader({ 'x-signature-extra': 'no' })).toBeNull();
  });

  it('parses a verified delivery, and says 401 for a bad signature and 400 for a bad payload', () => {
    const sig = signWebhook(body, 'k');
    expect(parseWebhook(body, { 'X-Svc-Signature': sig }, 'k').data.call_id).toBe('c1');
    const bad = (() => {
      try {
        parseWebhook(body, { 'X-Svc-Signature': 'ab' }, 'k');
      } catch (e) {
        return e;
      }
    })();
    expect(bad).toBeInstanceOf(WebhookVerificationError);
    expect((bad as WebhookVerificationError).status).toBe(401);
    const junk = '{"event":"call.exploded","data":{}}';
    expect(() => parseWebhook(junk, { 'x-svc-signature': signWebhook(junk, 'k') }, 'k')).toThrow(
      /not a known call event/,
    );
  });
});
