/**
 * The DynamoDB tables callsheet uses and their partition keys (string, no sort key). CDK creates them in AWS and
 * the local stack creates them in dynalite from this one list.
 */
export const TABLES = {
  uploads: { partitionKey: 'pk', env: 'UPLOADS_TABLE' },
  suppression: { partitionKey: 'phone', env: 'SUPPRESSION_TABLE' },
  campaigns: { partitionKey: 'pk', env: 'CAMPAIGNS_TABLE' },
} as const;

export type TableName = keyof typeof TABLES;
