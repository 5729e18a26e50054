import { type DynamoDBDocumentClient, GetCommand, ScanCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { CallOutcome } from './call-outcome.ts';

const callPk = (callId: string) => `call#${callId}`;

/**
 * Call outcomes in the outcomes table, one item per call (`call#<id>`). Recording merges: a field already known
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
  }

  async get(callId: string): Promise<CallOutcome | null> {
    const out = await this.db.send(
      new GetCommand({ TableName: this.table, Key: { pk: callPk(callId) }, ConsistentRead: true }),
    );
    return out.Item ? fromItem(out.Item) : null;
  }

  /**
   * Every call outcome of a campaign. The table is keyed by call, so this reads the table through (paged); it
   * runs at campaign end and for exports, not per event.
   */
  async ofCampaign(campaignId: string): Promise<CallOutcome[]> {
    const found: CallOutcome[] = [];
    let start: Record<string, unknown> | undefined;
    do {
      const out = await this.db.send(
        new ScanCommand({
          TableName: this.table,
          FilterExpression: '#kind = :kind AND campaignId = :c',
          ExpressionAttributeNames: { '#kind': 'kind' },
          ExpressionAttributeValues: { ':kind': 'call', ':c': campaignId },
          ExclusiveStartKey: start,
          ConsistentRead: true,
        }),
      );
      for (const item of out.Items ?? []) found.push(fromItem(item));
      start = out.LastEvaluatedKey;
    } while (start);
    return found;
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
