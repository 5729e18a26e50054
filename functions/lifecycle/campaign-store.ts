import { type DynamoDBDocumentClient, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { batchGetAll } from '#commons/aws/batch.ts';
import { isConditionFailed } from '#commons/aws/conditional-write.ts';
import { queryAll, scanAll } from '#commons/aws/scan-all.ts';
import type { FollowUpStarted } from '#commons/part-outcomes.ts';
import { TABLES } from '#commons/tables.ts';
import type { PartWindow } from '#commons/window-plan.ts';
import type { BrakeRegister } from './campaign-safety.ts';

export type ManualControl = 'pause' | 'resume' | 'cancel';

export interface TimelineEntry {
  at: string;
  event: 'pause' | 'resume' | 'brake' | 'brake released' | 'secured';
  reason: 'window' | 'manual' | 'cancel' | string;
}

/**
 * What the workflow last saw and when it means to look again: the sweeper checks every running part against it
 * (window closed, execution gone, look overdue) without asking the workflow.
 */
export interface Watch {
  execution: string;
  agentId: string;
  campaignId: string | null;
  window: PartWindow;
  observedAt: string;
  nextLookAt: string;
  /** The campaign was confirmed not dialling at the last look. */
  quiet: boolean;
  /**
   * Quiet only until then: a campaign scheduled for a later start dials from that start on its own, so from then
   * the sweeper checks it as dialling (`quietAt`). Absent or null: quiet until someone acts (paused, braked).
   */
  quietUntil?: string | null;
  /**
   * When a resume was sent whose answer was lost (the carry's `resumeInDoubt`): the campaign may start dialling at
   * any time, so the part is not quiet unless a brake holds, and whoever secures it brakes as well.
   */
  resumeInDoubt?: string;
  /**
   * The campaign's counts as the API gave them at the last look it answered: what an operator's status and the
   * local report pages show without spending the account's API plan on it (see `progressOf`).
   */
  counts?: WatchCounts | null;
  /** Contacts done of all, as records written before `counts` keep it; `progressOf` reads either. */
  progress?: { done: number; total: number } | null;
}

/** Whether the campaign counts as not dialling at `now`: quiet at its last look, and not past its scheduled start. */
export function quietAt(watch: Pick<Watch, 'quiet' | 'quietUntil'>, now: number): boolean {
  return watch.quiet && !(watch.quietUntil && now >= Date.parse(watch.quietUntil));
}

/** Contacts done (neither pending nor in progress) of all, at the workflow's last answered look. */
export function progressOf(watch: Watch | null | undefined): { done: number; total: number } | null {
  const c = watch?.counts;
  if (c) return { done: c.total - c.pending - c.in_progress, total: c.total };
  return watch?.progress ?? null;
}

export interface WatchCounts {
  total: number;
  completed: number;
  failed: number;
  pending: number;
  in_progress: number;
}

/** A safety action taken from outside the loop (guard, sweeper, SecureCampaign). */
export interface Secured {
  at: string;
  by: string;
  outcome: string;
  reason: string;
  /**
   * False when only the brake keeps the campaign from dialling (its pause failed): the sweeper tries the pause again
   * every third sweep while the part is ended. Absent in records written before it was kept.
   */
  pauseHeld?: boolean;
}

/** Everything callsheet knows about one part's campaign, kept outside the execution so it survives it. */
export interface CampaignRecord {
  pk: string;
  partKey: string;
  uploadId: string;
  part: number;
  status: 'creating' | 'running' | 'completed' | 'cancelled' | 'failed' | 'held';
  campaignId?: string;
  /**
   * The create call: `sent` before the request goes out, then `created`, `clear` (the API answered with an error,
   * so nothing was made) or `ambiguous` (the answer was lost). A `sent` left behind by a crash counts as ambiguous.
   */
  create?: { attempt: number; state: 'sent' | 'ambiguous' | 'created' | 'clear'; sentAt: string };
  control?: { wanted: ManualControl; at: string };
  timeline?: TimelineEntry[];
  failure?: { code: string; message: string };
  startedAt?: string;
  finishedAt?: string;
  watch?: Watch;
  secured?: Secured;
  /**
   * When the workflow last sent a resume, written before it goes out (`noteResumeSent`) and never by a look: a
   * resume in doubt is dated by the first lost one (`watch.resumeInDoubt`), but a later one may be lost too, and
   * `campaign release` waits out the latest.
   */
  lastResumeSentAt?: string;
  /** On a root part's record: every follow-up round started after it, by the round's part key. */
  followUpRounds?: Record<string, FollowUpStarted>;
}

/** A part ended (by its workflow, or by the guard first): no step may create, resume or release anything for it. */
export const isEnded = (record: Pick<CampaignRecord, 'status'>): boolean =>
  record.status === 'completed' ||
  record.status === 'cancelled' ||
  record.status === 'failed' ||
  record.status === 'held';

const partPk = (partKey: string) => `part#${partKey}`;
const [BY_STATUS, BY_END_DAY] = TABLES.campaigns.indexes.map((i) => i.name) as [string, string];

/**
 * A part that ended without completing, as the `by-end-day` index holds it: its campaign (paused, its contacts not
 * all called) is watched by the sweeper for `ENDED_WATCH_DAYS` (safety-net/call-watch.ts).
 */
export type EndedPart = Pick<CampaignRecord, 'partKey' | 'status' | 'campaignId' | 'finishedAt' | 'secured'>;
/** The day (UTC) a part ended, as `endedDay` holds it. */
const dayOf = (at: Date | number): string => new Date(at).toISOString().slice(0, 10);

/** A write's condition, with the names and values it uses. */
interface Condition {
  expression: string;
  names: Record<string, string>;
  values: Record<string, unknown>;
}
/** A part whose workflow has not ended. */
const LIVE_STATUSES = ['creating', 'running'] as const;
/** The part lives (or has no status yet): what a create, or marking one made, may write on. */
const LIVE: Condition = {
  expression: `(attribute_not_exists(#status) OR #status IN (${LIVE_STATUSES.map((s) => `:${s}`).join(', ')}))`,
  names: { '#status': 'status' },
  values: Object.fromEntries(LIVE_STATUSES.map((s) => [`:${s}`, s])),
};
/** Ended parts the sweeper may still have to secure (`unfinished` with `unconfirmed`). */
const ENDED_UNSETTLED = ['failed', 'cancelled'] as const;
type ListedStatus = (typeof LIVE_STATUSES)[number] | (typeof ENDED_UNSETTLED)[number];

/**
 * Which parts of a status `unfinished` lists, as DynamoDB filters them (`filter`, on the index's attributes) and as
 * a record read back is asked again (`test`): the two say the same.
 */
const LISTED: Record<ListedStatus, { filter?: Condition; test: (secured: Secured | undefined) => boolean }> = {
  creating: { test: () => true },
  running: { test: () => true },
  failed: {
    filter: {
      expression: '(#secured.#outcome = :unconfirmed OR #secured.#pauseHeld = :no)',
      names: { '#secured': 'secured', '#outcome': 'outcome', '#pauseHeld': 'pauseHeld' },
      values: { ':unconfirmed': 'unconfirmed', ':no': false },
    },
    test: (s) => s?.outcome === 'unconfirmed' || s?.pauseHeld === false,
  },
  cancelled: {
    filter: {
      expression: '#secured.#pauseHeld = :no',
      names: { '#secured': 'secured', '#pauseHeld': 'pauseHeld' },
      values: { ':no': false },
    },
    test: (s) => s?.pauseHeld === false,
  },
};

const isUnfinished = (r: CampaignRecord, statuses: readonly ListedStatus[]): boolean =>
  r.pk.startsWith('part#') &&
  (statuses as readonly string[]).includes(r.status) &&
  LISTED[r.status as ListedStatus].test(r.secured);

/**
 * The index is missing (a table made before it) or not yet readable (DynamoDB still backfilling it after the deploy
 * that added it): both answer a ValidationException naming the index.
 */
const isIndexUnavailable = (err: unknown): boolean =>
  (err as Error)?.name === 'ValidationException' && /index/i.test((err as Error).message);

/** What `read` answers through an index, or null (`scanned` told why) when the index cannot be read. */
async function viaIndex<T>(read: () => Promise<T>, scanned?: (why: string) => void): Promise<T | null> {
  try {
    return await read();
  } catch (err) {
    if (!isIndexUnavailable(err)) throw err;
    scanned?.((err as Error).message);
    return null;
  }
}

/** Recorded rounds in part-key order, each with its fields in one order (DynamoDB keeps no order in a map). */
const roundsInOrder = (rounds: Record<string, FollowUpStarted> | undefined): FollowUpStarted[] =>
  Object.values(rounds ?? {})
    .map((r) => ({
      round: r.round,
      partKey: r.partKey,
      outcomes: r.outcomes,
      contacts: r.contacts,
      notBefore: r.notBefore,
      sheet: r.sheet,
      report: r.report,
    }))
    .sort((a, b) => a.partKey.localeCompare(b.partKey));
const campaignPk = (campaignId: string) => `campaign#${campaignId}`;
const brakePk = (agentId: string) => `brake#${agentId}`;
/** The parts a brake item names as holding it, in order. */
const holdersIn = (item: Record<string, unknown> | undefined): string[] =>
  [...((item?.holders as Set<string> | undefined) ?? [])].sort();

/**
 * The campaigns table. A part's record is written before and after each create call (intent, then result), so a
 * retried or re-driven step finds the campaign it already made. Single-item conditional writes only.
 */
export class CampaignStore implements BrakeRegister {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly table: string,
  ) {}

  async get(partKey: string): Promise<CampaignRecord | null> {
    const out = await this.db.send(
      new GetCommand({ TableName: this.table, Key: { pk: partPk(partKey) }, ConsistentRead: true }),
    );
    return (out.Item as CampaignRecord | undefined) ?? null;
  }

  /** Many parts' records, 100 to a read: the ones found, by part key (from the item's key: older records lack it). */
  async getMany(partKeys: readonly string[]): Promise<Map<string, CampaignRecord>> {
    const items = await batchGetAll(
      this.db,
      this.table,
      partKeys.map((k) => ({ pk: partPk(k) })),
      'campaign parts',
    );
    return new Map(items.map((item) => [String(item.pk).slice(partPk('').length), item as unknown as CampaignRecord]));
  }

  async partOfCampaign(campaignId: string): Promise<string | null> {
    const out = await this.db.send(
      new GetCommand({ TableName: this.table, Key: { pk: campaignPk(campaignId) }, ConsistentRead: true }),
    );
    return (out.Item?.partKey as string | undefined) ?? null;
  }

  /**
   * Records the intent to create. `mayCreate` is false when a campaign is recorded or an earlier attempt may have
   * made one: then the caller must find it instead of creating another. `watch`: the create as a look the sweeper
   * checks, so a workflow that dies between the create and its first look is found (workflow gone, look overdue).
   */
  async beginCreate(
    partKey: string,
    uploadId: string,
    part: number,
    now: Date,
    watch?: Watch,
  ): Promise<{ mayCreate: boolean; record: CampaignRecord }> {
    try {
      const record = await this.set(
        partKey,
        {
          '#upload': uploadId,
          '#part': part,
          '#status': 'creating',
          '#create': { attempt: now.getTime(), state: 'sent', sentAt: now.toISOString() },
          ...(watch ? { '#watch': watch } : {}),
        },
        { '#upload': 'uploadId', '#part': 'part', '#create': 'create', ...(watch ? { '#watch': 'watch' } : {}) },
        {
          keep: { '#started': ['startedAt', now.toISOString()] },
          answer: 'ALL_NEW',
          // Nor for a part already ended (its workflow stopped and the guard ended it before this step got here).
          condition: {
            expression: `attribute_not_exists(#campaignId) AND (attribute_not_exists(#create) OR #create.#state = :clear) AND ${LIVE.expression}`,
            names: { ...LIVE.names, '#campaignId': 'campaignId', '#create': 'create', '#state': 'state' },
            values: { ...LIVE.values, ':clear': 'clear' },
          },
        },
      );
      return { mayCreate: true, record: record as CampaignRecord };
    } catch (err) {
      if (!isConditionFailed(err)) throw err;
      return { mayCreate: false, record: (await this.get(partKey)) as CampaignRecord };
    }
  }

  async markCreate(partKey: string, state: 'ambiguous' | 'clear'): Promise<void> {
    await this.set(partKey, { '#create.#state': state }, { '#create': 'create', '#state': 'state' });
  }

  /**
   * Records the created campaign and a pointer from its id, so operators can address it by campaign id. Answers
   * false when the part was ended meanwhile (the guard ends a part before it secures it): the id is recorded, the
   * part stays ended, and the caller must secure the campaign it just made.
   */
  async created(partKey: string, campaignId: string): Promise<boolean> {
    await this.db.send(new PutCommand({ TableName: this.table, Item: { pk: campaignPk(campaignId), partKey } }));
    const made = { '#campaignId': campaignId, '#create.#state': 'created' };
    const names = { '#campaignId': 'campaignId', '#create': 'create', '#state': 'state' };
    try {
      await this.set(partKey, { ...made, '#status': 'running' }, { ...names, ...LIVE.names }, { condition: LIVE });
      return true;
    } catch (err) {
      if (!isConditionFailed(err)) throw err;
    }
    await this.set(partKey, made, names);
    return false;
  }

  /**
   * Records an operator's wish on a live part; answers false, writing nothing, when the part has ended or a cancel
   * is already asked for and this is not one (a cancel is final: a resume written over it would dial the list).
   */
  async setControl(partKey: string, wanted: ManualControl, now: Date): Promise<boolean> {
    const notCancelled = {
      expression: '(attribute_not_exists(#control) OR #control.#wanted <> :cancel)',
      names: { '#wanted': 'wanted' },
      values: { ':cancel': 'cancel' },
    };
    const condition: Condition =
      wanted === 'cancel'
        ? LIVE
        : {
            expression: `${LIVE.expression} AND ${notCancelled.expression}`,
            names: { ...LIVE.names, ...notCancelled.names },
            values: { ...LIVE.values, ...notCancelled.values },
          };
    try {
      await this.set(
        partKey,
        { '#control': { wanted, at: now.toISOString() } },
        { '#control': 'control' },
        { condition },
      );
      return true;
    } catch (err) {
      if (!isConditionFailed(err)) throw err;
      return false;
    }
  }

  async appendTimeline(partKey: string, entry: TimelineEntry): Promise<void> {
    await this.db.send(
      new UpdateCommand({
        TableName: this.table,
        Key: { pk: partPk(partKey) },
        UpdateExpression: 'SET #timeline = list_append(if_not_exists(#timeline, :empty), :entry)',
        ExpressionAttributeNames: { '#timeline': 'timeline' },
        ExpressionAttributeValues: { ':empty': [], ':entry': [entry] },
      }),
    );
  }

  /**
   * The part's end. A part may end before it ever recorded a create (its launch failed), so the record is made
   * whole here: its key always, and which upload and part it is when the caller knows (kept if already there).
   * Answers the record as the end left it: what a step wrote before the end is in it.
   */
  async finish(
    partKey: string,
    status: 'completed' | 'cancelled' | 'failed' | 'held',
    now: Date,
    failure?: { code: string; message: string },
    of?: { uploadId: string; part: number },
    securing?: Secured,
  ): Promise<CampaignRecord> {
    // A completed campaign has nobody left to call; any other ended part's campaign is watched for a while (one
    // that completes after the guard failed it leaves the watch).
    const watched = status !== 'completed';
    return (await this.set(
      partKey,
      {
        '#status': status,
        '#finished': now.toISOString(),
        ...(watched ? { '#endedDay': dayOf(now) } : {}),
        ...(failure ? { '#failure': failure } : {}),
        ...(securing ? { '#secured': securing } : {}),
      },
      {
        '#status': 'status',
        '#finished': 'finishedAt',
        '#endedDay': 'endedDay',
        ...(failure ? { '#failure': 'failure' } : {}),
        ...(securing ? { '#secured': 'secured' } : {}),
      },
      {
        keep: of ? { '#upload': ['uploadId', of.uploadId], '#part': ['part', of.part] } : {},
        remove: watched ? [] : ['#endedDay'],
        answer: 'ALL_NEW',
      },
    )) as CampaignRecord;
  }

  /** What the workflow saw at this look; the sweeper reads it. */
  async observe(partKey: string, watch: Watch): Promise<void> {
    await this.set(partKey, { '#watch': watch }, { '#watch': 'watch' });
  }

  /**
   * Marks the last look as not quiet, with a resume in doubt, before the resume is sent: should the step not get to
   * record its look (a crash, a retry with the carry from before it, the execution stopped), the retried step, the
   * guard and the sweeper still know a resume may land. The step's own look then says what came of it.
   */
  async noteResumeSent(partKey: string, at: string): Promise<void> {
    try {
      await this.set(
        partKey,
        { '#watch.#doubt': at, '#watch.#quiet': false, '#lastResume': at },
        { '#watch': 'watch', '#doubt': 'resumeInDoubt', '#quiet': 'quiet', '#lastResume': 'lastResumeSentAt' },
        { condition: { expression: 'attribute_exists(#watch)', names: {}, values: {} } },
      );
    } catch (err) {
      // No look recorded yet: nobody reads one before the step records its own.
      if (!isConditionFailed(err)) throw err;
    }
  }

  /**
   * Records a safety action. `quietLook`, the look the action was decided on, is also marked as confirmed not
   * dialling, but only while it is still the last look: one the workflow made meanwhile says for itself whether the
   * campaign dials (it may have resumed it), and a quiet flag there would turn the sweeper's checks off until the
   * workflow's next look.
   */
  async markSecured(partKey: string, secured: Secured, quietLook?: Watch): Promise<void> {
    if (quietLook) {
      try {
        // Confirmed paused or braked: quiet until someone acts, whatever start the campaign was scheduled for.
        await this.set(
          partKey,
          { '#secured': secured, '#watch.#quiet': true, '#watch.#until': null },
          { '#secured': 'secured', '#watch': 'watch', '#quiet': 'quiet', '#until': 'quietUntil' },
          {
            condition: {
              expression: '#watch.#execution = :execution AND #watch.#observedAt = :observedAt',
              names: { '#watch': 'watch', '#execution': 'execution', '#observedAt': 'observedAt' },
              values: { ':execution': quietLook.execution, ':observedAt': quietLook.observedAt },
            },
          },
        );
        return;
      } catch (err) {
        if (!isConditionFailed(err)) throw err;
      }
    }
    await this.set(partKey, { '#secured': secured }, { '#secured': 'secured' });
  }

  /**
   * Records follow-up rounds started after a root part, each under its own key in the root's record, so the ends
   * of two rounds adding theirs at once never overwrite each other; answers every round recorded. A root without a
   * record (never in a deployed stack: its campaign ran) gets none, and the rounds given are answered.
   */
  async addFollowUpRounds(rootPartKey: string, rounds: FollowUpStarted[]): Promise<FollowUpStarted[]> {
    const key = { pk: partPk(rootPartKey) };
    try {
      await this.db.send(
        new UpdateCommand({
          TableName: this.table,
          Key: key,
          UpdateExpression: 'SET #rounds = if_not_exists(#rounds, :none)',
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeNames: { '#rounds': 'followUpRounds' },
          ExpressionAttributeValues: { ':none': {} },
        }),
      );
    } catch (err) {
      if (!isConditionFailed(err)) throw err;
      return roundsInOrder(Object.fromEntries(rounds.map((r) => [r.partKey, r])));
    }
    if (rounds.length === 0) return this.followUpRounds(rootPartKey);
    const out = await this.db.send(
      new UpdateCommand({
        TableName: this.table,
        Key: key,
        UpdateExpression: `SET ${rounds.map((_, i) => `#rounds.#k${i} = :v${i}`).join(', ')}`,
        ExpressionAttributeNames: {
          '#rounds': 'followUpRounds',
          ...Object.fromEntries(rounds.map((r, i) => [`#k${i}`, r.partKey])),
        },
        ExpressionAttributeValues: Object.fromEntries(rounds.map((r, i) => [`:v${i}`, r])),
        ReturnValues: 'ALL_NEW',
      }),
    );
    return roundsInOrder((out.Attributes as CampaignRecord | undefined)?.followUpRounds);
  }

  /** Every follow-up round recorded under a root part, by part key. */
  async followUpRounds(rootPartKey: string): Promise<FollowUpStarted[]> {
    return roundsInOrder((await this.get(rootPartKey))?.followUpRounds);
  }

  /**
   * Parts whose workflow has not ended; with `unconfirmed`, also failed parts whose last securing was not confirmed,
   * and failed or cancelled ones it left held by the brake alone (`pauseHeld` false), which the sweeper tries again
   * until the pause holds. Otherwise only failed ones: a part its workflow ended completed, cancelled or held is as
   * its workflow left it (an unconfirmed securing from earlier in its life says nothing about it now), and the guard
   * too leaves those alone; the sweeper watches only their campaigns' calls, for a week (`endedAfter`).
   *
   * Asked of the `by-status` index, one query per status, so a sweep reads the parts that may need it, not every
   * part ever run; each part named is then read from the table (the index may lag it) and asked again. A table whose
   * index is missing or still being built (the first deploy after an upgrade backfills it) is scanned instead, and
   * `scanned` is told why.
   */
  async unfinished(
    options: { unconfirmed?: boolean; scanned?: (why: string) => void } = {},
  ): Promise<CampaignRecord[]> {
    const statuses = options.unconfirmed ? [...LIVE_STATUSES, ...ENDED_UNSETTLED] : LIVE_STATUSES;
    const records = await this.partsWithStatus(statuses, options.scanned);
    return records.filter((r) => isUnfinished(r, statuses)).sort((a, b) => a.pk.localeCompare(b.pk));
  }

  /** The parts `unfinished` may list, from the index (each read from the table) or, without it, from a scan. */
  private async partsWithStatus(
    statuses: readonly ListedStatus[],
    scanned?: (why: string) => void,
  ): Promise<CampaignRecord[]> {
    const lists = await viaIndex(() => Promise.all(statuses.map((status) => this.keysWithStatus(status))), scanned);
    if (!lists) return this.scanUnfinished(statuses);
    // A part whose status changed while the index was read (or whose old entry the index still holds) is named
    // twice, and a BatchGetItem naming a key twice is refused whole.
    const keys = [...new Set(lists.flat().map((k) => k.pk))].map((pk) => ({ pk }));
    return (await batchGetAll(this.db, this.table, keys, 'unfinished parts')) as unknown as CampaignRecord[];
  }

  /**
   * The parts that ended without completing from `since` on (by their end day, UTC), each with its status, campaign,
   * end and last securing, from the `by-end-day` index: one query per day. A table without the index yet (its
   * backfill after the deploy that added it, or a local table kept from before it) is scanned instead, and `scanned`
   * is told why.
   */
  async endedAfter(since: Date, now: Date, scanned?: (why: string) => void): Promise<EndedPart[]> {
    const days: string[] = [];
    for (let t = Date.parse(`${dayOf(since)}T00:00:00Z`); t <= now.getTime(); t += 86_400_000) days.push(dayOf(t));
    type Listed = Omit<EndedPart, 'partKey'> & { pk: string };
    const names = { '#day': 'endedDay', '#status': 'status', '#campaign': 'campaignId', '#finished': 'finishedAt' };
    const projection = 'pk, #status, #campaign, #finished, secured';
    const indexed = await viaIndex(
      () =>
        Promise.all(
          days.map((day) =>
            queryAll<Listed>(this.db, {
              TableName: this.table,
              IndexName: BY_END_DAY,
              KeyConditionExpression: '#day = :day',
              ProjectionExpression: projection,
              ExpressionAttributeNames: names,
              ExpressionAttributeValues: { ':day': day },
            }),
          ),
        ),
      scanned,
    );
    const parts =
      indexed?.flat() ??
      (await scanAll<Listed>(this.db, {
        TableName: this.table,
        FilterExpression: `#day IN (${days.map((_, i) => `:d${i}`).join(', ')})`,
        ProjectionExpression: projection,
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: Object.fromEntries(days.map((day, i) => [`:d${i}`, day])),
      }));
    // A part ended twice on two days (a guard, then its workflow's last step) may be named under both by an index
    // that lags it.
    const from = since.getTime();
    const byKey = new Map(parts.map(({ pk, ...part }) => [pk, { ...part, partKey: pk.slice(partPk('').length) }]));
    return [...byKey]
      .filter(([pk, p]) => pk.startsWith(partPk('')) && Date.parse(p.finishedAt ?? '') >= from)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([, p]) => p);
  }

  private keysWithStatus(status: ListedStatus): Promise<{ pk: string }[]> {
    const filter = LISTED[status].filter;
    // Only parts have a status: their keys are read back and checked (`isUnfinished`) as they are.
    return queryAll<{ pk: string }>(this.db, {
      TableName: this.table,
      IndexName: BY_STATUS,
      KeyConditionExpression: '#status = :status',
      ...(filter && { FilterExpression: filter.expression }),
      ProjectionExpression: 'pk',
      ExpressionAttributeNames: { '#status': 'status', ...filter?.names },
      ExpressionAttributeValues: { ':status': status, ...filter?.values },
    });
  }

  /** `unfinished` without the index: every item of the table read, DynamoDB's filter asking what the index would. */
  private async scanUnfinished(statuses: readonly ListedStatus[]): Promise<CampaignRecord[]> {
    const names: Record<string, string> = { '#status': 'status' };
    const values: Record<string, unknown> = { ':part': 'part#' };
    const each = statuses.map((status, i) => {
      const filter = LISTED[status].filter;
      Object.assign(names, filter?.names);
      Object.assign(values, filter?.values, { [`:s${i}`]: status });
      return filter ? `(#status = :s${i} AND ${filter.expression})` : `#status = :s${i}`;
    });
    return scanAll<CampaignRecord>(this.db, {
      TableName: this.table,
      FilterExpression: `begins_with(pk, :part) AND (${each.join(' OR ')})`,
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: values,
    });
  }

  async hold(agentId: string, holder: string, now: Date): Promise<boolean> {
    const out = await this.db.send(
      new UpdateCommand({
        TableName: this.table,
        Key: { pk: brakePk(agentId) },
        UpdateExpression: 'ADD #holders :holder SET #since = if_not_exists(#since, :now)',
        ExpressionAttributeNames: { '#holders': 'holders', '#since': 'since' },
        ExpressionAttributeValues: { ':holder': new Set([holder]), ':now': now.toISOString() },
        ReturnValues: 'UPDATED_OLD',
      }),
    );
    return !(out.Attributes?.holders as Set<string> | undefined)?.has(holder);
  }

  async release(agentId: string, holder: string): Promise<number> {
    const out = await this.db.send(
      new UpdateCommand({
        TableName: this.table,
        Key: { pk: brakePk(agentId) },
        UpdateExpression: 'DELETE #holders :holder',
        ExpressionAttributeNames: { '#holders': 'holders' },
        ExpressionAttributeValues: { ':holder': new Set([holder]) },
        ReturnValues: 'ALL_NEW',
      }),
    );
    return (out.Attributes?.holders as Set<string> | undefined)?.size ?? 0;
  }

  async isHeldBy(agentId: string, holder: string): Promise<boolean> {
    const out = await this.db.send(
      new GetCommand({ TableName: this.table, Key: { pk: brakePk(agentId) }, ConsistentRead: true }),
    );
    return (out.Item?.holders as Set<string> | undefined)?.has(holder) ?? false;
  }

  async holders(agentId: string): Promise<number> {
    return (await this.holdersOf(agentId)).length;
  }

  /** The parts that hold the brake on `agentId` (its campaigns dial nobody while any does), by part key. */
  async holdersOf(agentId: string): Promise<string[]> {
    const out = await this.db.send(
      new GetCommand({ TableName: this.table, Key: { pk: brakePk(agentId) }, ConsistentRead: true }),
    );
    return holdersIn(out.Item);
  }

  /** `holdersOf` for many agents, 100 to a read (an agent whose brake nobody holds: no holders). */
  async holdersOfMany(agentIds: Iterable<string>): Promise<Map<string, string[]>> {
    const ids = [...new Set(agentIds)];
    const items = await batchGetAll(
      this.db,
      this.table,
      ids.map((id) => ({ pk: brakePk(id) })),
      'brakes',
    );
    const held = new Map(ids.map((id) => [id, [] as string[]]));
    for (const item of items) held.set(String(item.pk).slice(brakePk('').length), holdersIn(item));
    return held;
  }

  /**
   * Every write to a part's record names its key, so a record some path creates before the launch wrote it (an
   * early end, a guard, an operator's wish) is still listed by it. `keep`: attributes set only where missing;
   * `condition`: the write is refused (ConditionalCheckFailed) unless it holds; `answer`: the record after it.
   */
  private async set(
    partKey: string,
    values: Record<string, unknown>,
    names: Record<string, string>,
    options: {
      keep?: Record<string, [name: string, value: unknown]>;
      /** Attributes removed, by their names' placeholders in `names`. */
      remove?: string[];
      answer?: 'ALL_NEW' | 'NONE';
      condition?: Condition;
    } = {},
  ): Promise<CampaignRecord | undefined> {
    const entries = Object.entries({ '#partKey': partKey, ...values });
    const kept = Object.entries(options.keep ?? {});
    const { condition, remove = [] } = options;
    const out = await this.db.send(
      new UpdateCommand({
        TableName: this.table,
        Key: { pk: partPk(partKey) },
        UpdateExpression: `SET ${[
          ...entries.map(([path], i) => `${path} = :v${i}`),
          ...kept.map(([name], i) => `${name} = if_not_exists(${name}, :k${i})`),
        ].join(', ')}${remove.length > 0 ? ` REMOVE ${remove.join(', ')}` : ''}`,
        ExpressionAttributeNames: {
          '#partKey': 'partKey',
          ...names,
          ...Object.fromEntries(kept.map(([name, [attr]]) => [name, attr])),
          ...condition?.names,
        },
        ExpressionAttributeValues: {
          ...Object.fromEntries(entries.map(([, v], i) => [`:v${i}`, v])),
          ...Object.fromEntries(kept.map(([, [, v]], i) => [`:k${i}`, v])),
          ...condition?.values,
        },
        ...(condition ? { ConditionExpression: condition.expression } : {}),
        ReturnValues: options.answer ?? 'NONE',
      }),
    );
    return out.Attributes as CampaignRecord | undefined;
  }
}
