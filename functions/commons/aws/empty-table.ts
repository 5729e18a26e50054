import { type DynamoDBDocumentClient, ScanCommand } from '@aws-sdk/lib-dynamodb';

/** Whether a table holds no item at all: one scan request that counts at most one. */
export async function isEmptyTable(db: DynamoDBDocumentClient, table: string): Promise<boolean> {
  const out = await db.send(new ScanCommand({ TableName: table, Limit: 1, Select: 'COUNT', ConsistentRead: true }));
  return (out.Count ?? 0) === 0 && out.LastEvaluatedKey === undefined;
}
