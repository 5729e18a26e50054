import { Duration } from 'aws-cdk-lib';
import type { TableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { type IEventBus, Rule } from 'aws-cdk-lib/aws-events';
import { SqsQueue } from 'aws-cdk-lib/aws-events-targets';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { type Bucket, EventType } from 'aws-cdk-lib/aws-s3';
import { SqsDestination } from 'aws-cdk-lib/aws-s3-notifications';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { CONTACTS_TIMEOUT_SECONDS } from '#commons/queue-settings.ts';
import { TABLES } from '#commons/tables.ts';
import { CONTACT_UPSERTED } from '#contacts/contact-event.ts';
import { CONTACT_SHEETS } from '#contacts/sheet-intake.ts';
import { PHONE_METADATA } from './bundling.ts';
import { CallsheetFunction } from './callsheet-function.ts';
import { grantOptOutWrites } from './data-tables.ts';
import { acknowledge } from './nag.ts';
import { queueWithDeadLetters } from './queues.ts';
import type { VoiceApiCredentials } from './voice-api-credentials.ts';

export interface ContactsProps {
  bucket: Bucket;
  contactsTable: TableV2;
  /** The do-not-call list an opt-out change (a do_not_call tag, an opt-out lead status) puts its number on. */
  suppressionTable: TableV2;
  apiBudgetTable: TableV2;
  /** callsheet's bus: `Contact Upserted` events published there are synced. */
  events: IEventBus;
  credentials: VoiceApiCredentials;
  settings: Record<string, string>;
}

const SYNC_TIMEOUT = Duration.seconds(CONTACTS_TIMEOUT_SECONDS);

/**
 * Contact sync: one queue fed by the bus's `Contact Upserted` events and by contact sheets dropped under contacts/,
 * its dead-letter queue (where the function puts poison and invalid events with their reason), and the function
 * that stores each change once and pushes changed contacts in bulk within the account's API budget.
 */
export class Contacts extends Construct {
  public readonly function: CallsheetFunction;
  public readonly queue: Queue;
  public readonly deadLetters: Queue;

  constructor(scope: Construct, id: string, props: ContactsProps) {
    super(scope, id);
    const maxReceives = Number(props.settings.CONTACTS_MAX_RECEIVES ?? 5);
    const queues = queueWithDeadLetters(this, 'Contact', {
      // A push's claim is the function's timeout.
      consumerTimeout: SYNC_TIMEOUT,
      // Event ids are remembered 15 days: a message can never outlive its event's memory.
      retentionPeriod: Duration.days(14),
      // The function dead-letters with the reason on delivery CONTACTS_MAX_RECEIVES; this is the safety net.
      maxReceiveCount: maxReceives + 2,
    });
    this.queue = queues.queue;
    this.deadLetters = queues.deadLetters;

    this.function = new CallsheetFunction(this, 'Function', {
      folder: 'contacts',
      readsSheets: true,
      dataFiles: [PHONE_METADATA],
      description: 'callsheet: store contact changes once and push them to the Voice API in bulk, within the budget',
      timeout: SYNC_TIMEOUT,
      memorySize: 1024,
      environment: {
        ...props.settings,
        CONTACTS_QUEUE_URL: this.queue.queueUrl,
        CONTACTS_DLQ_URL: this.deadLetters.queueUrl,
      },
    });
    const fn = this.function.fn;
    // Gets, conditional puts and updates of contacts, notes and event ids, and batch puts marking a batch's event
    // ids applied; no scans, no deletes.
    fn.addEnvironment(TABLES.contacts.env, props.contactsTable.tableName);
    props.contactsTable.grant(
      fn,
      'dynamodb:GetItem',
      'dynamodb:BatchGetItem',
      'dynamodb:PutItem',
      'dynamodb:UpdateItem',
      'dynamodb:BatchWriteItem',
    );
    this.function.bindBudget(props.apiBudgetTable);
    grantOptOutWrites(props.suppressionTable, fn);
    props.credentials.bindTo(fn);
    props.bucket.grantRead(fn, `${CONTACT_SHEETS}*`);
    props.bucket.grantPut(fn, 'reports/contacts/*');
    this.queue.grantSendMessages(fn);
    this.deadLetters.grantSendMessages(fn);
    fn.addEventSource(
      new SqsEventSource(this.queue, {
        // Many events per invocation, so contacts go 100 to a request; two at a time, as the budget is shared.
        batchSize: 500,
        maxBatchingWindow: Duration.seconds(5),
        reportBatchItemFailures: true,
        maxConcurrency: 2,
      }),
    );

    new Rule(this, 'ContactUpserted', {
      eventBus: props.events,
      description: 'Contact Upserted events to the contact queue',
      eventPattern: { detailType: [CONTACT_UPSERTED] },
      targets: [new SqsQueue(this.queue, { deadLetterQueue: this.deadLetters, retryAttempts: 185 })],
    });
    props.bucket.addEventNotification(EventType.OBJECT_CREATED, new SqsDestination(this.queue), {
      prefix: CONTACT_SHEETS,
    });

    acknowledge(
      fn,
      'The contact function reads only contact sheets under contacts/ and writes only reports/contacts/ of the upload bucket (the S3 action groups CDK grants).',
      [
        'IAM5[Action::s3:GetObject*]',
        'IAM5[Action::s3:GetBucket*]',
        'IAM5[Action::s3:List*]',
        'IAM5[Action::s3:Abort*]',
        'IAM5[Resource::<Uploads81B643AD.Arn>/contacts/*]',
        'IAM5[Resource::<Uploads81B643AD.Arn>/reports/contacts/*]',
      ],
    );
  }
}
