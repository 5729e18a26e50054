import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { S3Client } from '@aws-sdk/client-s3';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SFNClient } from '@aws-sdk/client-sfn';
import { SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { EnvReader } from '../config.ts';

export interface AwsSettings {
  region: string;
  /** Set only for the local stack (s3rver, dynalite, the local Step Functions endpoint). */
  endpoints: { s3?: string; dynamodb?: string; sfn?: string; events?: string; secretsmanager?: string };
  credentials?: { accessKeyId: string; secretAccessKey: string; sessionToken?: string };
}

/** Endpoint overrides use the AWS SDK's own variable names, so the same names work for any AWS tool. */
export function readAwsSettings(env: EnvReader): AwsSettings {
  const accessKeyId = env.optional('AWS_ACCESS_KEY_ID');
  const secretAccessKey = env.optional('AWS_SECRET_ACCESS_KEY');
  const sessionToken = env.optional('AWS_SESSION_TOKEN');
  return {
    region: env.optional('AWS_REGION') ?? 'us-east-1',
    ...(accessKeyId && secretAccessKey ? { credentials: { accessKeyId, secretAccessKey, sessionToken } } : {}),
    endpoints: {
      s3: env.optional('AWS_ENDPOINT_URL_S3'),
      dynamodb: env.optional('AWS_ENDPOINT_URL_DYNAMODB'),
      sfn: env.optional('AWS_ENDPOINT_URL_SFN'),
      events: env.optional('AWS_ENDPOINT_URL_EVENTBRIDGE'),
      secretsmanager: env.optional('AWS_ENDPOINT_URL_SECRETS_MANAGER'),
    },
  };
}

/**
 * Takes out the SDK's logger middleware: with the default no-op logger it still builds a redacted copy of every
 * request and response to hand to it (a walk of each Scan page and batch), work nobody reads.
 */
function unlogged<C extends { middlewareStack: { remove(name: string): boolean } }>(client: C): C {
  client.middlewareStack.remove('loggerMiddleware');
  return client;
}

function base(s: AwsSettings, endpoint: string | undefined) {
  return {
    region: s.region,
    ...(endpoint ? { endpoint } : {}),
    ...(s.credentials ? { credentials: s.credentials } : {}),
  };
}

export function s3Client(s: AwsSettings): S3Client {
  return unlogged(
    new S3Client({
      ...base(s, s.endpoints.s3),
      // Path-style for s3rver; checksums only when required, else s3rver stores streamed uploads corrupted.
      forcePathStyle: s.endpoints.s3 !== undefined,
      requestChecksumCalculation: 'WHEN_REQUIRED',
    }),
  );
}

export function documentClient(s: AwsSettings): DynamoDBDocumentClient {
  return DynamoDBDocumentClient.from(unlogged(new DynamoDBClient(base(s, s.endpoints.dynamodb))), {
    marshallOptions: { removeUndefinedValues: true },
  });
}

export const sfnClient = (s: AwsSettings) => unlogged(new SFNClient(base(s, s.endpoints.sfn)));
export const eventsClient = (s: AwsSettings) => unlogged(new EventBridgeClient(base(s, s.endpoints.events)));
export const secretsClient = (s: AwsSettings) =>
  unlogged(new SecretsManagerClient(base(s, s.endpoints.secretsmanager)));
/** SQS's endpoint is each queue's own setting (the local stack has none for some), so it is given here. */
export const sqsClient = (s: AwsSettings, endpoint: string | undefined) => unlogged(new SQSClient(base(s, endpoint)));
