import { type DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { isConditionFailed } from './conditional-write.ts';

const MAX_ROUNDS = 8;
/** DynamoDB's item limit; an item past it would be refused with a message naming no setting. */
const MAX_ITEM_BYTES = 400 * 1024;

export type Item = Record<string, unknown> & { version?: number };

/** Roughly what DynamoDB counts for an item: attribute names and values, binary as its bytes. */
export function itemBytes(value: unknown): number {
  if (value instanceof Uint8Array) return value.length;
  if (typeof value === 'string') return Buffer.byteLength(value);
  if (typeof value === 'number' || typeof value === 'boolean' || value == null) return 8;
  if (Array.isArray(value)) return value.reduce<number>((n, v) => n + 1 + itemBytes(v), 3);
  return Object.entries(value as object).reduce((n, [k, v]) => n + Buffer.byteLength(k) + 1 + itemBytes(v), 3);
}

/**
 * Read, change and write one item, conditionally on the version read, so two writers at once never lose each
 * other's change: the one that lost reads again and decides again. `change` answers the new item (its version is
 * set here) or null when nothing is to be written; `first` is the item as already read, when it was.
 */
export async function updateVersioned(
  db: DynamoDBDocumentClient,
  table: string,
  key: Record<string, string>,
  change: (item: Item | undefined) => Item | null,
  what: string,
  first?: { item: Item | undefined },
): Promise<void> {
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const item =
      round === 0 && first
        ? first.item
        : ((await db.send(new GetCommand({ TableName: table, Key: key, ConsistentRead: true }))).Item as
            | Item
            | undefined);
    const next = change(item);
    if (!next) return;
    const version = item?.version ?? 0;
    const written = { ...next, ...key, version: version + 1 };
    if (itemBytes(written) > MAX_ITEM_BYTES)
      throw new Error(`${what}: ${Object.values(key).join('/')} would pass DynamoDB's 400 KB item limit`);
    const [name] = Object.keys(key) as [string];
    try {
      await db.send(
        new PutCommand({
          TableName: table,
          Item: written,
          ...(version === 0
            ? { ConditionExpression: 'attribute_not_exists(#k)', ExpressionAttributeNames: { '#k': name } }
            : {
                ConditionExpression: '#v = :v',
                ExpressionAttributeNames: { '#v': 'version' },
                ExpressionAttributeValues: { ':v': version },
              }),
        }),
      );
      return;
    } catch (err) {
      if (!isConditionFailed(err)) throw err;
      // Someone wrote it in between: read what they wrote and decide again.
    }
  }
  throw new Error(`${what}: too many writers at once on ${Object.values(key).join('/')}; try again`);
}
