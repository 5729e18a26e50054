import { type DynamoDBDocumentClient, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { batchGetAll } from '../aws/batch.ts';
import { eachConcurrently } from '../concurrently.ts';
import type { CallOutcome } from './call-outcome.ts';

const callPk = (callId: string) => `call#${callId}`;
/** A campaign's index: the set of its call ids (1000 contacts × 4 attempts stay far below DynamoDB's item size). */
const campaignPk = (campaignId: string) => `campaign#${campaignId}`;
/** A call event whose call the Voice API does not know: kept for an operator, never part of an outcome. */
const unknownCallPk = (callId: string) => `unknown-call#${callId}`;
/** Unknown-call records expire after this long where the table has TTL on `expiresAt`. */
const UNKNOWN_KEEP_SECONDS = 90 * 24 * 3600;
/** Merges of one page of the calls list in flight at once (each a single-item write; see `recordMany`). */
const MERGE_CONCURRENCY = 10;

/** A call event that named a call the Voice API answered 404 for (`unknown-call#<id>` in the outcomes table). */
export interface UnknownCallRecord {
  callId: string;
  event: string;
  campaignId: string | null;
  /** The event's own time, as sent. */
  eventAt: string;
  firstSeenAt: string;
  lastSeenAt: string;
  /** How many deliveries named it (a redelivery or a second event of the same call adds one). */
  deliveries: number;
}

/**
 * Call outcomes in the outcomes table, one item per call (`call#<id>`) and one index per campaign
 * (`campaign#<id>`, a set of call ids; adding to a set is idempotent), and notes of events for calls the API does
 * not know (`unknown-call#<id>`). Recording merges: a field already known
 * is never overwritten by a null, so a late webhook cannot erase what the calls list filled in, and recording the
 * same call twice changes nothing.
 */
export class OutcomeStore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly table: string,
  ) {}

  async record(outcome: CallOutcome): Promise<void> {
    await this.updateCall(outcome);
    if (outcome.campaignId) await this.index(outcome.campaignId, [outcome.callId]);
  }

  private async index(campaignId: string, callIds: string[]): Promise<void> {
    await this.db.send(
      new UpdateCommand({
        TableName: this.table,
        Key: { pk: campaignPk(campaignId) },
        UpdateExpression: 'SET #kind = :kind ADD callIds :id',
        ExpressionAttributeNames: { '#kind': 'kind' },
        ExpressionAttributeValues: { ':kind': 'campaign', ':id': new Set(callIds) },
      }),
    );
  }

  private async updateCall(outcome: CallOutcome): Promise<void> {
    const sets: string[] = ['#kind = :kind'];
    const names: Record<string, string> = { '#kind': 'kind' };
    const values: Record<string, unknown> = { ':kind': 'call' };
    for (const [field, value] of Object.entries(outcome)) {
      if (value === null || value === undefined) continue;
      names[`#${field}`] = field;
      values[`:${field}`] = value;
      sets.push(`#${field} = :${field}`);
    }
    await this.db.send(
      new UpdateCommand({
        TableName: this.table,
        Key: { pk: callPk(outcome.callId) },
        UpdateExpression: `SET ${sets.join(', ')}`,
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
      }),
    );
  }

  /**
   * Many outcomes at once (the calls list at campaign end). The read only skips calls already recorded exactly
   * so; every other call is merged field by field as `record` does, never put whole. A put after a read was a
   * read-modify-write: a webhook recorded between the two lost what only it knew (the transcript link). A merge
   * needs no condition, because DynamoDB applies each update atomically and a null never overwrites a field.
   * It costs the same write capacity as a batch put (batches save round trips, not capacity), so the merges run
   * a few at a time. Each campaign's index then gets its new ids in one request.
   */
  async recordMany(outcomes: readonly CallOutcome[]): Promise<void> {
    if (outcomes.length === 0) return;
    const known = new Map((await this.getMany(outcomes.map((o) => o.callId))).map((o) => [o.callId, o]));
    const changed = outcomes.filter((o) => {
      const before = known.get(o.callId);
      return !before || Object.entries(o).some(([k, v]) => v !== null && before[k as keyof CallOutcome] !== v);
    });
    await eachConcurrently(changed, MERGE_CONCURRENCY, (o) => this.updateCall(o));
    const byCampaign = new Map<string, string[]>();
    for (const o of outcomes)
      if (o.campaignId) byCampaign.set(o.campaignId, [...(byCampaign.get(o.campaignId) ?? []), o.callId]);
    for (const [campaignId, ids] of byCampaign) await this.index(campaignId, ids);
  }

  /**
   * Notes a call event the Voice API has no call for, so an operator can find it (with the log line and the
   * `UnknownCallEvents` metric) while the queue acknowledges it instead of retrying it into the dead letters.
   * Repeats add to `deliveries`; the first sighting is kept.
   */
  async recordUnknownCall(
    event: { callId: string; event: string; campaignId: string | null; eventAt: string },
    now: Date,
  ): Promise<void> {
    await this.db.send(
      new UpdateCommand({
        TableName: this.table,
        Key: { pk: unknownCallPk(event.callId) },
        UpdateExpression:
          'SET #kind = :kind, callId = :id, #event = :event, campaignId = :campaign, eventAt = :at, ' +
          'firstSeenAt = if_not_exists(firstSeenAt, :now), lastSeenAt = :now, expiresAt = :expires ADD deliveries :one',
        ExpressionAttributeNames: { '#kind': 'kind', '#event': 'event' },
        ExpressionAttributeValues: {
          ':kind': 'unknown-call',
          ':id': event.callId,
          ':event': event.event,
          ':campaign': event.campaignId,
          ':at': event.eventAt,
          ':now': now.toISOString(),
          ':expires': Math.floor(now.getTime() / 1000) + UNKNOWN_KEEP_SECONDS,
          ':one': 1,
        },
      }),
    );
  }

  async unknownCall(callId: string): Promise<UnknownCallRecord | null> {
    const out = await this.db.send(
      new GetCommand({ TableName: this.table, Key: { pk: unknownCallPk(callId) }, ConsistentRead: true }),
    );
    const item = out.Item;
    if (!item) return null;
    return {
      callId: item.callId as string,
      event: item.event as string,
      campaignId: typeof item.campaignId === 'string' ? item.campaignId : null,
      eventAt: item.eventAt as string,
      firstSeenAt: item.firstSeenAt as string,
      lastSeenAt: item.lastSeenAt as string,
      deliveries: item.deliveries as number,
    };
  }

  async get(callId: string): Promise<CallOutcome | null> {
    const out = await this.db.send(
      new GetCommand({ TableName: this.table, Key: { pk: callPk(callId) }, ConsistentRead: true }),
    );
    return out.Item ? fromItem(out.Item) : null;
  }

  /**
   * Every call outcome of a campaign: its index item names the calls, read 100 at a time. Runs at campaign end
   * and for exports, never per event, and costs what the campaign has, not what the table has.
   */
  async ofCampaign(campaignId: string): Promise<CallOutcome[]> {
    const index = await this.db.send(
      new GetCommand({ TableName: this.table, Key: { pk: campaignPk(campaignId) }, ConsistentRead: true }),
    );
    const ids = [...((index.Item?.callIds as Set<string> | undefined) ?? [])].sort();
    return (await this.getMany(ids)).filter((o) => o.campaignId === campaignId);
  }

  /** The outcomes of these calls that are recorded, 100 a request. */
  private async getMany(callIds: readonly string[]): Promise<CallOutcome[]> {
    const keys = [...new Set(callIds)].map((id) => ({ pk: callPk(id) }));
    return (await batchGetAll(this.db, this.table, keys, 'outcomes')).map(fromItem);
  }
}

function fromItem(item: Record<string, unknown>): CallOutcome {
  const s = (k: string) => (typeof item[k] === 'string' ? (item[k] as string) : null);
  const n = (k: string) => (typeof item[k] === 'number' ? (item[k] as number) : null);
  return {
    callId: item.callId as string,
    campaignId: s('campaignId'),
    phone: item.phone as string,
    contactName: s('contactName'),
    status: item.status as CallOutcome['status'],
    failureReason: s('failureReason'),
    durationSeconds: n('durationSeconds'),
    costInr: n('costInr'),
    transcriptUrl: s('transcriptUrl'),
    recordingUrl: s('recordingUrl'),
    summary: s('summary'),
    at: item.at as string,
    startedAt: s('startedAt'),
    optOutPhrase: s('optOutPhrase'),
  };
}
