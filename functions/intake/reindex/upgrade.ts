import { ListExecutionsCommand, type SFNClient } from '@aws-sdk/client-sfn';
import { type DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { isConditionFailed } from '#commons/aws/conditional-write.ts';
import type { Upgrade } from './after-deploy.ts';

/** In the outcomes table, beside the cap shards and their mark. */
const KEY = { pk: 'reindex#upgrade' };

/**
 * The upgrade's moment in the outcomes table (one item, written once: the first run's wins), and the lifecycle
 * executions still running from before it, asked of Step Functions.
 */
export class RecordedUpgrade implements Upgrade {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly table: string,
    private readonly sfn: SFNClient,
    private readonly stateMachineArn: string,
  ) {}

  async started(): Promise<Date | undefined> {
    const out = await this.db.send(new GetCommand({ TableName: this.table, Key: KEY, ConsistentRead: true }));
    return typeof out.Item?.at === 'string' ? new Date(out.Item.at) : undefined;
  }

  async start(at: Date): Promise<Date> {
    try {
      await this.db.send(
        new PutCommand({
          TableName: this.table,
          Item: { ...KEY, kind: 'reindex-upgrade', at: at.toISOString() },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      );
      return at;
    } catch (err) {
      if (!isConditionFailed(err)) throw err;
      // Another run recorded it first: theirs holds.
      return (await this.started()) ?? at;
    }
  }

  async campaignsStartedBefore(at: Date): Promise<boolean> {
    let nextToken: string | undefined;
    do {
      const page = await this.sfn.send(
        new ListExecutionsCommand({ stateMachineArn: this.stateMachineArn, statusFilter: 'RUNNING', nextToken }),
      );
      if ((page.executions ?? []).some((e) => e.startDate !== undefined && e.startDate.getTime() < at.getTime()))
        return true;
      nextToken = page.nextToken;
    } while (nextToken);
    return false;
  }
}
