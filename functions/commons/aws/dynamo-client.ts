import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { type AwsSettings, base, unlogged } from './aws-settings.ts';

/** DynamoDB alone: a caller that needs only tables (an operator command) loads no other SDK client. */
export function documentClient(s: AwsSettings): DynamoDBDocumentClient {
  return DynamoDBDocumentClient.from(unlogged(new DynamoDBClient(base(s, s.endpoints.dynamodb))), {
    marshallOptions: { removeUndefinedValues: true },
  });
}
