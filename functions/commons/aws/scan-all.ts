import {
  type DynamoDBDocumentClient,
  QueryCommand,
  type QueryCommandInput,
  ScanCommand,
  type ScanCommandInput,
} from '@aws-sdk/lib-dynamodb';

/**
 * Every item a scan finds, page after page: a filter applies to each page as read, so a page may come back empty
 * while more follow; only the absence of `LastEvaluatedKey` ends it.
 */
export async function scanAll<T>(
  db: DynamoDBDocumentClient,
  input: Omit<ScanCommandInput, 'ExclusiveStartKey'>,
): Promise<T[]> {
  return everyPage<T>((start) => db.send(new ScanCommand({ ...input, ExclusiveStartKey: start })));
}

/** Every item a query finds, page after page, as `scanAll`. */
export async function queryAll<T>(
  db: DynamoDBDocumentClient,
  input: Omit<QueryCommandInput, 'ExclusiveStartKey'>,
): Promise<T[]> {
  return everyPage<T>((start) => db.send(new QueryCommand({ ...input, ExclusiveStartKey: start })));
}

type Page = { Items?: Record<string, unknown>[]; LastEvaluatedKey?: Record<string, unknown> };

async function everyPage<T>(read: (start: Record<string, unknown> | undefined) => Promise<Page>): Promise<T[]> {
  const out: T[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await read(start);
    out.push(...((page.Items ?? []) as T[]));
    start = page.LastEvaluatedKey;
  } while (start);
  return out;
}
