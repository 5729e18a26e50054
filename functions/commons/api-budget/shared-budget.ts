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
  key: string;
  end: number;
  limit: number;
  /** What each share may not take of `limit`. */
  reserve: Record<BudgetShare, number>;
}

/**
 * One API budget for the whole account, in DynamoDB: a counter per fixed minute and per fixed hour (aligned like
 * the API's own windows, whose end `X-RateLimit-Reset` names), taken with one conditional update each, so any
 * number of Lambda containers together stay within the plan. The service's word wins: an answer with
 * `X-RateLimit-Remaining` raises the counter to what the service counted, and a 429 (or remaining 0) fills the
 * window it names until it resets, for every caller.
 */
export class SharedApiBudget {
  /** What this process last saw each window's counter at: saves writes that could not change anything. */
  private readonly known = new Map<string, number>();

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
    };
  }

  private windows(now: number): Window[] {
    const { perMinute, perHour, lifecycleReserve: life, safetyReserve: safe } = this.limits;
    const m = Math.floor(now / MINUTE) * MINUTE;
    const h = Math.floor(now / HOUR) * HOUR;
    const reserve = (lifecycle: number, safety: number) => ({
      safety: 0,
      lifecycle: safety,
      shared: safety + lifecycle,
    });
    const all: Window[] = [];
    if (perMinute > 0)
      all.push({
        key: `minute#${m}`,
        end: m + MINUTE,
        limit: perMinute,
        reserve: reserve(life.perMinute, safe.perMinute),
      });
    if (perHour > 0)
      all.push({ key: `hour#${h}`, end: h + HOUR, limit: perHour, reserve: reserve(life.perHour, safe.perHour) });
    return all;
  }

  async take(share: BudgetShare, maxWaitMs: number): Promise<void> {
    for (;;) {
      const now = this.clock.now();
      const taken: Window[] = [];
      let full: Window | null = null;
      for (const w of this.windows(now)) {
        const cap = Math.max(0, w.limit - w.reserve[share]);
        if (await this.increment(w, cap, share !== 'safety')) taken.push(w);
        else {
          full = w;
          break;
        }
      }
      if (!full) return;
      // Give back what was taken from the other windows: this request does not go out now.
      for (const w of taken) await this.decrement(w);
      const wait = full.end - now;
      if (wait > maxWaitMs) throw new BudgetExhaustedError(share, full.end);
      await this.clock.sleep(wait);
    }
  }

  async observe(headers: Headers, status: number): Promise<void> {
    const now = this.clock.now();
    const resetSeconds = Number(headers.get('x-ratelimit-reset'));
    const remaining = Number(headers.get('x-ratelimit-remaining') ?? Number.NaN);
    const limit = Number(headers.get('x-ratelimit-limit') ?? Number.NaN);
    const retryAfter = Number(headers.get('retry-after') ?? Number.NaN);
    const windows = this.windows(now);
    const [minute, hour] = [
      windows.find((w) => w.key.startsWith('minute#')),
      windows.find((w) => w.key.startsWith('hour#')),
    ];
    // The window the service speaks of: the one its reset time closes.
    const resetAt = Number.isFinite(resetSeconds) && resetSeconds > 0 ? resetSeconds * 1000 : null;
    const named = resetAt === null || !hour || (minute && resetAt <= minute.end + 1000) ? (minute ?? hour) : hour;
    if (!named) return;
    if (status === 429 || remaining === 0) {
      await this.raise(named, named.limit);
      // A wait past the minute means the hour is spent.
      if (hour && named !== hour && Number.isFinite(retryAfter) && now + retryAfter * 1000 > (minute?.end ?? 0) + 1000)
        await this.raise(hour, hour.limit);
      return;
    }
    if (Number.isFinite(remaining) && Number.isFinite(limit) && limit > 0) {
      await this.raise(named, Math.min(named.limit, Math.max(0, named.limit - remaining)));
    }
  }

  /**
   * Takes one token of `w` if fewer than `cap` are taken. `leaveBooked`: also leave one for each pause booked in
   * this minute (`book`), learnt from the same write; a token that turns out to be one of theirs is given back.
   */
  private async increment(w: Window, cap: number, leaveBooked: boolean): Promise<boolean> {
    if ((this.known.get(w.key) ?? 0) >= w.limit) return false;
    try {
      const out = await this.db.send(
        new UpdateCommand({
          TableName: this.table,
          Key: { pk: w.key },
          UpdateExpression: 'ADD #n :one SET expiresAt = :exp',
          ConditionExpression: 'attribute_not_exists(#n) OR #n < :cap',
          ExpressionAttributeNames: { '#n': 'n' },
          ExpressionAttributeValues: { ':one': 1, ':cap': cap, ':exp': Math.ceil(w.end / 1000) + 3600 },
          ReturnValues: 'ALL_NEW',
        }),
      );
      const n = Number(out.Attributes?.n ?? 0);
      this.known.set(w.key, n);
      const booked = (out.Attributes?.booked as Set<string> | undefined)?.size ?? 0;
      if (leaveBooked && booked > 0 && n > cap - booked) {
        await this.decrement(w);
        return false;
      }
      return true;
    } catch (err) {
      if (isConditionFailed(err)) return false;
      throw err;
    }
  }

  /**
   * Books the pause `part` will send at `at`: in that minute and the next (its retries), every caller but the
   * safety share leaves one token per booked pause. A hundred parts closing in one minute so get their hundred
   * pauses out even while a contact sync or polls would take every other token. Booking again changes nothing.
   */
  async book(part: string, at: number): Promise<void> {
    if (this.limits.perMinute <= 0) return;
    const first = Math.floor(at / MINUTE) * MINUTE;
    for (const m of [first, first + MINUTE])
      await this.db.send(
        new UpdateCommand({
          TableName: this.table,
          Key: { pk: `minute#${m}` },
          UpdateExpression: 'ADD #booked :me SET expiresAt = :exp',
          ExpressionAttributeNames: { '#booked': 'booked' },
          ExpressionAttributeValues: { ':me': new Set([part]), ':exp': Math.ceil((m + MINUTE) / 1000) + 3600 },
        }),
      );
  }

  private async decrement(w: Window): Promise<void> {
    await this.db.send(
      new UpdateCommand({
        TableName: this.table,
        Key: { pk: w.key },
        UpdateExpression: 'ADD #n :minus',
        ExpressionAttributeNames: { '#n': 'n' },
        ExpressionAttributeValues: { ':minus': -1 },
      }),
    );
    const known = this.known.get(w.key);
    if (known !== undefined) this.known.set(w.key, known - 1);
  }

  /** Raises a window's counter to at least `to` (never lowers it). */
  private async raise(w: Window, to: number): Promise<void> {
    const known = this.known.get(w.key);
    if (known !== undefined && known >= to) return;
    try {
      await this.db.send(
        new UpdateCommand({
          TableName: this.table,
          Key: { pk: w.key },
          UpdateExpression: 'SET #n = :to, expiresAt = :exp',
          ConditionExpression: 'attribute_not_exists(#n) OR #n < :to',
          ExpressionAttributeNames: { '#n': 'n' },
          ExpressionAttributeValues: { ':to': to, ':exp': Math.ceil(w.end / 1000) + 3600 },
        }),
      );
      this.known.set(w.key, to);
    } catch (err) {
      if (!isConditionFailed(err)) throw err;
    }
  }

  /** Tokens taken in the windows that hold `at` (for reports and tests). */
  async used(at: number): Promise<{ minute: number; hour: number }> {
    const read = async (key: string) =>
      Number(
        (await this.db.send(new GetCommand({ TableName: this.table, Key: { pk: key }, ConsistentRead: true }))).Item
          ?.n ?? 0,
      );
    return {
      minute: await read(`minute#${Math.floor(at / MINUTE) * MINUTE}`),
      hour: await read(`hour#${Math.floor(at / HOUR) * HOUR}`),
    };
  }
}
