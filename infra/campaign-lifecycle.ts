import { Aws, Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import type { TableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { EventBus } from 'aws-cdk-lib/aws-events';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { LogGroup } from 'aws-cdk-lib/aws-logs';
import type { Bucket } from 'aws-cdk-lib/aws-s3';
import { DefinitionBody, LogLevel, StateMachine, StateMachineType } from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import { stepWorstCaseSeconds } from '#lifecycle/config.ts';
import { DEFAULT_EXECUTION_TIMEOUT_SECONDS, renderLifecycleDocument } from '#state-machines/lifecycle-document.ts';
import { CallsheetFunction, retentionOf } from './callsheet-function.ts';
import { acknowledge } from './nag.ts';
import { settingsOf } from './settings.ts';
import type { VoiceApiCredentials } from './voice-api-credentials.ts';

export const LIFECYCLE_NAME = 'callsheet-lifecycle';

export interface CampaignLifecycleProps {
  bucket: Bucket;
  campaigns: TableV2;
  /** Outcomes at a part's end (exports, follow-up rounds) and frequency caps of follow-up rounds. */
  outcomes: TableV2;
  /** Read at a part's end: numbers suppressed mid-campaign are named and left out of follow-up rounds. */
  suppression: TableV2;
  /** The account-wide API budget: the lifecycle draws on its reserved share. */
  apiBudgetTable: TableV2;
  credentials: VoiceApiCredentials;
  /** Function settings; `LIFECYCLE_TIMEOUT_SECONDS` sets the execution timeout, `VOICE_API_TIMEOUT_SECONDS` the step's. */
  settings: Record<string, string>;
}

/**
 * The lifecycle state machine, deployed from state-machines/campaign-lifecycle.asl.json (the file the local
 * runner executes, rendered by the same function), and the one function behind its Task states.
 *
 * The document names the function's published version, not `$LATEST`: a running execution keeps calling the code
 * it started with across redeploys (Step Functions keeps the definition an execution started with), and only a
 * continuation moves to the new version, reading the older carry through `upgradeCarry`.
 */
/** The state machine's own setting is not a function setting. */
const functionSettings = (settings: Record<string, string>) =>
  Object.fromEntries(Object.entries(settings).filter(([name]) => name !== 'LIFECYCLE_TIMEOUT_SECONDS'));

export class CampaignLifecycle extends Construct {
  public readonly stateMachine: StateMachine;
  public readonly steps: CallsheetFunction;
  public readonly events: EventBus;

  constructor(scope: Construct, id: string, props: CampaignLifecycleProps) {
    super(scope, id);
    this.events = new EventBus(this, 'Events', { eventBusName: 'callsheet' });
    this.steps = new CallsheetFunction(this, 'Steps', {
      folder: 'lifecycle',
      description: 'callsheet: the campaign lifecycle steps (create, watch, pause/resume, report)',
      environment: { EVENT_BUS_NAME: this.events.eventBusName, ...functionSettings(props.settings) },
      // A step that pauses, finds it unconfirmed and brakes makes about ten API calls, each tried twice.
      timeout: Duration.seconds(stepWorstCaseSeconds(Number(props.settings.VOICE_API_TIMEOUT_SECONDS ?? 10))),
    });
    const fn = this.steps.fn;
    this.steps.bindTable('campaigns', props.campaigns, 'readWrite');
    this.steps.bindTable('outcomes', props.outcomes, 'readWrite');
    this.steps.bindTable('suppression', props.suppression, 'read');
    this.steps.bindBudget(props.apiBudgetTable);
    props.credentials.bindTo(fn);
    props.bucket.grantRead(fn, 'parts/*');
    // Follow-up rounds: their sheets under parts/, and the root part's report lists each round started.
    props.bucket.grantPut(fn, 'parts/*');
    props.bucket.grantRead(fn, 'reports/*');
    props.bucket.grantPut(fn, 'reports/*');
    this.events.grantPutEventsTo(fn);

    this.stateMachine = new StateMachine(this, 'StateMachine', {
      stateMachineName: LIFECYCLE_NAME,
      stateMachineType: StateMachineType.STANDARD,
      // Inline, so the template shows exactly the document the local runner executes.
      definitionBody: DefinitionBody.fromString(
        renderLifecycleDocument({
          timeoutSeconds: Number(props.settings.LIFECYCLE_TIMEOUT_SECONDS ?? DEFAULT_EXECUTION_TIMEOUT_SECONDS),
        }),
      ),
      definitionSubstitutions: { LifecycleFunctionArn: fn.currentVersion.functionArn },
      tracingEnabled: settingsOf(this)?.get('TRACING') === true,
      logs: {
        // Kept like the functions' logs: an execution's history is evidence after the stack is gone.
        destination: new LogGroup(this, 'Logs', {
          retention: retentionOf(settingsOf(this)?.integer('LOG_RETENTION_DAYS') ?? 30),
          removalPolicy: RemovalPolicy.RETAIN,
        }),
        level: LogLevel.ALL,
      },
    });
    fn.grantInvoke(this.stateMachine.role);
    // Continue-as-new, follow-up rounds and the transition count: this machine's own executions only (by name, not by token,
    // because the machine's ARN depends on this function).
    const account = Stack.of(this).account;
    fn.addToRolePolicy(
      new PolicyStatement({
        actions: ['states:StartExecution'],
        resources: [`arn:${Aws.PARTITION}:states:${Aws.REGION}:${account}:stateMachine:${LIFECYCLE_NAME}`],
      }),
    );
    fn.addToRolePolicy(
      new PolicyStatement({
        actions: ['states:GetExecutionHistory'],
        resources: [`arn:${Aws.PARTITION}:states:${Aws.REGION}:${account}:execution:${LIFECYCLE_NAME}:*`],
      }),
    );
    acknowledge(
      fn,
      'Scoped wildcards: objects under parts/ and reports/ of the upload bucket (read and write), with the S3 action groups CDK grants for them, and the executions of this one state machine.',
      [
        'IAM5[Action::s3:GetObject*]',
        'IAM5[Action::s3:GetBucket*]',
        'IAM5[Action::s3:List*]',
        'IAM5[Action::s3:Abort*]',
        'IAM5[Resource::<Uploads81B643AD.Arn>/parts/*]',
        'IAM5[Resource::<Uploads81B643AD.Arn>/reports/*]',
        `IAM5[Resource::arn:<AWS::Partition>:states:<AWS::Region>:<AWS::AccountId>:execution:${LIFECYCLE_NAME}:*]`,
      ],
    );
    acknowledge(
      this.stateMachine,
      'The state machine may invoke any version of its one step function, and log delivery and X-Ray need *.',
      ['IAM5[Resource::*]', 'IAM5[Resource::<LifecycleStepsFunction518B6278.Arn>:*]'],
    );
    if (settingsOf(this)?.get('TRACING') !== true)
      acknowledge(
        this.stateMachine,
        'X-Ray is opt-in (the TRACING setting): every execution is logged at level ALL with its data, which is the evidence an operator reads.',
        ['SF2'],
      );
  }
}
