import type { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { alarmOf, functionEntry, functionOf, type Resource, resources, synth } from './template.ts';

/**
 * The safety net deployed: the guard and the sweeper keep their own concurrency whatever floods the public webhook
 * URL, the guard's lost events land somewhere an alarm watches, and a sweeper that stopped running is noticed.
 */
let template: Template;
beforeAll(() => {
  template = synth();
}, 120_000);

const reserved = (t: Template, folder: string) => functionOf(t, folder).Properties.ReservedConcurrentExecutions;
const refTo = (logicalId: string) => ({ Ref: logicalId });
const arnOf = (logicalId: string) => ({ 'Fn::GetAtt': [logicalId, 'Arn'] });

/** The queue the guard's failures go to: the dead-letter queue of its rule's target. */
function guardFailureQueue(t: Template): string {
  const [, rule] = resources(t, 'AWS::Events::Rule').find(([, r]) =>
    JSON.stringify(r.Properties.EventPattern ?? {}).includes('Execution Status Change'),
  ) as [string, Resource];
  const [target] = rule.Properties.Targets as { DeadLetterConfig?: { Arn: { 'Fn::GetAtt': [string, string] } } }[];
  const queue = target?.DeadLetterConfig?.Arn['Fn::GetAtt'][0];
  expect(queue, 'the guard rule target has a dead-letter queue').toBeDefined();
  return queue as string;
}

describe('concurrency the safety net keeps', () => {
  it('reserves instances for the guard and the sweeper and caps the public webhook receiver', () => {
    expect(reserved(template, 'guard')).toBe(5);
    expect(reserved(template, 'sweeper')).toBe(2);
    expect(reserved(template, 'webhooks')).toBe(10);
  });

  it('takes each from its setting', () => {
    const t = synth({
      'callsheet:GUARD_CONCURRENCY': 7,
      'callsheet:SWEEPER_CONCURRENCY': 1,
      'callsheet:WEBHOOK_CONCURRENCY': 25,
    });
    expect(reserved(t, 'guard')).toBe(7);
    expect(reserved(t, 'sweeper')).toBe(1);
    expect(reserved(t, 'webhooks')).toBe(25);
  }, 120_000);
});

describe('the guard’s failures', () => {
  it('sends events the rule could not deliver and invocations that kept failing to one encrypted queue', () => {
    const queue = guardFailureQueue(template);
    const [, q] = resources(template, 'AWS::SQS::Queue').find(([id]) => id === queue) as [string, Resource];
    expect(q.Properties.SqsManagedSseEnabled).toBe(true);
    const [guardId] = functionEntry(template, 'guard');
    const configs = resources(template, 'AWS::Lambda::EventInvokeConfig').filter(
      ([, c]) => JSON.stringify(c.Properties.FunctionName) === JSON.stringify(refTo(guardId)),
    );
    expect(configs).toHaveLength(1);
    expect((configs[0] as [string, Resource])[1].Properties.DestinationConfig).toEqual({
      OnFailure: { Destination: arnOf(queue) },
    });
  });

  it('alarms when anything is in that queue', () => {
    const queue = guardFailureQueue(template);
    const alarm = alarmOf(template, 'GuardFailures');
    expect(alarm.Properties).toMatchObject({
      Namespace: 'AWS/SQS',
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [queue, 'QueueName'] } }],
      Threshold: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
    });
  });
});

describe('throttles and the sweeper’s heartbeat', () => {
  it.each([
    ['GuardThrottles', 'guard'],
    ['SweeperThrottles', 'sweeper'],
    ['WebhookReceiverThrottles', 'webhooks'],
    ['LifecycleThrottles', 'lifecycle'],
  ])('%s alarms on any throttled invocation of the %s function', (name, folder) => {
    const [id] = functionEntry(template, folder);
    expect(alarmOf(template, name).Properties).toMatchObject({
      Namespace: 'AWS/Lambda',
      MetricName: 'Throttles',
      Dimensions: [{ Name: 'FunctionName', Value: refTo(id) }],
      Statistic: 'Sum',
      Threshold: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      // No data is no throttle: these functions are idle most of the time.
      TreatMissingData: 'notBreaching',
    });
  });

  it('alarms when the sweeper was not invoked for three of its intervals, no data counting as not run', () => {
    const [id] = functionEntry(template, 'sweeper');
    const expected = (seconds: number) => ({
      Namespace: 'AWS/Lambda',
      MetricName: 'Invocations',
      Dimensions: [{ Name: 'FunctionName', Value: refTo(id) }],
      Statistic: 'Sum',
      Period: seconds,
      EvaluationPeriods: 1,
      Threshold: 1,
      ComparisonOperator: 'LessThanThreshold',
      TreatMissingData: 'breaching',
    });
    expect(alarmOf(template, 'SweeperNotRunning').Properties).toMatchObject(expected(900));
    const slower = synth({ 'callsheet:SWEEP_INTERVAL_MINUTES': 10 });
    const [slowId] = functionEntry(slower, 'sweeper');
    expect(alarmOf(slower, 'SweeperNotRunning').Properties).toMatchObject({
      ...expected(1800),
      Dimensions: [{ Name: 'FunctionName', Value: refTo(slowId) }],
    });
    // Three rounds that could not read the calls list within three intervals, whatever the interval.
    const unread = (seconds: number) => ({
      Namespace: 'callsheet',
      MetricName: 'SweeperCallsUnread',
      Statistic: 'Sum',
      Period: seconds,
      EvaluationPeriods: 1,
      Threshold: 3,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      TreatMissingData: 'notBreaching',
    });
    expect(alarmOf(template, 'SweeperCallsUnread').Properties).toMatchObject(unread(900));
    expect(alarmOf(slower, 'SweeperCallsUnread').Properties).toMatchObject(unread(1800));
  }, 120_000);
});

describe('logs', () => {
  it('retains every log group, the state machine’s included, for LOG_RETENTION_DAYS', () => {
    const groups = resources(template, 'AWS::Logs::LogGroup');
    expect(groups.length).toBeGreaterThanOrEqual(8);
    for (const [id, g] of groups) {
      expect(g.DeletionPolicy, id).toBe('Retain');
      expect(g.Properties.RetentionInDays, id).toBe(30);
    }
    const [, machine] = resources(template, 'AWS::StepFunctions::StateMachine')[0] as [string, Resource];
    const destination = JSON.stringify(machine.Properties.LoggingConfiguration);
    const machineGroup = groups.find(([id]) => destination.includes(`"${id}"`));
    expect(machineGroup, 'the state machine logs to a group of the stack').toBeDefined();
    const shorter = resources(synth({ 'callsheet:LOG_RETENTION_DAYS': 7 }), 'AWS::Logs::LogGroup');
    for (const [id, g] of shorter) expect(g.Properties.RetentionInDays, id).toBe(7);
  }, 120_000);
});
