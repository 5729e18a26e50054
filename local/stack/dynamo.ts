import type { AddressInfo } from 'node:net';
import { CreateTableCommand, DynamoDBClient, ListTablesCommand, waitUntilTableExists } from '@aws-sdk/client-dynamodb';
import dynalite from 'dynalite';
import { TABLES, type TableName } from '#commons/tables.ts';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from './local-aws.ts';

export interface LocalDynamo {
  endpoint: string;
  tables: Record<TableName, string>;
  close(): Promise<void>;
}

/**
 * dynalite on 127.0.0.1 with callsheet's tables (named `<prefix>-<table>`) created and active: in memory, or in
 * `path` (LevelDB) so data such as the suppression list outlives the process.
 */
export async function startDynamo(
  options: { path?: string; prefix?: string; port?: number } = {},
): Promise<LocalDynamo> {
  const prefix = options.prefix ?? 'callsheet';
  const server = dynalite({ path: options.path, createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', () => resolve()));
  const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const client = new DynamoDBClient({ endpoint, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS });
  const tables = {} as Record<TableName, string>;
  const existing = new Set((await client.send(new ListTablesCommand({}))).TableNames ?? []);
  for (const [name, t] of Object.entries(TABLES) as [TableName, (typeof TABLES)[TableName]][]) {
    const TableName = `${prefix}-${name}`;
    tables[name] = TableName;
    if (existing.has(TableName)) continue;
    await client.send(
      new CreateTableCommand({
        TableName,
        AttributeDefinitions: [{ AttributeName: t.partitionKey, AttributeType: 'S' }],
        KeySchema: [{ AttributeName: t.partitionKey, KeyType: 'HASH' }],
        BillingMode: 'PAY_PER_REQUEST',
      }),
    );
    await waitUntilTableExists({ client, maxWaitTime: 10, minDelay: 0.05, maxDelay: 0.1 }, { TableName });
  }
  client.destroy();
  return {
    endpoint,
    tables,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
