import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { documentClient, readAwsSettings } from '../../functions/commons/aws/clients.ts';
import { EnvReader } from '../../functions/commons/config.ts';
import { TABLES, type TableName } from '../../functions/commons/tables.ts';
import { localDynamoPath } from '../stack/data-dir.ts';
import { startDynamo } from '../stack/dynamo.ts';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../stack/local-aws.ts';

export interface OpenTable {
  db: DynamoDBDocumentClient;
  table: string;
  /** Where the data is, for messages. */
  where: string;
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
    return { db, table: deployed, where: `DynamoDB table ${deployed}`, close: async () => db.destroy() };
  }
  const path = localDynamoPath();
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
    close: async () => {
      db.destroy();
      await dynamo.close();
    },
  };
}
