import { BatchGetCommand, type DynamoDBDocumentClient, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { CallOutcome } from './call-outcome.ts';

const callPk = (callId: string) => `call#${callId}`;
/** A campaign's index: the set of its call ids (1000 contacts × 4 attempts stay far below DynamoDB's item size). */
const campaignPk = (campaignId: string) => `campaign#${campaignId}`;
const GET_BATCH = 100;
const MAX_ROUNDS = 8;

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
    if (outcome.campaignId)
      await this.db.send(
        new UpdateCommand({
          TableName: this.table,
          Key: { pk: campaignPk(outcome.campaignId) },
          UpdateExpression: 'SET #kind = :kind ADD callIds :id',
          ExpressionAttributeNames: { '#kind': 'kind' },
          ExpressionAttributeValues: { ':kind': 'campaign', ':id': new Set([outcome.callId]) },
        }),
      );
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
    const found: CallOutcome[] = [];
    for (let i = 0; i < ids.length; i += GET_BATCH) {
      let keys: Record<string, unknown>[] = ids.slice(i, i + GET_BATCH).map((id) => ({ pk: callPk(id) }));
      for (let round = 0; keys.length > 0; round++) {
        if (round >= MAX_ROUNDS) throw new Error('outcomes: DynamoDB kept keys unprocessed; try again');
        if (round > 0) await new Promise((r) => setTimeout(r, Math.random() * Math.min(1000, 50 * 2 ** round)));
        const out = await this.db.send(
          new BatchGetCommand({ RequestItems: { [this.table]: { Keys: keys, ConsistentRead: true } } }),
        );
        for (const item of out.Responses?.[this.table] ?? []) found.push(fromItem(item));
        keys = (out.UnprocessedKeys?.[this.table]?.Keys as Record<string, unknown>[] | undefined) ?? [];
      }
    }
    return found.filter((o) => o.campaignId === campaignId);
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
