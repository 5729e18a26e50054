import { Duration } from 'aws-cdk-lib';
import type { TableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { FunctionUrlAuthType } from 'aws-cdk-lib/aws-lambda';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { OUTCOMES_TIMEOUT_SECONDS } from '#commons/queue-settings.ts';
import { TABLES } from '#commons/tables.ts';
import { CallsheetFunction } from './callsheet-function.ts';
import { grantOptOutWrites } from './data-tables.ts';
import { queueWithDeadLetters } from './queues.ts';
import type { VoiceApiCredentials } from './voice-api-credentials.ts';

export interface WebhooksProps {
  outcomesTable: TableV2;
  suppressionTable: TableV2;
  /** The account-wide Voice API budget the processor takes its reads from. */
  apiBudgetTable: TableV2;
  credentials: VoiceApiCredentials;
  settings: Record<string, string>;
}

const PROCESSOR_TIMEOUT = Duration.seconds(OUTCOMES_TIMEOUT_SECONDS);

/**
 * Call outcomes: the webhook receiver behind a public Function URL (the vendor's signature is its only
 * credential), the outcomes queue with its dead letters, and the processor that records outcomes and opt-outs.
 */
export class Webhooks extends Construct {
  public readonly receiver: CallsheetFunction;
  public readonly processor: CallsheetFunction;
  public readonly queue: Queue;
  public readonly deadLetters: Queue;
  /** The receiver's Function URL, which the vendor posts call events to (the stack's `WebhookUrl` output). */
  public readonly url: string;

  constructor(scope: Construct, id: string, props: WebhooksProps) {
    super(scope, id);
    ({ queue: this.queue, deadLetters: this.deadLetters } = queueWithDeadLetters(this, 'Outcome', {
      consumerTimeout: PROCESSOR_TIMEOUT,
    }));

    this.receiver = new CallsheetFunction(this, 'Receiver', {
      folder: 'webhooks',
      description: 'callsheet: verify signed Voice API webhooks and queue call outcomes',
      timeout: Duration.seconds(10),
      memorySize: 512,
      environment: { OUTCOMES_QUEUE_URL: this.queue.queueUrl },
    });
    const receiver = this.receiver.fn;
    // Replay claims only: put, confirm, release. No reads of outcomes, no scans.
    receiver.addEnvironment(TABLES.outcomes.env, props.outcomesTable.tableName);
    props.outcomesTable.grant(receiver, 'dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem');
    props.credentials.bindTo(receiver);
    this.queue.grantSendMessages(receiver);
    // Auth NONE on purpose: the vendor posts without AWS credentials (SigV4) and cannot be given any; every request
    // is authenticated by the HMAC of its raw body instead, before anything else is done with it. (AwsSolutions
    // has no rule on Function URL auth; the Serverless pack's LambdaFunctionUrlAuth would need this reason.)
    this.url = receiver.addFunctionUrl({ authType: FunctionUrlAuthType.NONE }).url;

    this.processor = new CallsheetFunction(this, 'Processor', {
      folder: 'outcomes',
      description: 'callsheet: record call outcomes per contact and suppress numbers that opted out',
      timeout: PROCESSOR_TIMEOUT,
      memorySize: 512,
      environment: { ...props.settings },
    });
    const processor = this.processor.fn;
    processor.addEnvironment(TABLES.outcomes.env, props.outcomesTable.tableName);
    props.outcomesTable.grant(processor, 'dynamodb:UpdateItem', 'dynamodb:GetItem');
    grantOptOutWrites(props.suppressionTable, processor);
    props.credentials.bindTo(processor);
    this.processor.bindBudget(props.apiBudgetTable);
    processor.addEventSource(
      new SqsEventSource(this.queue, {
        batchSize: 10,
        reportBatchItemFailures: true,
        // Two processors at most: completed calls are read from the API, whose per-minute budget is shared.
        maxConcurrency: 2,
      }),
    );
  }
}
