import { type DynamoDBDocumentClient, ScanCommand, type ScanCommandInput } from '@aws-sdk/lib-dynamodb';

/**
 * Every item a scan finds, page after page: a filter applies to each page as read, so a page may come back empty
 * while more follow; only the absence of `LastEvaluatedKey` ends it.
 */
export async function scanAll<T>(
  db: DynamoDBDocumentClient,
  input: Omit<ScanCommandInput, 'ExclusiveStartKey'>,
): Promise<T[]> {
  const out: T[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await db.send(new ScanCommand({ ...input, ExclusiveStartKey: start }));
    out.push(...((page.Items ?? []) as T[]));
    start = page.LastEvaluatedKey;
  } while (start);
  return out;
}
