import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import {
  BlockPublicAccess,
  Bucket,
  BucketEncryption,
  EventType,
  type LifecycleRule,
  ObjectOwnership,
} from 'aws-cdk-lib/aws-s3';
import { SqsDestination } from 'aws-cdk-lib/aws-s3-notifications';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { INTAKE_TIMEOUT_SECONDS } from '#commons/queue-settings.ts';
import { queueWithDeadLetters } from './queues.ts';

/**
 * The bucket users drop sheets into (incoming/<agent>/<file>) and read reports from, with its access log bucket,
 * and the queue its upload events go to. Versioned, so every upload version has its own identity and an original
 * is never lost; only incoming/ raises events.
 */
export interface UploadBucketProps {
  /** Days originals (processed/, rejected/) and parts (parts/) are kept. */
  uploadRetentionDays: number;
  /** Days reports (reports/) are kept. */
  reportRetentionDays: number;
}

/** Where each prefix's objects go (docs/operations.md, "Retention"). incoming/ holds only unprocessed uploads. */
function retentionRules(props: UploadBucketProps): LifecycleRule[] {
  return [
    // Intake deletes an original's version from incoming/ after copying it: only that old version and its delete
    // marker remain, and nothing reads them.
    {
      id: 'incoming-processed-versions',
      prefix: 'incoming/',
      noncurrentVersionExpiration: Duration.days(7),
      expiredObjectDeleteMarker: true,
    },
    // contacts/: contact sheets dropped for sync (infra/contacts.ts), kept as long as uploaded call sheets.
    ...(['processed/', 'rejected/', 'parts/', 'contacts/'] as const).map((prefix) => ({
      id: `${prefix.slice(0, -1)}-retention`,
      prefix,
      expiration: Duration.days(props.uploadRetentionDays),
      noncurrentVersionExpiration: Duration.days(1),
    })),
    {
      id: 'reports-retention',
      prefix: 'reports/',
      expiration: Duration.days(props.reportRetentionDays),
      noncurrentVersionExpiration: Duration.days(1),
    },
    { id: 'abandoned-multipart-uploads', abortIncompleteMultipartUploadAfter: Duration.days(7) },
  ];
}

export class UploadBucket extends Construct {
  public readonly bucket: Bucket;
  public readonly queue: Queue;
  public readonly deadLetters: Queue;

  constructor(scope: Construct, id: string, props: UploadBucketProps) {
    super(scope, id);
    const logs = new Bucket(this, 'AccessLogs', {
      encryption: BucketEncryption.S3_MANAGED,
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      enforceSSL: true,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_PREFERRED,
      removalPolicy: RemovalPolicy.RETAIN,
      lifecycleRules: [{ expiration: Duration.days(365) }],
    });
    this.bucket = new Bucket(this, 'Uploads', {
      versioned: true,
      encryption: BucketEncryption.S3_MANAGED,
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      enforceSSL: true,
      serverAccessLogsBucket: logs,
      serverAccessLogsPrefix: 'uploads/',
      removalPolicy: RemovalPolicy.RETAIN,
      lifecycleRules: retentionRules(props),
    });
    ({ queue: this.queue, deadLetters: this.deadLetters } = queueWithDeadLetters(this, 'Intake', {
      consumerTimeout: Duration.seconds(INTAKE_TIMEOUT_SECONDS),
    }));
    this.bucket.addEventNotification(EventType.OBJECT_CREATED, new SqsDestination(this.queue), {
      prefix: 'incoming/',
    });
  }
}
