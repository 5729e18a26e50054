import { type DynamoDBDocumentClient, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { batchGetAll } from './aws/batch.ts';
import { isE164, numberOf } from './aws/number-shards.ts';
import { eachConcurrently } from './concurrently.ts';
import { type CapEntry, liveEntries } from './frequency-cap.ts';

/**
 * Call counts as versions before the cap shards kept them: one `cap#<phone>` item per number in the outcomes table,
 * its reservations in `entries`. Nothing writes them any more, but a number counted there may still be inside its
 * day or week after an upgrade; until the shards hold them (frequency-cap-store.ts, `reindex`), admitting reads them
 * too, so a redeploy never lets a number be called past its cap.
 */
const PREFIX = 'cap#';
/** Segments of the table scanned at once by `scanLegacyCaps`: a one-off pass over every outcome item. */
const SEGMENTS = 8;

/** Live reservations per number, keyed by the number as the shards hold it (`numberOf`). */
export type LegacyCaps = Map<number, CapEntry[]>;

type LegacyItem = { phone?: unknown; entries?: CapEntry[] };

function add(into: LegacyCaps, item: LegacyItem, now: Date): void {
  const phone = item.phone;
  // Only intake's and rounds' numbers were counted, all E.164; anything else names no number the shards can hold.
  if (typeof phone !== 'string' || !isE164(phone)) return;
  const live = liveEntries(item.entries ?? [], now);
  if (live.length > 0) into.set(numberOf(phone), live);
}

/** The live legacy reservations of these numbers: 100 keys a request, several requests at once. */
export async function readLegacyCaps(
  db: DynamoDBDocumentClient,
  table: string,
  phones: readonly string[],
  now: Date,
): Promise<LegacyCaps> {
  // Each once: a request naming a key twice is refused whole.
  const keys = [...new Set(phones)].filter(isE164).map((phone) => ({ pk: `${PREFIX}${phone}` }));
  const items = await batchGetAll(db, table, keys, 'frequency caps (kept before the shards)');
  const out: LegacyCaps = new Map();
  for (const item of items) add(out, item as LegacyItem, now);
  return out;
}

/** Every live legacy reservation in the table: a scan of the whole outcomes table, 8 segments at once. */
export async function scanLegacyCaps(db: DynamoDBDocumentClient, table: string, now: Date): Promise<LegacyCaps> {
  const out: LegacyCaps = new Map();
  const segments = Array.from({ length: SEGMENTS }, (_, i) => i);
  await eachConcurrently(segments, SEGMENTS, async (segment) => {
    let start: Record<string, unknown> | undefined;
    do {
      const page = await db.send(
        new ScanCommand({
          TableName: table,
          Segment: segment,
          TotalSegments: SEGMENTS,
          ExclusiveStartKey: start,
          FilterExpression: 'begins_with(pk, :prefix)',
          ExpressionAttributeValues: { ':prefix': PREFIX },
          ExpressionAttributeNames: { '#phone': 'phone', '#entries': 'entries' },
          ProjectionExpression: '#phone, #entries',
          ConsistentRead: true,
        }),
      );
      for (const item of page.Items ?? []) add(out, item as LegacyItem, now);
      start = page.LastEvaluatedKey;
    } while (start);
  });
  return out;
}
