import { type DynamoDBDocumentClient, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { isConditionFailed } from '../aws/conditional-write.ts';
import { type Clock, type RequestBudget, realClock } from '../voice-api/rate-limiter.ts';
import { BudgetExhaustedError } from './errors.ts';

export interface BudgetLimits {
  /** The plan's limits (the contract's first tier: 100 a minute, 1,000 an hour); 0 turns a window off. */
  perMinute: number;
  perHour: number;
  /** Held back from every caller but the lifecycle, so a sync can never delay a pause. */
  lifecycleReserve: { perMinute: number; perHour: number };
  /**
   * Held back from everything but making campaigns safe (pause, its confirmation, the agent brake), so the
   * lifecycles' own polls of many parts can never spend what their pauses need.
   */
  safetyReserve: { perMinute: number; perHour: number };
}

export const DEFAULT_LIMITS: BudgetLimits = {
  perMinute: 100,
  perHour: 1000,
  lifecycleReserve: { perMinute: 5, perHour: 50 },
  safetyReserve: { perMinute: 5, perHour: 200 },
};

/**
 * `safety` (pause, brake) may use the whole plan; `lifecycle` (launches, polls, resumes) all but the safety
 * reserve; `shared` (contact sync, webhook follow-ups, intake's agent look-up) all but both reserves.
 */
export type BudgetShare = 'safety' | 'lifecycle' | 'shared';

const MINUTE = 60_000;
const HOUR = 3_600_000;

interface Window {
  /** The counter's attribute in the hour's item: `n` for the hour, `m<minute start>` for a minute. */
  attr: string;
  end: number;
  limit: number;
  /** What each share may not take of `limit`. */
  reserve: Record<BudgetShare, number>;
}

/** `increment`'s answers besides the full window: the token was taken, or the update should be tried again. */
const TAKEN = Symbol('taken');
const AGAIN = Symbol('again');

/** The hour's item that holds every counter of `now`, and when it may expire (an hour after the hour ends). */
interface HourItem {
  pk: string;
  expiresAt: number;
}
function hourItem(now: number): HourItem {
  const h = Math.floor(now / HOUR) * HOUR;
  return { pk: `budget#${h}`, expiresAt: Math.ceil((h + HOUR) / 1000) + 3600 };
}
/** What a share may take of a window: its limit less what the share must leave. */
const capOf = (w: Window, share: BudgetShare) => Math.max(0, w.limit - w.reserve[share]);
const minuteAttr = (m: number) => `m${m}`;
/** How many pauses are booked in a minute: a counter beside that minute's, so a take learns it from its own write. */
const bookedAttr = (m: number) => `b${m}`;
/** What this process last saw a counter at is kept under this. */
const knownKey = (item: HourItem, w: Window) => `${item.pk}.${w.attr}`;
/** Which parts a minute's `b<minute>` counts (`book` is asked again on every step before the pause). */
const bookingKey = (m: number) => `booked#${m}`;

/**
 * One API budget for the whole account, in DynamoDB: one item per fixed hour holding the hour's counter and a
 * counter per fixed minute (aligned like the API's own windows, whose end `X-RateLimit-Reset` names). A token is
 * one conditional update of that item, both counters at once, so any number of Lambda containers together stay
 * within the plan, and each request costs one round trip. The service's word wins: an answer with
 * `X-RateLimit-Remaining` raises the counter to what the service counted, and a 429 (or remaining 0) fills the
 * window it names until it resets, for every caller.
 */
export class SharedApiBudget {
  /** What this process last saw each counter at (by item and attribute): saves writes that could not change anything. */
  private readonly known = new Map<string, number>();
  /** The parts this process has booked, by minute: asked again, they cost nothing. */
  private readonly booked = new Map<number, Set<string>>();
  /** When the window that last refused each share ends (`refusal`). */
  private readonly refusedUntil = new Map<BudgetShare, number>();

  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly table: string,
    readonly limits: BudgetLimits = DEFAULT_LIMITS,
    private readonly clock: Clock = realClock,
  ) {}

  /**
   * The budget as one caller sees it. A caller that would wait longer than `maxWaitMs` for a token gets a
   * BudgetExhaustedError instead (a Lambda should not sleep for an hour: its message comes back later).
   */
  for(share: BudgetShare, options: { maxWaitMs?: number } = {}): RequestBudget {
    const maxWaitMs = options.maxWaitMs ?? (share === 'shared' ? 30_000 : 10 * MINUTE);
    return {
      take: () => this.take(share, maxWaitMs),
      observe: (headers, status) => this.observe(headers, status),
      refusal: () => this.knownRefusal(share, maxWaitMs),
    };
  }

  /**
   * What `take` would throw now, known without a request: this process's last refusal of `share` holds until the
   * window that refused it ends, as its counters only grow (a token another container gives back meanwhile goes
   * to its next take, not to a caller this refuses: that caller only comes back later).
   */
  private knownRefusal(share: BudgetShare, maxWaitMs: number): BudgetExhaustedError | null {
    const until = this.refusedUntil.get(share);
    return until !== undefined && until - this.clock.now() > maxWaitMs ? new BudgetExhaustedError(share, until) : null;
  }

  private windows(now: number): { minute: Window | null; hour: Window | null } {
    const { perMinute, perHour, lifecycleReserve: life, safetyReserve: safe } = this.limits;
    const m = Math.floor(now / MINUTE) * MINUTE;
    const h = Math.floor(now / HOUR) * HOUR;
    const reserve = (lifecycle: number, safety: number) => ({
      safety: 0,
      lifecycle: safety,
      shared: safety + lifecycle,
    });
    return {
      minute:
        perMinute > 0
          ? { attr: minuteAttr(m), end: m + MINUTE, limit: perMinute, reserve: reserve(life.perMinute, safe.perMinute) }
          : null,
      hour:
        perHour > 0 ? { attr: 'n', end: h + HOUR, limit: perHour, reserve: reserve(life.perHour, safe.perHour) } : null,
    };
  }

  async take(share: BudgetShare, maxWaitMs: number): Promise<void> {
    for (;;) {
      const now = this.clock.now();
      const item = hourItem(now);
      const { minute, hour } = this.windows(now);
      const open = [hour, minute].filter((w): w is Window => w !== null);
      if (open.length === 0) return;
      const full = this.knownFull(item, open, share) ?? (await this.increment(item, open, minute, share));
      if (full === TAKEN) return;
      // Refused, yet nothing was full when read back (a token given back meanwhile): ask again.
      if (full === AGAIN) continue;
      const wait = full.end - now;
      if (wait > maxWaitMs) {
        this.refusedUntil.set(share, full.end);
        throw new BudgetExhaustedError(share, full.end);
      }
      await this.clock.sleep(wait);
    }
  }

  /** A window known to be full without asking: its whole plan taken, or nothing of it left to this share. */
  private knownFull(item: HourItem, windows: Window[], share: BudgetShare): Window | null {
    return windows.find((w) => capOf(w, share) === 0 || (this.known.get(knownKey(item, w)) ?? 0) >= w.limit) ?? null;
  }

  /**
   * Takes one token of every window in one conditional update, if each has fewer than its cap taken; the full
   * window otherwise. Every caller but the safety share also leaves one token of the minute for each pause booked
   * in it (`book`), learnt from the same write; a token that turns out to be one of theirs is given back.
   */
  private async increment(
    hourOf: HourItem,
    windows: Window[],
    minute: Window | null,
    share: BudgetShare,
  ): Promise<Window | typeof TAKEN | typeof AGAIN> {
    const names: Record<string, string> = {};
    const values: Record<string, unknown> = { ':one': 1, ':exp': hourOf.expiresAt };
    const conditions: string[] = [];
    windows.forEach((w, i) => {
      names[`#c${i}`] = w.attr;
      values[`:cap${i}`] = capOf(w, share);
      conditions.push(`(attribute_not_exists(#c${i}) OR #c${i} < :cap${i})`);
    });
    let item: Record<string, unknown>;
    try {
      const out = await this.db.send(
        new UpdateCommand({
          TableName: this.table,
          Key: { pk: hourOf.pk },
          UpdateExpression: `ADD ${windows.map((_, i) => `#c${i} :one`).join(', ')} SET expiresAt = :exp`,
          ConditionExpression: conditions.join(' AND '),
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
          ReturnValues: 'ALL_NEW',
        }),
      );
      item = out.Attributes ?? {};
    } catch (err) {
      if (!isConditionFailed(err)) throw err;
      return this.fullOf(hourOf, windows, share);
    }
    for (const w of windows) this.known.set(knownKey(hourOf, w), Number(item[w.attr] ?? 0));
    if (minute && share !== 'safety') {
      const booked = Number(item[bookedAttr(minute.end - MINUTE)] ?? 0);
      if (booked > 0 && Number(item[minute.attr] ?? 0) > capOf(minute, share) - booked) {
        await this.giveBack(hourOf, windows);
        return minute;
      }
    }
    return TAKEN;
  }

  /** Which window refused a token, read back after the conditional update failed (the first full one). */
  private async fullOf(hourOf: HourItem, windows: Window[], share: BudgetShare): Promise<Window | typeof AGAIN> {
    const out = await this.db.send(
      new GetCommand({ TableName: this.table, Key: { pk: hourOf.pk }, ConsistentRead: true }),
    );
    const item = out.Item ?? {};
    for (const w of windows) {
      const n = Number(item[w.attr] ?? 0);
      this.known.set(knownKey(hourOf, w), n);
      if (n >= capOf(w, share)) return w;
    }
    // Freed between the write and the read: the caller asks again (never goes out uncounted).
    return AGAIN;
  }

  /**
   * Books the pause `part` will send at `at`: in that minute and the next (its retries), every caller but the
   * safety share leaves one token per booked pause. A hundred parts closing in one minute so get their hundred
   * pauses out even while a contact sync or polls would take every other token. Booking again changes nothing.
   * The hour's item keeps only a count per minute (the parts would make every take of a crowded hour a larger
   * write); the parts counted are kept beside it, counted first and recorded after, so a booking cut off between
   * the two is counted again the next time: one token more held back, never one less.
   */
  async book(part: string, at: number): Promise<void> {
    if (this.limits.perMinute <= 0) return;
    const first = Math.floor(at / MINUTE) * MINUTE;
    for (const m of [first, first + MINUTE]) {
      if (this.booked.get(m)?.has(part)) continue;
      const expires = Math.ceil((m + MINUTE) / 1000) + 3600;
      const record = await this.db.send(
        new GetCommand({ TableName: this.table, Key: { pk: bookingKey(m) }, ConsistentRead: true }),
      );
      if (!(record.Item?.parts as Set<string> | undefined)?.has(part)) {
        const counts = hourItem(m);
        await this.db.send(
          new UpdateCommand({
            TableName: this.table,
            Key: { pk: counts.pk },
            UpdateExpression: 'ADD #b :one SET expiresAt = :exp',
            ExpressionAttributeNames: { '#b': bookedAttr(m) },
            ExpressionAttributeValues: { ':one': 1, ':exp': counts.expiresAt },
          }),
        );
        await this.db.send(
          new UpdateCommand({
            TableName: this.table,
            Key: { pk: bookingKey(m) },
            UpdateExpression: 'ADD #parts :me SET expiresAt = :exp',
            ExpressionAttributeNames: { '#parts': 'parts' },
            ExpressionAttributeValues: { ':me': new Set([part]), ':exp': expires },
          }),
        );
      }
      const parts = this.booked.get(m) ?? new Set<string>();
      this.booked.set(m, parts.add(part));
    }
    // A warm container books for days: what it did for minutes long past is forgotten.
    for (const m of this.booked.keys()) if (m < first - HOUR) this.booked.delete(m);
  }

  async observe(headers: Headers, status: number): Promise<void> {
    const now = this.clock.now();
    const item = hourItem(now);
    const resetSeconds = Number(headers.get('x-ratelimit-reset'));
    const remaining = Number(headers.get('x-ratelimit-remaining') ?? Number.NaN);
    const limit = Number(headers.get('x-ratelimit-limit') ?? Number.NaN);
    const retryAfter = Number(headers.get('retry-after') ?? Number.NaN);
    const { minute, hour } = this.windows(now);
    // The window the service speaks of: the one its reset time closes.
    const resetAt = Number.isFinite(resetSeconds) && resetSeconds > 0 ? resetSeconds * 1000 : null;
    const named = resetAt === null || !hour || (minute && resetAt <= minute.end + 1000) ? (minute ?? hour) : hour;
    if (!named) return;
    if (status === 429 || remaining === 0) {
      await this.raise(item, named, named.limit);
      // A wait past the minute means the hour is spent.
      if (hour && named !== hour && Number.isFinite(retryAfter) && now + retryAfter * 1000 > (minute?.end ?? 0) + 1000)
        await this.raise(item, hour, hour.limit);
      return;
    }
    if (Number.isFinite(remaining) && Number.isFinite(limit) && limit > 0) {
      await this.raise(item, named, Math.min(named.limit, Math.max(0, named.limit - remaining)));
    }
  }

  private async giveBack(hourOf: HourItem, windows: Window[]): Promise<void> {
    await this.db.send(
      new UpdateCommand({
        TableName: this.table,
        Key: { pk: hourOf.pk },
        UpdateExpression: `ADD ${windows.map((_, i) => `#c${i} :minus`).join(', ')}`,
        ExpressionAttributeNames: Object.fromEntries(windows.map((w, i) => [`#c${i}`, w.attr])),
        ExpressionAttributeValues: { ':minus': -1 },
      }),
    );
    for (const w of windows) {
      const known = this.known.get(knownKey(hourOf, w));
      if (known !== undefined) this.known.set(knownKey(hourOf, w), known - 1);
    }
  }

  /** Raises a window's counter to at least `to` (never lowers it). */
  private async raise(hourOf: HourItem, w: Window, to: number): Promise<void> {
    const known = this.known.get(knownKey(hourOf, w));
    if (known !== undefined && known >= to) return;
    try {
      await this.db.send(
        new UpdateCommand({
          TableName: this.table,
          Key: { pk: hourOf.pk },
          UpdateExpression: 'SET #n = :to, expiresAt = :exp',
          ConditionExpression: 'attribute_not_exists(#n) OR #n < :to',
          ExpressionAttributeNames: { '#n': w.attr },
          ExpressionAttributeValues: { ':to': to, ':exp': hourOf.expiresAt },
        }),
      );
      this.known.set(knownKey(hourOf, w), to);
    } catch (err) {
      if (!isConditionFailed(err)) throw err;
    }
  }

  /** Tokens taken in the windows that hold `at` (for reports and tests). */
  async used(at: number): Promise<{ minute: number; hour: number }> {
    const out = await this.db.send(
      new GetCommand({ TableName: this.table, Key: { pk: hourItem(at).pk }, ConsistentRead: true }),
    );
    return {
      minute: Number(out.Item?.[minuteAttr(Math.floor(at / MINUTE) * MINUTE)] ?? 0),
      hour: Number(out.Item?.n ?? 0),
    };
  }
}
