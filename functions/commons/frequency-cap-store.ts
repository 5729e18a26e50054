import { type DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { batchGetAll } from './aws/batch.ts';
import { isConditionFailed } from './aws/conditional-write.ts';
import { type CapDecision, type CapEntry, type CapLimits, capDecision, liveEntries } from './frequency-cap.ts';

const capPk = (phone: string) => `cap#${phone}`;
const MAX_ROUNDS = 8;
const PARALLEL = 16;

type CapItem = { version?: number; entries?: CapEntry[] } | undefined;

/**
 * Call counts per number in the outcomes table (`cap#<phone>`: the reservations of the last 7 days and a version).
 * Each admission is a read and a conditional write on that version, so two campaigns admitting the same number at
 * once cannot both squeeze under the cap.
 */
export class FrequencyCapStore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly table: string,
    private readonly limits: CapLimits,
  ) {}

  /** Decides for one number and, when admitted, counts the calls. Safe to repeat with the same key. */
  async admit(phone: string, key: string, calls: number, now: Date, read?: CapItem): Promise<CapDecision> {
    for (let round = 0; round < MAX_ROUNDS; round++) {
      const item =
        round === 0 && read !== undefined
          ? read
          : ((
              await this.db.send(
                new GetCommand({ TableName: this.table, Key: { pk: capPk(phone) }, ConsistentRead: true }),
              )
            ).Item as CapItem);
      const version = item?.version ?? 0;
      const entries = liveEntries(item?.entries ?? [], now);
      const decision = capDecision(entries, { key, calls, at: now }, this.limits);
      if (!decision.admitted || decision.alreadyCounted) return decision;
      try {
        await this.db.send(
          new PutCommand({
            TableName: this.table,
            Item: {
              pk: capPk(phone),
              kind: 'cap',
              phone,
              version: version + 1,
              entries: [...entries, { key, at: now.toISOString(), calls }],
            },
            ConditionExpression: version === 0 ? 'attribute_not_exists(pk)' : '#version = :v',
            ...(version === 0
              ? {}
              : { ExpressionAttributeNames: { '#version': 'version' }, ExpressionAttributeValues: { ':v': version } }),
          }),
        );
        return decision;
      } catch (err) {
        if (!isConditionFailed(err)) throw err;
        // Someone admitted this number in between: decide again on what they wrote.
      }
    }
    throw new Error(`frequency cap for ${phone}: too many concurrent admissions; try again`);
  }

  /**
   * The check intake calls for a part's numbers: each admitted one is counted under `key`; the others come back
   * with the reason they must be skipped.
   */
  async admitAll(
    phones: readonly string[],
    key: string,
    calls: number,
    now: Date,
  ): Promise<{ admitted: string[]; skipped: { phone: string; reason: string; message: string }[] }> {
    const decisions = new Map<string, CapDecision>();
    const unique = [...new Set(phones)];
    // Read 100 numbers a request; each admission then writes once (conditionally) and re-reads only on a clash.
    const items = await this.readMany(unique);
    for (let i = 0; i < unique.length; i += PARALLEL) {
      const slice = unique.slice(i, i + PARALLEL);
      const out = await Promise.all(slice.map((p) => this.admit(p, key, calls, now, items.get(p) ?? {})));
      for (const [j, p] of slice.entries()) decisions.set(p, out[j] as CapDecision);
    }
    const admitted: string[] = [];
    const skipped: { phone: string; reason: string; message: string }[] = [];
    for (const phone of unique) {
      const d = decisions.get(phone) as CapDecision;
      if (d.admitted) admitted.push(phone);
      else skipped.push({ phone, reason: d.reason, message: d.message });
    }
    return { admitted, skipped };
  }

  private async readMany(phones: readonly string[]): Promise<Map<string, CapItem>> {
    const items = await batchGetAll(
      this.db,
      this.table,
      phones.map((p) => ({ pk: capPk(p) })),
      'frequency caps',
    );
    return new Map(items.map((item) => [item.phone as string, item as CapItem]));
  }
}
