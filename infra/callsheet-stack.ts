import { CfnOutput, Stack, type StackProps } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import { CampaignGuard } from './campaign-guard.ts';
import { CampaignLifecycle } from './campaign-lifecycle.ts';
import { Contacts } from './contacts.ts';
import { DataTables } from './data-tables.ts';
import { Intake } from './intake.ts';
import { Monitoring } from './monitoring.ts';
import { acknowledge, BASIC_EXECUTION_ROLE } from './nag.ts';
import { Reindex } from './reindex.ts';
import { attachSettings, Settings } from './settings.ts';
import { UploadBucket } from './upload-bucket.ts';
import { VoiceApiCredentials } from './voice-api-credentials.ts';
import { Webhooks } from './webhooks.ts';

/** Everything callsheet deploys. */
export class CallsheetStack extends Stack {
  public readonly credentials: VoiceApiCredentials;
  public readonly uploads: UploadBucket;
  public readonly data: DataTables;
  public readonly lifecycle: CampaignLifecycle;
  public readonly guard: CampaignGuard;
  public readonly intake: Intake;
  public readonly webhooks: Webhooks;
  public readonly contacts: Contacts;
  public readonly settings: Settings;
  public readonly monitoring: Monitoring;
  public readonly reindex: Reindex;

  constructor(scope: Construct, id: string, props?: StackProps) {
    super(scope, id, props);
    // callsheet.config.json and -c callsheet:NAME=… (infra/settings.ts), checked here; every function gets the
    // settings its folder reads. VOICE_API_URL has no default: a made-up URL would fail on every upload.
    const settings = Settings.load(this, new URL('..', import.meta.url).pathname);
    this.settings = settings;
    attachSettings(this, settings);
    this.credentials = new VoiceApiCredentials(this, 'VoiceApiCredentials', {
      secretName: String(settings.get('VOICE_API_SECRET_NAME')),
    });
    this.uploads = new UploadBucket(this, 'Uploads', {
      uploadRetentionDays: settings.integer('UPLOAD_RETENTION_DAYS'),
      reportRetentionDays: settings.integer('REPORT_RETENTION_DAYS'),
    });
    this.data = new DataTables(this, 'Data');
    this.lifecycle = new CampaignLifecycle(this, 'Lifecycle', {
      bucket: this.uploads.bucket,
      campaigns: this.data.tables.campaigns,
      outcomes: this.data.tables.outcomes,
      suppression: this.data.tables.suppression,
      apiBudgetTable: this.data.tables.apiBudget,
      credentials: this.credentials,
      settings: settings.propsFor('lifecycle'),
    });
    this.guard = new CampaignGuard(this, 'Guard', {
      stateMachine: this.lifecycle.stateMachine,
      campaigns: this.data.tables.campaigns,
      apiBudgetTable: this.data.tables.apiBudget,
      bucket: this.uploads.bucket,
      credentials: this.credentials,
      settings: settings.propsFor('guard', 'sweeper'),
    });
    this.intake = new Intake(this, 'Intake', {
      uploads: this.uploads,
      uploadsTable: this.data.tables.uploads,
      suppressionTable: this.data.tables.suppression,
      outcomesTable: this.data.tables.outcomes,
      apiBudgetTable: this.data.tables.apiBudget,
      lifecycle: this.lifecycle.stateMachine,
      credentials: this.credentials,
      concurrency: settings.concurrency().intake,
    });
    this.webhooks = new Webhooks(this, 'Webhooks', {
      outcomesTable: this.data.tables.outcomes,
      suppressionTable: this.data.tables.suppression,
      apiBudgetTable: this.data.tables.apiBudget,
      credentials: this.credentials,
      settings: settings.propsFor('outcomes'),
    });
    this.contacts = new Contacts(this, 'Contacts', {
      bucket: this.uploads.bucket,
      contactsTable: this.data.tables.contacts,
      suppressionTable: this.data.tables.suppression,
      apiBudgetTable: this.data.tables.apiBudget,
      events: this.lifecycle.events,
      credentials: this.credentials,
      settings: settings.propsFor('contacts'),
    });
    // A launched sheet's accepted rows reach the contact store (functions/intake/campaign-contacts.ts).
    this.intake.function.fn.addEnvironment('CONTACTS_QUEUE_URL', this.contacts.queue.queueUrl);
    this.contacts.queue.grantSendMessages(this.intake.function.fn);
    this.monitoring = new Monitoring(this, 'Monitoring', {
      events: this.lifecycle.events,
      lifecycle: this.lifecycle.stateMachine,
      alarmEmail: settings.get('ALARM_EMAIL') as string | undefined,
    });
    this.monitoring.watchFunction('Intake', this.intake.function.fn);
    this.monitoring.watchFunction(
      'Lifecycle',
      this.lifecycle.steps.fn,
      'Step Functions retries the step, but a look, and so a pause, may come late (LIFECYCLE_CONCURRENCY).',
    );
    this.monitoring.watchFunction(
      'Guard',
      this.guard.guard.fn,
      'Lambda retries the event, but a campaign whose workflow ended waits to be secured (GUARD_CONCURRENCY).',
    );
    this.monitoring.watchFunction(
      'Sweeper',
      this.guard.sweeper.fn,
      'a sweep ran past the next one, or instances are short (SWEEPER_CONCURRENCY).',
    );
    this.monitoring.watchHeartbeat('Sweeper', this.guard.sweeper.fn, this.guard.sweepInterval);
    this.monitoring.watchSweeperCalls(this.guard.sweepInterval);
    this.monitoring.watchQueue('Guard', this.guard.failures, {
      id: 'GuardFailures',
      description:
        'A guard event was not delivered or its guard failed on every attempt: check and secure the campaign of each message by hand.',
    });
    this.monitoring.watchFunction(
      'WebhookReceiver',
      this.webhooks.receiver.fn,
      'webhooks were answered 429 (a flood on the URL, or WEBHOOK_CONCURRENCY too low); lost outcomes come back with reconcileOutcomes.',
    );
    this.monitoring.watchFunction('OutcomeProcessor', this.webhooks.processor.fn);
    this.monitoring.watchQueue('Intake', this.uploads.deadLetters);
    this.monitoring.watchQueue('Outcomes', this.webhooks.deadLetters);
    this.monitoring.watchFunction('Contacts', this.contacts.function.fn);
    this.monitoring.watchQueue('Contacts', this.contacts.deadLetters);
    // Last: every function that reads or writes the lookups runs the new version by the time it folds them.
    this.reindex = new Reindex(this, 'Reindex', {
      suppressionTable: this.data.tables.suppression,
      outcomesTable: this.data.tables.outcomes,
      lifecycle: this.lifecycle.stateMachine,
      writers: [this.intake.function, this.lifecycle.steps, this.webhooks.processor],
      after: [
        this.data,
        this.uploads,
        this.lifecycle,
        this.guard,
        this.intake,
        this.webhooks,
        this.contacts,
        this.monitoring,
      ],
    });
    this.outputs();

    // CDK's own singleton that configures bucket notifications.
    const notifications = this.node.tryFindChild('BucketNotificationsHandler050a0587b7544547bf325f094a3db834');
    if (notifications)
      acknowledge(
        notifications,
        'CDK’s bucket-notification handler is a singleton CDK creates with AWSLambdaBasicExecutionRole (log writes to any log group, no data access); it runs only while a deploy configures the bucket.',
        [BASIC_EXECUTION_ROLE],
      );
  }

  /** What an operator needs after a deploy (`cdk deploy` prints them). WebhookUrl comes from infra/webhooks.ts. */
  private outputs(): void {
    new CfnOutput(this, 'UploadBucketName', {
      description: 'The bucket: sheets go under UploadPrefix, reports appear under reports/',
      value: this.uploads.bucket.bucketName,
    });
    new CfnOutput(this, 'UploadPrefix', {
      description: 'Where a sheet goes: incoming/<agent id or unique agent name>/<file>',
      value: 'incoming/',
    });
    // On the stack, as the others: inside the Webhooks construct its name would carry the construct's path and a hash.
    new CfnOutput(this, 'WebhookUrl', {
      description: 'Paste into the Voice API dashboard as the webhook endpoint (call.completed, call.failed)',
      value: this.webhooks.url,
    });
    new CfnOutput(this, 'AlarmTopicArn', {
      description: 'Alarms and campaign completed/failed events (subscribe, or set ALARM_EMAIL)',
      value: this.monitoring.topic.topicArn,
    });
    new CfnOutput(this, 'DashboardUrl', {
      description: 'The CloudWatch dashboard',
      value: `https://console.aws.amazon.com/cloudwatch/home?region=${this.region}#dashboards:name=${this.monitoring.dashboard.dashboardName}`,
    });
    new CfnOutput(this, 'CampaignsTableName', {
      description: 'For callsheet campaign pause|resume|cancel against this stack: CAMPAIGNS_TABLE=<this>',
      value: this.data.tables.campaigns.tableName,
    });
    new CfnOutput(this, 'UploadsTableName', {
      description: 'For callsheet status to list uploads that launched nothing: UPLOADS_TABLE=<this>',
      value: this.data.tables.uploads.tableName,
    });
    // What the runbooks name (docs/operations.md): each dead-letter queue to read and redrive, and the guard.
    const queues = {
      IntakeDeadLetters: this.uploads.deadLetters,
      OutcomesDeadLetters: this.webhooks.deadLetters,
      ContactsDeadLetters: this.contacts.deadLetters,
      GuardFailures: this.guard.failures,
    };
    for (const [name, queue] of Object.entries(queues)) {
      new CfnOutput(this, `${name}QueueUrl`, {
        description: `The ${name} queue: aws sqs receive-message --queue-url <this>`,
        value: queue.queueUrl,
      });
      new CfnOutput(this, `${name}QueueArn`, {
        description: `The ${name} queue: aws sqs start-message-move-task --source-arn <this> (redrive)`,
        value: queue.queueArn,
      });
    }
    new CfnOutput(this, 'GuardFunctionName', {
      description:
        'To run the guard on an event again: aws lambda invoke --function-name <this> --invocation-type Event',
      value: this.guard.guard.fn.functionName,
    });
    new CfnOutput(this, 'VoiceApiSecretName', {
      description:
        'The secret to fill and rotate: {"apiKey": …, "webhookSecret": …} (README, Deploy; docs/operations.md)',
      value: this.credentials.secret.secretName,
    });
  }
}
