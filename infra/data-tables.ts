import { RemovalPolicy } from 'aws-cdk-lib';
import { AttributeType, Billing, ProjectionType, TableV2 } from 'aws-cdk-lib/aws-dynamodb';
import type { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';
import { TABLES, type TableName } from '#commons/tables.ts';

/**
 * callsheet's DynamoDB tables, from the same list the local stack creates in dynalite. A table whose entry names a
 * `ttl` attribute has DynamoDB expire items by it (epoch seconds the writer sets). An index added to a table
 * already deployed is built by DynamoDB from its items (backfilled); readers fall back to what they did before until
 * it is active (functions/lifecycle/campaign-store.ts). CloudFormation adds one index per deploy: a release that
 * adds two to one table must not.
 */
export class DataTables extends Construct {
  public readonly tables: Record<TableName, TableV2>;

  constructor(scope: Construct, id: string) {
    super(scope, id);
    this.tables = Object.fromEntries(
      (Object.entries(TABLES) as [TableName, (typeof TABLES)[TableName]][]).map(([name, t]) => [
        name,
        new TableV2(this, name, {
          partitionKey: { name: t.partitionKey, type: AttributeType.STRING },
          ...('ttl' in t ? { timeToLiveAttribute: t.ttl as string } : {}),
          ...('indexes' in t
            ? {
                globalSecondaryIndexes: t.indexes.map((index) => ({
                  indexName: index.name,
                  partitionKey: { name: index.partitionKey, type: AttributeType.STRING },
                  projectionType: ProjectionType.INCLUDE,
                  nonKeyAttributes: [...index.include],
                })),
              }
            : {}),
          billing: Billing.onDemand(),
          pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
          deletionProtection: true,
          removalPolicy: RemovalPolicy.RETAIN,
        }),
      ]),
    ) as Record<TableName, TableV2>;
  }
}

/**
 * What a function that lists opted-out numbers needs of the do-not-call list: its name, and to write the number's
 * item, then read and conditionally rewrite its shard (suppression-list.ts).
 */
export function grantOptOutWrites(suppression: TableV2, fn: LambdaFunction): void {
  fn.addEnvironment(TABLES.suppression.env, suppression.tableName);
  suppression.grant(fn, 'dynamodb:BatchWriteItem', 'dynamodb:PutItem', 'dynamodb:BatchGetItem', 'dynamodb:GetItem');
}
