import { type DynamoDBDocumentClient, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { batchGetAll, batchWriteAll } from '../aws/batch.ts';
import type { CallOutcome } from './call-outcome.ts';

const callPk = (callId: string) => `call#${callId}`;
/** A campaign's index: the set of its call ids (1000 contacts × 4 attempts stay far below DynamoDB's item size). */
const campaignPk = (campaignId: string) => `campaign#${campaignId}`;

/**
 * Call outcomes in the outcomes table, one item per call (`call#<id>`) and one index per campaign
 * (`campaign#<id>`, a set of call ids; adding to a set is idempotent). Recording merges: a field already known
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
   * Many outcomes at once (the calls list at campaign end): calls not yet known are written 25 a request, known
   * ones merged one by one as `record` does, and each campaign's index gets its new ids in one request. A call
   * whose webhook lands between the read and the batch write may lose what only the webhook knew (its transcript
   * link); everything the calls list carries is kept.
   */
  async recordMany(outcomes: readonly CallOutcome[]): Promise<void> {
    if (outcomes.length === 0) return;
    const known = new Map((await this.getMany(outcomes.map((o) => o.callId))).map((o) => [o.callId, o]));
    const fresh = outcomes.filter((o) => !known.has(o.callId));
    for (const o of outcomes) {
      const before = known.get(o.callId);
      if (before && Object.entries(o).some(([k, v]) => v !== null && before[k as keyof CallOutcome] !== v))
        await this.updateCall(o);
    }
    await batchWriteAll(
      this.db,
      this.table,
      fresh.map((o) => ({
        PutRequest: {
          Item: {
            pk: callPk(o.callId),
            kind: 'call',
            ...Object.fromEntries(Object.entries(o).filter(([, v]) => v !== null && v !== undefined)),
          },
        },
      })),
      'outcomes',
    );
    const byCampaign = new Map<string, string[]>();
    for (const o of outcomes)
      if (o.campaignId) byCampaign.set(o.campaignId, [...(byCampaign.get(o.campaignId) ?? []), o.callId]);
    for (const [campaignId, ids] of byCampaign) await this.index(campaignId, ids);
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
    optOutPhrase: s('optOutPhrase'),
  };
}
