import { createHmac, timingSafeEqual } from 'node:crypto';
import { WEBHOOK_EVENTS } from './contract.ts';
import type { WebhookEvent } from './types.ts';

/** Hex HMAC-SHA256 of the raw body, keyed with the webhook secret. */
export function signWebhook(rawBody: string | Uint8Array, secret: string): string {
  return createHmac('sha256', secret).update(rawBody).digest('hex');
}

/**
 * Constant-time check of a signature against the raw body (the exact bytes received, before any JSON parsing).
 * Wrong length, non-hex or missing signatures are simply false; nothing throws.
 */
export function verifyWebhook(
  rawBody: string | Uint8Array,
  signature: string | null | undefined,
  secret: string,
): boolean {
  if (!secret || typeof signature !== 'string') return false;
  const given = signature.trim().replace(/^sha256=/i, '');
  if (!/^[0-9a-fA-F]+$/.test(given) || given.length % 2 !== 0) return false;
  const expected = Buffer.from(signWebhook(rawBody, secret), 'hex');
  const received = Buffer.from(given, 'hex');
  if (received.length !== expected.length) return false;
  return timingSafeEqual(received, expected);
}

/** Finds the `X-<Service>-Signature` header whatever the service's name and the header's case. */
export function findSignatureHeader(headers: Record<string, string | string[] | undefined> | Headers): string | null {
  const entries: [string, string | string[] | undefined][] =
    headers instanceof Headers ? [...headers.entries()] : Object.entries(headers);
  for (const [name, value] of entries) {
    if (/^x-[a-z0-9-]+-signature$/i.test(name)) return Array.isArray(value) ? (value[0] ?? null) : (value ?? null);
  }
  return null;
}

export class WebhookVerificationError extends Error {
  constructor(
    message: string,
    /** The HTTP status a receiver should answer with. */
    readonly status: 400 | 401,
  ) {
    super(message);
    this.name = 'WebhookVerificationError';
  }
}

/** Verifies and parses one delivery; throws WebhookVerificationError (401 bad signature, 400 bad payload). */
export function parseWebhook(
  rawBody: string | Uint8Array,
  headers: Record<string, string | string[] | undefined> | Headers,
  secret: string,
): WebhookEvent {
  if (!verifyWebhook(rawBody, findSignatureHeader(headers), secret)) {
    throw new WebhookVerificationError('webhook signature does not match', 401);
  }
  let payload: unknown;
  try {
    payload = JSON.parse(typeof rawBody === 'string' ? rawBody : Buffer.from(rawBody).toString('utf8'));
  } catch {
    throw new WebhookVerificationError('webhook body is not JSON', 400);
  }
  const p = payload as Partial<WebhookEvent> | null;
  if (!p || !WEBHOOK_EVENTS.includes(p.event as WebhookEvent['event']) || typeof p.data?.call_id !== 'string') {
    throw new WebhookVerificationError('webhook body is not a known call event', 400);
  }
  return p as WebhookEvent;
}
