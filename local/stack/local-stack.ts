import type { S3Client } from '@aws-sdk/client-s3';
import { s3Client } from '../../functions/commons/aws/clients.ts';
import { ObjectStore } from '../../functions/commons/aws/object-store.ts';
import { type Log, silentLog } from '../../functions/commons/log.ts';
import { TABLES } from '../../functions/commons/tables.ts';
import { buildIntakeService } from '../../functions/intake/build-service.ts';
import { readIntakeConfig } from '../../functions/intake/config.ts';
import { makeIntakeHandler } from '../../functions/intake/handler.ts';
import { INCOMING } from '../../functions/intake/upload-ref.ts';
import { type LocalDynamo, startDynamo } from './dynamo.ts';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from './local-aws.ts';
import { type LocalS3, startS3 } from './s3.ts';
import { type LocalStateMachine, LocalStepFunctions } from './step-functions.ts';
import { LocalQueue } from './upload-queue.ts';

export interface LocalStackOptions {
  voiceApi: { url: string; apiKey: string };
  lifecycle: LocalStateMachine;
  bucket?: string;
  /** Keep DynamoDB data (suppression list, upload memory) in this directory instead of memory. */
  dynamoPath?: string;
  /** Deployment settings (DEFAULT_COUNTRY, DEFAULT_TIME_ZONE, …) as the Lambda environment would carry them. */
  settings?: Record<string, string>;
  log?: Log;
  /** Redelivery delay of the intake queue (SQS visibility timeout). */
  retryDelayMs?: number;
}

export interface LocalStack {
  bucket: string;
  s3: LocalS3;
  dynamo: LocalDynamo;
  sfn: LocalStepFunctions;
  stateMachineArn: string;
  /** The environment every handler is configured from, exactly as in AWS but for the endpoints. */
  env: Record<string, string>;
  s3Client: S3Client;
  objects: ObjectStore;
  intakeQueue: LocalQueue;
  close(): Promise<void>;
}

/**
 * The embedded stack: s3rver, dynalite and the local Step Functions endpoint on 127.0.0.1, with the intake
 * handler fed by real-shaped S3 event records through a local queue, exactly as S3 → SQS → Lambda in AWS.
 */
export async function startLocalStack(options: LocalStackOptions): Promise<LocalStack> {
  const bucket = options.bucket ?? 'callsheet-uploads';
  const s3 = await startS3([bucket]);
  const dynamo = await startDynamo({ path: options.dynamoPath });
  const sfn = new LocalStepFunctions(LOCAL_REGION);
  const stateMachineArn = sfn.register(options.lifecycle);
  const sfnEndpoint = await sfn.listen();
  const env: Record<string, string> = {
    AWS_REGION: LOCAL_REGION,
    AWS_ACCESS_KEY_ID: LOCAL_CREDENTIALS.accessKeyId,
    AWS_SECRET_ACCESS_KEY: LOCAL_CREDENTIALS.secretAccessKey,
    AWS_ENDPOINT_URL_S3: s3.endpoint,
    AWS_ENDPOINT_URL_DYNAMODB: dynamo.endpoint,
    AWS_ENDPOINT_URL_SFN: sfnEndpoint,
    [TABLES.uploads.env]: dynamo.tables.uploads,
    [TABLES.suppression.env]: dynamo.tables.suppression,
    LIFECYCLE_STATE_MACHINE_ARN: stateMachineArn,
    VOICE_API_URL: options.voiceApi.url,
    VOICE_API_KEY: options.voiceApi.apiKey,
    INTAKE_LEASE_SECONDS: '60',
    ...options.settings,
  };
  const intake = makeIntakeHandler(await buildIntakeService(readIntakeConfig(env)), options.log ?? silentLog);
  const intakeQueue = new LocalQueue('callsheet-intake', (e, c) => intake(e, c), {
    retryDelayMs: options.retryDelayMs ?? 50,
  });
  // The bucket notification in AWS is filtered to incoming/; reports, parts and moved originals raise nothing.
  s3.onEvent((event) => {
    const records = event.Records.filter(
      (r) => r.eventName.startsWith('ObjectCreated:') && r.s3.object.key.startsWith(INCOMING),
    );
    if (records.length > 0) intakeQueue.send(JSON.stringify({ Records: records }));
  });
  const client = s3Client({ region: LOCAL_REGION, endpoints: { s3: s3.endpoint }, credentials: LOCAL_CREDENTIALS });
  return {
    bucket,
    s3,
    dynamo,
    sfn,
    stateMachineArn,
    env,
    s3Client: client,
    objects: new ObjectStore(client),
    intakeQueue,
    async close() {
      await intakeQueue.idle();
      client.destroy();
      await sfn.close();
      await Promise.all([s3.close(), dynamo.close()]);
    },
  };
}
