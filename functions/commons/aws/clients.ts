import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { S3Client } from '@aws-sdk/client-s3';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SFNClient } from '@aws-sdk/client-sfn';
import { SQSClient } from '@aws-sdk/client-sqs';
import { type AwsSettings, base, unlogged } from './aws-settings.ts';

export { type AwsSettings, readAwsSettings } from './aws-settings.ts';
export { documentClient } from './dynamo-client.ts';

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

export const sfnClient = (s: AwsSettings) => unlogged(new SFNClient(base(s, s.endpoints.sfn)));
export const eventsClient = (s: AwsSettings) => unlogged(new EventBridgeClient(base(s, s.endpoints.events)));
export const secretsClient = (s: AwsSettings) =>
  unlogged(new SecretsManagerClient(base(s, s.endpoints.secretsmanager)));
/** SQS's endpoint is each queue's own setting (the local stack has none for some), so it is given here. */
export const sqsClient = (s: AwsSettings, endpoint: string | undefined) => unlogged(new SQSClient(base(s, endpoint)));
