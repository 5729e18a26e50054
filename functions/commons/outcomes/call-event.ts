import type { WebhookEvent } from '../voice-api/types.ts';

/** Events that carry a call's outcome; the receiver queues these and acknowledges the others. */
export const OUTCOME_EVENTS = ['call.completed', 'call.failed'] as const;

/**
 * The longest value callsheet takes for each field it reads from a call event. A signed body is trusted to come
 * from the vendor, not to be well formed: a 3,000-character call id would not fit a DynamoDB key and an object
 * where a status belongs throws when turned into text, and either would fail on every delivery again. The limits
 * are far above any real value (ids are a few dozen characters; a whole event is well under a kilobyte).
 */
export const CALL_EVENT_LIMITS = {
  event: 64,
  callId: 128,
  status: 32,
  timestamp: 64,
  url: 2048,
  phone: 32,
  campaignId: 128,
  contactName: 1000,
} as const;

/** The longest call in seconds a duration may say (a week; the vendor's hard limit is minutes). */
const MAX_DURATION_SECONDS = 7 * 24 * 3600;

/** Printable ASCII without spaces: safe in a DynamoDB key, a URL path (encoded) and a log line. */
const ID = /^[\x21-\x7e]+$/;
/** Matches only a surrogate without its pair (a `u` pattern reads a whole pair as one code point). */
const LONE_SURROGATE = /\p{Cs}/u;

export type CallEventCheck = { ok: true; event: WebhookEvent; outcome: boolean } | { ok: false; problem: string };

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** What a value is, in words, for a problem message (never the value itself: the body is not echoed anywhere). */
function kind(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'string') return `${v.length} characters`;
  return typeof v === 'object' ? 'an object' : `a ${typeof v}`;
}

/** Collects the first problem; each check names the field and the rule it broke. */
class Checks {
  problem: string | null = null;

  private fail(field: string, rule: string, got: unknown): void {
    this.problem ??= `${field} must be ${rule} (got ${kind(got)})`;
  }

  /** Required text is 1 to `max` characters; optional text may also be null, absent or empty. */
  text(field: string, v: unknown, max: number, options: { optional?: boolean; id?: boolean } = {}): void {
    if (options.optional && (v === undefined || v === null || v === '')) return;
    const what = options.id ? 'printable characters without spaces' : 'a string';
    const rule = `${options.optional ? 'null or ' : ''}${what} of at most ${max} characters`;
    // A lone surrogate (valid JSON as "\ud800") is not text DynamoDB or a spreadsheet can hold as sent.
    if (typeof v !== 'string' || v.length === 0 || v.length > max || LONE_SURROGATE.test(v)) {
      this.fail(field, rule, v);
      return;
    }
    if (options.id && !ID.test(v)) this.fail(field, rule, v);
  }

  url(field: string, v: unknown): void {
    if (v === undefined || v === null) return;
    const rule = `null or an http(s) URL of at most ${CALL_EVENT_LIMITS.url} characters`;
    if (typeof v !== 'string' || v.length > CALL_EVENT_LIMITS.url || LONE_SURROGATE.test(v)) {
      this.fail(field, rule, v);
      return;
    }
    let protocol = '';
    try {
      protocol = new URL(v).protocol;
    } catch {
      // not a URL: refused below
    }
    // Links land in reports and exports; a javascript: or data: link there would run when clicked.
    if (protocol !== 'https:' && protocol !== 'http:') this.fail(field, rule, v);
  }

  timestamp(field: string, v: unknown): void {
    this.text(field, v, CALL_EVENT_LIMITS.timestamp);
    if (this.problem === null && Number.isNaN(Date.parse(v as string))) this.fail(field, 'an ISO date and time', v);
  }

  duration(field: string, v: unknown): void {
    if (v === undefined || v === null) return;
    if (typeof v !== 'number' || !Number.isFinite(v) || v < 0 || v > MAX_DURATION_SECONDS)
      this.fail(field, `null or a number of seconds from 0 to ${MAX_DURATION_SECONDS}`, v);
  }

  object(field: string, v: unknown, optional: boolean): void {
    if (optional && (v === undefined || v === null)) return;
    if (!isObject(v)) this.fail(field, optional ? 'null or an object' : 'an object', v);
  }
}

/**
 * Checks the types and lengths of every field callsheet reads from a call event, before anything is stored or
 * queued. Every event needs `event` and `data.call_id`; an outcome event (`call.completed`, `call.failed`) also
 * needs a timestamp, and its status, duration, links and metadata (`phone_number`, `campaign_id`,
 * `contact_name`) must have the right type where present. Fields callsheet does not read are not looked at.
 */
export function checkCallEvent(payload: unknown): CallEventCheck {
  const c = new Checks();
  c.object('the body', payload, false);
  if (c.problem) return { ok: false, problem: c.problem };
  const p = payload as Record<string, unknown>;
  c.text('event', p.event, CALL_EVENT_LIMITS.event);
  c.object('data', p.data, false);
  if (c.problem) return { ok: false, problem: c.problem };
  const data = p.data as Record<string, unknown>;
  c.text('data.call_id', data.call_id, CALL_EVENT_LIMITS.callId, { id: true });
  const outcome = (OUTCOME_EVENTS as readonly unknown[]).includes(p.event);
  if (outcome) {
    c.timestamp('timestamp', p.timestamp);
    c.text('data.status', data.status, CALL_EVENT_LIMITS.status, { optional: true });
    c.duration('data.duration', data.duration);
    c.url('data.transcript_url', data.transcript_url);
    c.url('data.recording_url', data.recording_url);
    c.object('data.metadata', data.metadata, true);
    const meta = isObject(data.metadata) ? data.metadata : {};
    c.text('data.metadata.phone_number', meta.phone_number, CALL_EVENT_LIMITS.phone, { optional: true });
    c.text('data.metadata.campaign_id', meta.campaign_id, CALL_EVENT_LIMITS.campaignId, { optional: true, id: true });
    c.text('data.metadata.contact_name', meta.contact_name, CALL_EVENT_LIMITS.contactName, { optional: true });
  }
  return c.problem ? { ok: false, problem: c.problem } : { ok: true, event: p as unknown as WebhookEvent, outcome };
}
