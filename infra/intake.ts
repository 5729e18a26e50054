import { Duration } from 'aws-cdk-lib';
import type { TableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import type { StateMachine } from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import { INTAKE_TIMEOUT_SECONDS } from '#commons/queue-settings.ts';
import { PHONE_METADATA, PHONE_ZONE_TABLE } from './bundling.ts';
import { CallsheetFunction } from './callsheet-function.ts';
import { acknowledge } from './nag.ts';
import type { UploadBucket } from './upload-bucket.ts';
import type { VoiceApiCredentials } from './voice-api-credentials.ts';

export interface IntakeProps {
  uploads: UploadBucket;
  uploadsTable: TableV2;
  suppressionTable: TableV2;
  /** Frequency caps: each admitted number's reservations (functions/intake/caps.ts). */
  outcomesTable: TableV2;
  /** The account's API budget, which the agent look-up draws on (functions/commons/api-budget). */
  apiBudgetTable: TableV2;
  lifecycle: StateMachine;
  credentials: VoiceApiCredentials;
  /** Uploads processed at once (infra/settings.ts, INTAKE_CONCURRENCY). */
  concurrency: number;
}

const PREFIXES = ['incoming/', 'processed/', 'rejected/', 'reports/', 'parts/'] as const;

/**
 * Exactly what intake does in S3 (functions/intake/intake-service.ts): read the upload version, write the report,
 * the parts and the copy of the original, check for an earlier copy, delete the original version from incoming/.
 * ListBucket only so a missing object answers 404, not 403.
 */
export function grantUploadAccess(fn: IFunction, bucket: IBucket): void {
  const objects = (...prefixes: string[]) => prefixes.map((p) => bucket.arnForObjects(`${p}*`));
  fn.addToRolePolicy(
    new PolicyStatement({
      actions: ['s3:GetObject', 's3:GetObjectVersion'],
      // parts/: the launch record an earlier attempt wrote (functions/intake/launch-record.ts).
      resources: objects('incoming/', 'processed/', 'rejected/', 'parts/'),
    }),
  );
  fn.addToRolePolicy(
    new PolicyStatement({
      actions: ['s3:PutObject'],
      resources: objects('reports/', 'parts/', 'processed/', 'rejected/'),
    }),
  );
  fn.addToRolePolicy(
    new PolicyStatement({ actions: ['s3:DeleteObject', 's3:DeleteObjectVersion'], resources: objects('incoming/') }),
  );
  fn.addToRolePolicy(new PolicyStatement({ actions: ['s3:ListBucket'], resources: [bucket.bucketArn] }));
}

/** The intake function behind the upload queue: validates each sheet, reports, and starts its parts. */
export class Intake extends Construct {
  public readonly function: CallsheetFunction;

  constructor(scope: Construct, id: string, props: IntakeProps) {
    super(scope, id);
    this.function = new CallsheetFunction(this, 'Function', {
      folder: 'intake',
      readsSheets: true,
      description: 'callsheet: validate an uploaded sheet, report on every row, start one lifecycle per part',
      timeout: Duration.seconds(INTAKE_TIMEOUT_SECONDS),
      memorySize: 2048,
      reservedConcurrency: props.concurrency,
      dataFiles: [PHONE_ZONE_TABLE, PHONE_METADATA],
    });
    const fn = this.function.fn;
    this.function.bindTable('uploads', props.uploadsTable, 'readWrite');
    this.function.bindTable('suppression', props.suppressionTable, 'read');
    this.function.bindTable('outcomes', props.outcomesTable, 'readWrite');
    this.function.bindBudget(props.apiBudgetTable);
    props.credentials.bindTo(fn);
    grantUploadAccess(fn, props.uploads.bucket);
    props.lifecycle.grantStartExecution(fn);
    fn.addEnvironment('LIFECYCLE_STATE_MACHINE_ARN', props.lifecycle.stateMachineArn);
    fn.addEventSource(
      new SqsEventSource(props.uploads.queue, {
        batchSize: 1,
        reportBatchItemFailures: true,
        // No more pollers than instances, so a burst waits in the queue instead of being throttled.
        maxConcurrency: props.concurrency,
      }),
    );
    acknowledge(
      fn,
      'Object-level grants on five prefixes of its own bucket: read incoming/ (any upload version), read and write processed/ and rejected/ (the moved originals) and parts/ (part files and the launch record a retry reads), write reports/; delete only under incoming/.',
      [...PREFIXES.map((p) => `IAM5[Resource::<Uploads81B643AD.Arn>/${p}*]`)],
    );
  }
}
