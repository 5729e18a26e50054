import { Duration, Stack } from 'aws-cdk-lib';
import {
  Alarm,
  ComparisonOperator,
  Dashboard,
  GraphWidget,
  type IMetric,
  MathExpression,
  Metric,
  TextWidget,
  TreatMissingData,
} from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { type IEventBus, Rule } from 'aws-cdk-lib/aws-events';
import { SnsTopic } from 'aws-cdk-lib/aws-events-targets';
import { ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import type { StateMachine } from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import {
  CAMPAIGN_STATE_DIMENSION,
  METRIC,
  METRICS_NAMESPACE,
  METRICS_SERVICE,
  type MetricName,
} from '#commons/observability.ts';
import { SAFETY_METRICS, SAFETY_NAMESPACE } from '#lifecycle/safety-signals.ts';

export interface MonitoringProps {
  /** The bus callsheet's campaign events go to. */
  events: IEventBus;
  lifecycle: StateMachine;
  alarmEmail?: string;
}

const FIVE_MINUTES = Duration.minutes(5);

/** The `outcome` values a safety action is counted under (functions/lifecycle/campaign-safety.ts, SafetySignals). */
const SAFETY_OUTCOMES = ['paused', 'not_active', 'braked', 'brake_released', 'unconfirmed'] as const;

/**
 * Safety actions of one actor (guard, sweeper, …) over every outcome: the EMF lines of
 * functions/lifecycle/safety-signals.ts carry the dimension `outcome`, and CloudWatch keeps one series per value.
 */
export function safetyActions(actor: keyof typeof SAFETY_METRICS): MathExpression {
  // Ids unique per actor: one graph shows several actors' expressions.
  const id = (outcome: string) => `${actor.replace('-', '_')}_${outcome}`;
  const usingMetrics = Object.fromEntries(
    SAFETY_OUTCOMES.map((outcome) => [
      id(outcome),
      new Metric({
        namespace: SAFETY_NAMESPACE,
        metricName: SAFETY_METRICS[actor],
        dimensionsMap: { outcome },
        statistic: 'Sum',
        period: FIVE_MINUTES,
      }),
    ]),
  );
  return new MathExpression({
    label: `${SAFETY_METRICS[actor]} (all outcomes)`,
    expression: SAFETY_OUTCOMES.map((o) => `FILL(${id(o)}, 0)`).join(' + '),
    usingMetrics,
    period: FIVE_MINUTES,
  });
}

/** One of callsheet's own metrics (functions/commons/observability.ts), summed over all functions. */
export function callsheetMetric(name: MetricName, extra: Record<string, string> = {}): Metric {
  return new Metric({
    namespace: METRICS_NAMESPACE,
    metricName: name,
    dimensionsMap: { service: METRICS_SERVICE, ...extra },
    statistic: 'Sum',
    period: FIVE_MINUTES,
  });
}

/**
 * What an operator watches: one SNS topic (KMS-encrypted, TLS only) that every alarm and every campaign end
 * event goes to, and one dashboard. Constructs that add functions or queues call `watchFunction` / `watchQueue`.
 */
export class Monitoring extends Construct {
  public readonly topic: Topic;
  public readonly dashboard: Dashboard;
  public readonly alarms: Alarm[] = [];
  private readonly action: SnsAction;

  constructor(scope: Construct, id: string, props: MonitoringProps) {
    super(scope, id);
    // A key of our own: CloudWatch alarms and EventBridge cannot publish to a topic under the AWS-managed SNS key.
    const key = new Key(this, 'TopicKey', {
      description: 'callsheet: encrypts the alarm topic',
      enableKeyRotation: true,
    });
    for (const service of ['cloudwatch.amazonaws.com', 'events.amazonaws.com'])
      key.grant(new ServicePrincipal(service), 'kms:Decrypt', 'kms:GenerateDataKey*');
    this.topic = new Topic(this, 'Alarms', {
      displayName: 'callsheet alarms and campaign events',
      masterKey: key,
      enforceSSL: true,
    });
    if (props.alarmEmail) this.topic.addSubscription(new EmailSubscription(props.alarmEmail));
    this.action = new SnsAction(this.topic);

    new Rule(this, 'CampaignEnded', {
      description: 'callsheet: every campaign that completed or failed, to the alarm topic',
      eventBus: props.events,
      eventPattern: { source: ['callsheet'], detailType: ['Campaign Completed', 'Campaign Failed'] },
      targets: [new SnsTopic(this.topic)],
    });

    const failed = new MathExpression({
      label: 'failed, timed out or aborted executions',
      expression: 'FILL(failed, 0) + FILL(timedOut, 0) + FILL(aborted, 0)',
      usingMetrics: {
        failed: props.lifecycle.metricFailed({ period: FIVE_MINUTES }),
        timedOut: props.lifecycle.metricTimedOut({ period: FIVE_MINUTES }),
        aborted: props.lifecycle.metricAborted({ period: FIVE_MINUTES }),
      },
      period: FIVE_MINUTES,
    });
    this.alarm(
      'LifecycleExecutionsFailed',
      failed,
      1,
      'A campaign lifecycle execution failed, timed out or was aborted.',
    );
    this.alarm(
      'GuardActions',
      safetyActions('guard'),
      1,
      'The campaign guard had to secure a campaign whose workflow failed, timed out or stopped (see its log lines).',
    );
    this.alarm(
      'SweeperActions',
      safetyActions('sweeper'),
      1,
      'The sweeper had to secure a campaign whose window closed or whose workflow is gone (see its log lines).',
    );
    const rate = (name: MetricName) =>
      new MathExpression({
        label: `${name} per 100 API requests`,
        expression: 'IF(requests > 0, 100 * FILL(errors, 0) / requests, 0)',
        usingMetrics: { requests: callsheetMetric(METRIC.apiRequests), errors: callsheetMetric(name) },
        period: FIVE_MINUTES,
      });
    this.alarm('ApiClientErrorRate', rate(METRIC.apiClientErrors), 5, 'Over 5 % of Voice API requests answered 4xx.', {
      periods: 2,
    });
    this.alarm(
      'ApiServerErrorRate',
      rate(METRIC.apiServerErrors),
      5,
      'Over 5 % of Voice API requests failed (5xx or no answer).',
      { periods: 2 },
    );
    this.alarm(
      'ApiThrottleRate',
      rate(METRIC.apiThrottled),
      10,
      'Over 10 % of Voice API requests answered 429: lower the concurrency settings or raise the plan.',
      { periods: 2 },
    );

    this.dashboard = new Dashboard(this, 'Dashboard', {
      dashboardName: Stack.of(this).stackName,
      defaultInterval: Duration.days(1),
    });
    const graph = (title: string, metrics: IMetric[]) => new GraphWidget({ title, left: metrics, width: 8, height: 6 });
    // The states functions/lifecycle/handler.ts counts: created, held (never got a window), and how parts ended.
    const states = ['created', 'held', 'completed', 'failed', 'cancelled'];
    this.dashboard.addWidgets(
      new TextWidget({
        markdown: '# callsheet\nUploads, campaigns and the Voice API. Alarms and campaign ends go to the alarm topic.',
        width: 24,
        height: 2,
      }),
    );
    this.dashboard.addWidgets(
      graph('Uploads and contacts', [
        callsheetMetric(METRIC.uploads),
        callsheetMetric(METRIC.contactsAccepted),
        callsheetMetric(METRIC.contactsRejected),
      ]),
      graph(
        'Campaigns by state',
        states.map((s) => callsheetMetric(METRIC.campaigns, { [CAMPAIGN_STATE_DIMENSION]: s }).with({ label: s })),
      ),
      graph('Lifecycle executions', [
        props.lifecycle.metricStarted({ period: FIVE_MINUTES }),
        props.lifecycle.metricSucceeded({ period: FIVE_MINUTES }),
        failed,
      ]),
    );
    this.dashboard.addWidgets(
      graph('Voice API requests', [
        callsheetMetric(METRIC.apiRequests),
        callsheetMetric(METRIC.apiClientErrors),
        callsheetMetric(METRIC.apiServerErrors),
        callsheetMetric(METRIC.apiThrottled),
      ]),
      graph('Calls placed', [callsheetMetric(METRIC.callsPlaced)]),
      graph('Safety actions', [
        safetyActions('workflow'),
        safetyActions('secure-step'),
        safetyActions('guard'),
        safetyActions('sweeper'),
      ]),
    );
  }

  /**
   * Alarms on the function's errors (and, when `throttled` says what a throttle means for it, on its throttles) and
   * puts its invocations, errors, throttles and duration on the dashboard. No data is no throttle: most of these
   * functions are idle most of the time.
   */
  watchFunction(name: string, fn: IFunction, throttled?: string): void {
    this.alarm(`${name}Errors`, fn.metricErrors({ period: FIVE_MINUTES }), 1, `The ${name} function failed.`);
    const throttles = fn.metricThrottles({ period: FIVE_MINUTES, statistic: 'Sum' });
    if (throttled) this.alarm(`${name}Throttles`, throttles, 1, `The ${name} function was throttled: ${throttled}`);
    this.dashboard.addWidgets(
      new GraphWidget({
        title: `${name} function`,
        left: [fn.metricInvocations({ period: FIVE_MINUTES }), fn.metricErrors({ period: FIVE_MINUTES }), throttles],
        right: [fn.metricDuration({ period: FIVE_MINUTES, statistic: 'p95' })],
        width: 12,
        height: 6,
      }),
    );
  }

  /**
   * Alarms when a scheduled function was not invoked for three of its intervals (one late or skipped run is not
   * yet an alarm). No data counts as not run: a function that is never invoked publishes nothing at all.
   */
  watchHeartbeat(name: string, fn: IFunction, interval: Duration): void {
    const period = threeIntervals(interval);
    this.alarm(
      `${name}NotRunning`,
      fn.metricInvocations({ period, statistic: 'Sum' }),
      1,
      `The ${name} function was not invoked for ${period.toMinutes()} minutes: the safety net is not looking at running campaigns.`,
      { comparison: ComparisonOperator.LESS_THAN_THRESHOLD, missing: TreatMissingData.BREACHING },
    );
  }

  /**
   * Alarms when three of the sweeper's rounds within three of its intervals could not read the calls list: meanwhile
   * a campaign resumed outside callsheet while paused for a closed window dials unseen (one failed round is not yet
   * an alarm; the next round reads the calls the failed one missed).
   */
  watchSweeperCalls(interval: Duration): void {
    const period = threeIntervals(interval);
    this.alarm(
      'SweeperCallsUnread',
      callsheetMetric(METRIC.callsWatchUnread).with({ period }),
      3,
      `The sweeper could not read the Voice API calls list in three rounds within ${period.toMinutes()} minutes: a campaign resumed outside callsheet while paused for a closed window would dial unseen.`,
    );
  }

  /**
   * Alarms when a dead-letter queue holds anything (docs/operations.md: "Replay a dead-letter queue"), as
   * `<name>DeadLetters` unless `alarm` names it and says what its messages mean.
   */
  watchQueue(name: string, deadLetters: IQueue, alarm?: { id: string; description: string }): void {
    const depth = deadLetters.metricApproximateNumberOfMessagesVisible({ period: FIVE_MINUTES, statistic: 'Maximum' });
    this.alarm(
      alarm?.id ?? `${name}DeadLetters`,
      depth,
      1,
      alarm?.description ?? `Messages in the ${name} dead-letter queue: replay them once fixed.`,
    );
    this.dashboard.addWidgets(new GraphWidget({ title: `${name} dead letters`, left: [depth], width: 12, height: 6 }));
  }

  private alarm(
    id: string,
    metric: IMetric,
    threshold: number,
    description: string,
    options: { periods?: number; comparison?: ComparisonOperator; missing?: TreatMissingData } = {},
  ): Alarm {
    const periods = options.periods ?? 1;
    const alarm = new Alarm(this, id, {
      alarmName: `${Stack.of(this).stackName}-${id}`,
      alarmDescription: description,
      metric,
      threshold,
      evaluationPeriods: periods,
      datapointsToAlarm: periods,
      comparisonOperator: options.comparison ?? ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: options.missing ?? TreatMissingData.NOT_BREACHING,
    });
    alarm.addAlarmAction(this.action);
    this.alarms.push(alarm);
    return alarm;
  }
}

/** Three runs of a scheduled function, the span its alarms look at (CloudWatch evaluates at most a day at once). */
const threeIntervals = (interval: Duration): Duration => Duration.minutes(Math.min(3 * interval.toMinutes(), 24 * 60));
