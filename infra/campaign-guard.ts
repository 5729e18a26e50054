import { Aws, Duration, Stack } from 'aws-cdk-lib';
import type { TableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { SqsDestination } from 'aws-cdk-lib/aws-lambda-destinations';
import type { Bucket } from 'aws-cdk-lib/aws-s3';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import type { StateMachine } from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import { stepWorstCaseSeconds } from '#lifecycle/config.ts';
import { GUARD_RETRY_ATTEMPTS } from '#lifecycle/safety-net/config.ts';
import { guardEventPattern } from '#lifecycle/safety-net/event-pattern.ts';
import { CallsheetFunction } from './callsheet-function.ts';
import { LIFECYCLE_NAME } from './campaign-lifecycle.ts';
import { acknowledge } from './nag.ts';
import type { VoiceApiCredentials } from './voice-api-credentials.ts';

export interface CampaignGuardProps {
  /** The lifecycle state machine whose executions are guarded. */
  stateMachine: StateMachine;
  campaigns: TableV2;
  /** The account-wide API budget: pauses and brakes draw on its safety share, which nothing else may spend. */
  apiBudgetTable: TableV2;
  /** The upload bucket: a part whose workflow ended badly gets its report under reports/ from the guard. */
  bucket: Bucket;
  credentials: VoiceApiCredentials;
  /** Function settings (the lifecycle's: API, margins; plus SWEEP_INTERVAL_MINUTES, OVERDUE_GRACE_MINUTES). */
  settings: Record<string, string>;
}

/**
 * The safety net outside the workflow: a guard woken by an EventBridge rule when a lifecycle execution fails,
 * times out or is stopped, and a sweeper on a schedule that checks every unfinished part. Both pause the vendor
 * campaign (or deactivate its agent) and emit GuardActions / SweeperActions metrics (dimension `outcome`); the
 * stack's monitoring (infra/monitoring.ts) sums those series into alarms on the notification topic.
 */
export class CampaignGuard extends Construct {
  public readonly guard: CallsheetFunction;
  public readonly sweeper: CallsheetFunction;
  public readonly statusRule: Rule;
  public readonly sweepRule: Rule;
  /** Guard events EventBridge could not deliver, and guard invocations that failed on every attempt. */
  public readonly failures: Queue;
  /** How often the sweeper is scheduled (its heartbeat alarm allows for a few intervals). */
  public readonly sweepInterval: Duration;

  constructor(scope: Construct, id: string, props: CampaignGuardProps) {
    super(scope, id);
    const sweepMinutes = Number(props.settings.SWEEP_INTERVAL_MINUTES ?? 5);
    const settings = Object.fromEntries(
      Object.entries(props.settings).filter(([name]) => name !== 'LIFECYCLE_TIMEOUT_SECONDS'),
    );
    const timeout = Duration.seconds(stepWorstCaseSeconds(Number(props.settings.VOICE_API_TIMEOUT_SECONDS ?? 10)));
    this.guard = new CallsheetFunction(this, 'Guard', {
      folder: 'guard',
      description: 'callsheet: pauses the campaign of a lifecycle execution that failed, timed out or was stopped',
      environment: settings,
      timeout,
    });
    // A sweep visits every unfinished part, each with a few API calls.
    this.sweeper = new CallsheetFunction(this, 'Sweeper', {
      folder: 'sweeper',
      description: 'callsheet: every few minutes, secures campaigns whose window closed or whose workflow is gone',
      environment: settings,
      timeout: Duration.minutes(Math.min(15, Math.max(5, sweepMinutes))),
    });
    const account = Stack.of(this).account;
    const executions = `arn:${Aws.PARTITION}:states:${Aws.REGION}:${account}:execution:${LIFECYCLE_NAME}:*`;
    for (const fn of [this.guard, this.sweeper]) {
      fn.bindTable('campaigns', props.campaigns, 'readWrite');
      fn.bindBudget(props.apiBudgetTable);
      props.credentials.bindTo(fn.fn);
      fn.fn.addToRolePolicy(new PolicyStatement({ actions: ['states:DescribeExecution'], resources: [executions] }));
      props.bucket.grantRead(fn.fn, 'reports/*');
      props.bucket.grantPut(fn.fn, 'reports/*');
      acknowledge(
        fn.fn,
        'DescribeExecution on the executions of the one lifecycle state machine (their names are per part), and the part reports under reports/ of the upload bucket (read and write, with the S3 action groups CDK grants for them).',
        [
          `IAM5[Resource::arn:<AWS::Partition>:states:<AWS::Region>:<AWS::AccountId>:execution:${LIFECYCLE_NAME}:*]`,
          'IAM5[Action::s3:GetObject*]',
          'IAM5[Action::s3:GetBucket*]',
          'IAM5[Action::s3:List*]',
          'IAM5[Action::s3:Abort*]',
          'IAM5[Resource::<Uploads81B643AD.Arn>/reports/*]',
        ],
      );
    }
    // A lost guard event is a campaign nobody secures: both ways of losing one end in this queue, which an alarm
    // watches (infra/monitoring.ts). SQS-managed encryption: a rule's dead-letter queue cannot use the AWS-managed key.
    this.failures = new Queue(this, 'GuardFailures', {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
    });
    acknowledge(
      this.failures,
      'This queue is itself a dead-letter queue (of the guard rule’s target and of the guard’s async invocations); an operator reads it, nothing consumes it.',
      ['SQS3'],
    );
    // Invocations that throw are tried twice more, then recorded with their event.
    this.guard.fn.configureAsyncInvoke({
      onFailure: new SqsDestination(this.failures),
      retryAttempts: GUARD_RETRY_ATTEMPTS,
      maxEventAge: Duration.hours(2),
    });
    // Step Functions sends execution status changes to the default bus.
    this.statusRule = new Rule(this, 'ExecutionEnded', {
      description: 'callsheet: lifecycle executions that failed, timed out or were aborted',
      eventPattern: guardEventPattern(props.stateMachine.stateMachineArn),
      targets: [
        new LambdaFunction(this.guard.fn, {
          retryAttempts: 8,
          maxEventAge: Duration.hours(2),
          deadLetterQueue: this.failures,
        }),
      ],
    });
    this.sweepInterval = Duration.minutes(sweepMinutes);
    this.sweepRule = new Rule(this, 'Sweep', {
      description: 'callsheet: the sweeper’s schedule',
      schedule: Schedule.rate(this.sweepInterval),
      targets: [new LambdaFunction(this.sweeper.fn, { retryAttempts: 2 })],
    });
  }
}
