import { type DynamoDBDocumentClient, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { BudgetLimits } from './shared-budget.ts';

const HOUR = 3_600_000;

/** How many stats requests the polls of all running parts together are planned to use (0: no limit). */
export interface PollPlan {
  perMinute: number;
  perHour: number;
}

/**
 * The polls' plan: half of what the API plan leaves after the safety and lifecycle reserves. The other half is
 * for launches, resumes, a contact sync and intake, so a hundred parts watching their campaigns can never starve
 * the resumes that let them dial again (seen on 100 parts: polls took every token and no part resumed next day).
 */
export function pollPlanOf(limits: BudgetLimits): PollPlan {
  const half = (limit: number, ...reserves: number[]) =>
    limit > 0 ? Math.max(1, Math.floor((limit - reserves.reduce((a, b) => a + b, 0)) / 2)) : 0;
  return {
    perMinute: half(limits.perMinute, limits.safetyReserve.perMinute, limits.lifecycleReserve.perMinute),
    perHour: half(limits.perHour, limits.safetyReserve.perHour, limits.lifecycleReserve.perHour),
  };
}

/**
 * The roll of parts polling on this account, one item per clock hour in the API budget table (`pollers#<hour>`,
 * a string set of part keys): each poll adds its part and learns how many share the plan. The previous hour's
 * roll counts too, so a new hour does not start with a roll of one and a burst of polls.
 */
export class PollRoll {
  private lastHour: { key: string; count: number } | null = null;

  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly table: string,
  ) {}

  /** Adds `part` to this hour's roll; the number of parts polling (this hour's roll or the last one's, the larger). */
  async note(part: string, now: number): Promise<number> {
    const hour = Math.floor(now / HOUR) * HOUR;
    const out = await this.db.send(
      new UpdateCommand({
        TableName: this.table,
        Key: { pk: `pollers#${hour}` },
        UpdateExpression: 'ADD #parts :me SET expiresAt = :exp',
        ExpressionAttributeNames: { '#parts': 'parts' },
        ExpressionAttributeValues: { ':me': new Set([part]), ':exp': Math.ceil((hour + 2 * HOUR) / 1000) + 3600 },
        ReturnValues: 'UPDATED_NEW',
      }),
    );
    const current = (out.Attributes?.parts as Set<string> | undefined)?.size ?? 1;
    return Math.max(current, await this.countOf(`pollers#${hour - HOUR}`));
  }

  /** A past hour's roll no longer grows: read once per process. */
  private async countOf(key: string): Promise<number> {
    if (this.lastHour?.key === key) return this.lastHour.count;
    const out = await this.db.send(
      new GetCommand({
        TableName: this.table,
        Key: { pk: key },
        ProjectionExpression: '#parts',
        ExpressionAttributeNames: { '#parts': 'parts' },
      }),
    );
    const count = (out.Item?.parts as Set<string> | undefined)?.size ?? 0;
    this.lastHour = { key, count };
    return count;
  }
}
