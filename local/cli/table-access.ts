import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { readAwsSettings } from '#commons/aws/aws-settings.ts';
import { documentClient } from '#commons/aws/dynamo-client.ts';
import { EnvReader } from '#commons/config.ts';
import { TABLES, type TableName } from '#commons/tables.ts';
import { isNewDataDir, localDataDir, localDynamoPath, newDataDirNote } from '../stack/data-dir.ts';
import { startDynamo } from '../stack/dynamo.ts';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../stack/local-aws.ts';
import { readRunningStack } from '../stack/running-stack.ts';

export interface OpenTable {
  db: DynamoDBDocumentClient;
  table: string;
  /** Where the data is, for messages. */
  where: string;
  /** Whether a workflow can act on what is written (false: the local data directory with no stack running). */
  live: boolean;
  /** Another of callsheet's tables at the same place (null when deployed and its variable is not set). */
  sibling(name: TableName): string | null;
  close(): Promise<void>;
}

/**
 * One of callsheet's tables for an operator command: the deployed table when its variable is set (with the
 * usual AWS credentials and region), else the local stack's in $CALLSHEET_DATA_DIR.
 */
export async function openTable(name: TableName): Promise<OpenTable> {
  const deployed = process.env[TABLES[name].env];
  if (deployed) {
    const env = new EnvReader(process.env);
    const aws = readAwsSettings(env);
    env.done();
    const db = documentClient(aws);
    return {
      db,
      table: deployed,
      where: `DynamoDB table ${deployed}`,
      live: true,
      sibling: (other) => process.env[TABLES[other].env] || null,
      close: async () => db.destroy(),
    };
  }
  // A running `callsheet local` or `run` holds the database: talk to its DynamoDB endpoint instead.
  const running = await readRunningStack(localDataDir());
  if (running) {
    const db = documentClient({
      region: running.region,
      endpoints: { dynamodb: running.endpoints.dynamodb },
      credentials: running.credentials,
    });
    return {
      db,
      table: running.tables[name],
      where: `the running callsheet ${running.command} (${running.endpoints.dynamodb})`,
      live: true,
      sibling: (other) => running.tables[other],
      close: async () => db.destroy(),
    };
  }
  const path = localDynamoPath();
  // A mistyped CALLSHEET_DATA_DIR, or another current folder, is a different (empty) list: said, not silent.
  if (isNewDataDir()) console.error(`callsheet: ${newDataDirNote()}.`);
  const dynamo = await startDynamo({ path });
  const db = documentClient({
    region: LOCAL_REGION,
    endpoints: { dynamodb: dynamo.endpoint },
    credentials: LOCAL_CREDENTIALS,
  });
  return {
    db,
    table: dynamo.tables[name],
    where: `the local stack (${path})`,
    live: false,
    sibling: (other) => dynamo.tables[other],
    close: async () => {
      db.destroy();
      await dynamo.close();
    },
  };
}
