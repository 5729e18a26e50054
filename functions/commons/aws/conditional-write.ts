import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';

/** A conditional write that DynamoDB refused because its condition did not hold (not a failure of the call). */
export const isConditionFailed = (err: unknown): boolean =>
  err instanceof ConditionalCheckFailedException || (err as Error).name === 'ConditionalCheckFailedException';
