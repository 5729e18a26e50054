import { checkCallEvent } from '#commons/outcomes/call-event.ts';
import { findSignatureHeader, verifyWebhook } from '#commons/voice-api/webhooks.ts';
import type { CachedSecret } from './webhook-secret.ts';

export interface WebhookRequest {
  headers: Record<string, string | undefined>;
  /** The raw bytes as received (already base64-decoded when the platform encoded them). */
  body: Buffer;
}

export interface WebhookResponse {
  status: 200 | 202 | 400 | 401 | 413 | 503;
  body: Record<string, unknown>;
}

/** Stops replays: the first delivery of an event key is claimed, confirmed once queued, released if not. */
export interface ReplayGuard {
  claim(key: string, now: Date): Promise<'claimed' | 'duplicate'>;
  confirm(key: string): Promise<void>;
  release(key: string): Promise<void>;
}

export interface OutcomeQueue {
  send(body: string): Promise<void>;
}

export interface ReceiverDeps {
  secret: CachedSecret;
  guard: ReplayGuard;
  queue: OutcomeQueue;
  maxBodyBytes: number;
  now?: () => Date;
}

/** Refuses bytes that are not UTF-8 rather than queueing U+FFFD in their place (a byte order mark is dropped). */
const UTF8 = new TextDecoder('utf-8', { fatal: true });

const SIGNATURE_SHAPE = /^(sha256=)?[0-9a-f]{64}$/i;

const deny = (status: 400 | 401 | 413, message: string): WebhookResponse => ({ status, body: { message } });

/**
 * One webhook delivery: size, signature of the raw bytes (before any parsing), UTF-8, JSON, the types and lengths
 * of the fields callsheet reads (commons/outcomes/call-event.ts), replay guard, queue. The scheme has
 * no timestamp, so a replay is recognized by its event type, call id and status, never by its age.
 */
export class WebhookReceiver {
  private readonly now: () => Date;

  constructor(private readonly deps: ReceiverDeps) {
    this.now = deps.now ?? (() => new Date());
  }

  async receive(req: WebhookRequest): Promise<WebhookResponse> {
    if (req.body.length > this.deps.maxBodyBytes)
      return deny(413, `body over ${this.deps.maxBodyBytes} bytes; a call event is far smaller`);
    const signature = findSignatureHeader(req.headers);
    if (!signature) return deny(401, 'no X-…-Signature header');
    // Not even shaped like a hex HMAC-SHA256: refused without touching the secret.
    if (!SIGNATURE_SHAPE.test(signature.trim())) return deny(401, 'signature is not a hex HMAC-SHA256');
    if (!(await this.verified(req.body, signature))) return deny(401, 'signature does not match');

    // From here the sender is the vendor: a body it sent wrong gets 400 with the reason, because a 5xx would have
    // it deliver the same bytes again and again.
    let text: string;
    try {
      text = UTF8.decode(req.body);
    } catch {
      return deny(400, 'body is not valid UTF-8');
    }
    let payload: unknown;
    try {
      payload = JSON.parse(text);
    } catch {
      return deny(400, 'body is not JSON');
    }
    const checked = checkCallEvent(payload);
    if (!checked.ok) return deny(400, `body is not a call event callsheet can record: ${checked.problem}`);
    const { event } = checked;
    if (!checked.outcome) return { status: 200, body: { ignored: event.event } };

    const key = `${event.event}#${event.data.call_id}#${event.data.status ?? ''}`;
    if ((await this.deps.guard.claim(key, this.now())) === 'duplicate')
      return { status: 200, body: { duplicate: true } };
    try {
      await this.deps.queue.send(text);
    } catch (err) {
      await this.deps.guard.release(key);
      // 5xx: the sender tries again, and the released claim lets that attempt through.
      return { status: 503, body: { message: `not queued: ${(err as Error).name}` } };
    }
    await this.deps.guard.confirm(key);
    return { status: 202, body: { queued: true } };
  }

  /** Checks with the cached secret, and once more with a fresh read when that fails (the secret was rotated). */
  private async verified(body: Buffer, signature: string): Promise<boolean> {
    if (verifyWebhook(body, signature, await this.deps.secret.current())) return true;
    const fresh = await this.deps.secret.refreshed();
    return fresh !== null && verifyWebhook(body, signature, fresh);
  }
}
