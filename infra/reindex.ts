import { Duration } from 'aws-cdk-lib';
import type { TableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { StateMachine } from 'aws-cdk-lib/aws-stepfunctions';
import { Trigger } from 'aws-cdk-lib/triggers';
import { Construct } from 'constructs';
import { TABLES } from '#commons/tables.ts';
import { DRAIN_SECONDS } from '#intake/reindex/config.ts';
import { CallsheetFunction } from './callsheet-function.ts';

export interface ReindexProps {
  suppressionTable: TableV2;
  outcomesTable: TableV2;
  /** The lifecycle: executions started before an upgrade keep running the code they started with. */
  lifecycle: StateMachine;
  /**
   * The functions that write those tables (intake, lifecycle steps, outcome processor): on an upgrade nothing is
   * marked before the longest of their timeouts has passed, for invocations of the version before to finish.
   */
  writers: CallsheetFunction[];
  /** What must be deployed before it runs: the tables and every function that reads or writes them, at least. */
  after: Construct[];
}

/** A fold of a large outcomes table is one scan of it; Lambda's limit is 15 minutes. */
const TIMEOUT = Duration.minutes(14);
/** How long the trigger's provider waits for the reindex: its whole timeout, and a little more. */
const WAIT = Duration.seconds(TIMEOUT.toSeconds() + 30);
/** How often it looks again while an upgrade waits; on marked tables a run is two reads. */
export const REINDEX_INTERVAL = Duration.minutes(15);

/**
 * Folds the do-not-call list and the call counts kept before the shards into them and marks both tables indexed
 * (functions/intake/reindex/after-deploy.ts), so no operator has to run `callsheet suppress reindex` and
 * `callsheet caps reindex`. A CDK trigger runs it once the stack's other resources are in place (on the first deploy
 * and whenever its code or configuration changes; a failure fails the deploy): a new install is marked there and
 * then. An upgrade is marked by a later run, every REINDEX_INTERVAL, once nothing of the version before can write.
 */
export class Reindex extends Construct {
  public readonly function: CallsheetFunction;
  public readonly trigger: Trigger;
  public readonly schedule: Rule;

  constructor(scope: Construct, id: string, props: ReindexProps) {
    super(scope, id);
    const drain = Math.max(...props.writers.map((w) => w.fn.timeout?.toSeconds() ?? 0));
    this.function = new CallsheetFunction(this, 'Function', {
      folder: 'reindex',
      description: 'callsheet: folds the do-not-call list and call counts kept before the shards into them',
      timeout: TIMEOUT,
      memorySize: 1024,
      environment: { [DRAIN_SECONDS]: String(drain) },
    });
    const fn = this.function.fn;
    // Exactly what suppression-list.ts and frequency-cap-store.ts do to fold and mark, one counting scan each, and
    // the upgrade's moment in the outcomes table (reindex/upgrade.ts).
    fn.addEnvironment(TABLES.suppression.env, props.suppressionTable.tableName);
    props.suppressionTable.grant(fn, 'dynamodb:Scan', 'dynamodb:BatchGetItem', 'dynamodb:GetItem', 'dynamodb:PutItem');
    fn.addEnvironment(TABLES.outcomes.env, props.outcomesTable.tableName);
    props.outcomesTable.grant(fn, 'dynamodb:Scan', 'dynamodb:GetItem', 'dynamodb:PutItem');
    fn.addEnvironment('LIFECYCLE_STATE_MACHINE_ARN', props.lifecycle.stateMachineArn);
    fn.addToRolePolicy(
      new PolicyStatement({ actions: ['states:ListExecutions'], resources: [props.lifecycle.stateMachineArn] }),
    );

    // CDK adds the trigger's provider to the stack once: a function whose role may invoke this function's versions
    // (`<ARN>:*`) and write logs (AWSLambdaBasicExecutionRole), run only while a deploy runs.
    this.trigger = new Trigger(this, 'Trigger', { handler: fn, timeout: WAIT, executeAfter: props.after });
    this.schedule = new Rule(this, 'Schedule', {
      description: 'callsheet: marks the lookups indexed once an upgrade allows (a no-op once marked)',
      schedule: Schedule.rate(REINDEX_INTERVAL),
      targets: [new LambdaFunction(fn, { retryAttempts: 0 })],
    });
  }
}
