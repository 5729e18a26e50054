import type { S3Client } from '@aws-sdk/client-s3';
import type { Context } from 'aws-lambda';
import { apiBudget, readBudgetConfig } from '#commons/api-budget/config.ts';
import type { BudgetShare } from '#commons/api-budget/shared-budget.ts';
import { documentClient, s3Client } from '#commons/aws/clients.ts';
import { ObjectStore } from '#commons/aws/object-store.ts';
import { ConfigError, EnvReader } from '#commons/config.ts';
import { type Log, silentLog } from '#commons/log.ts';
import { readOutcomesConfig } from '#commons/outcomes/config.ts';
import { INTAKE_TIMEOUT_SECONDS } from '#commons/queue-settings.ts';
import { TABLES } from '#commons/tables.ts';
import { INCOMING } from '#commons/upload-ref.ts';
import type { RequestBudget } from '#commons/voice-api/rate-limiter.ts';
import { readContactsConfig } from '#contacts/config.ts';
import { checkSetting, SETTINGS } from '#infra/setting-specs.ts';
import { buildIntakeService } from '#intake/build-service.ts';
import { readIntakeConfig } from '#intake/config.ts';
import { makeIntakeHandler } from '#intake/handler.ts';
import { buildLifecycleSteps } from '#lifecycle/build-steps.ts';
import { readLifecycleConfig } from '#lifecycle/config.ts';
import { makeLifecycleHandler } from '#lifecycle/handler.ts';
import { buildCampaignGuard } from '#lifecycle/safety-net/build-guard.ts';
import type { WatchedCampaign } from '#lifecycle/safety-net/call-watch.ts';
import { GUARD_RETRY_ATTEMPTS, readGuardConfig } from '#lifecycle/safety-net/config.ts';
import { EXECUTION_STATUS_CHANGE, matchesGuardPattern } from '#lifecycle/safety-net/event-pattern.ts';
import { makeGuardHandler, makeSweeperHandler } from '#lifecycle/safety-net/handler.ts';
import type { HoldAnswer } from '#local/emulator/server.ts';
import { DEFAULT_EXECUTION_TIMEOUT_SECONDS } from '#state-machines/lifecycle-document.ts';
import { readWebhookConfig } from '#webhooks/config.ts';
import { invokeAsync, retryWait } from './async-invoke.ts';
import { type LocalContacts, startLocalContacts } from './contacts-stack.ts';
import { type LocalDynamo, startDynamo } from './dynamo.ts';
import { CALLSHEET_BUS, LocalEventBus } from './event-bus.ts';
import { localContext } from './lambda-context.ts';
import { type LambdaInvoke, localLifecycleMachine } from './lifecycle-machine.ts';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from './local-aws.ts';
import { type LocalS3, startS3 } from './s3.ts';
import { scanSaidOnce } from './scan-said-once.ts';
import { type SettableClock, SimScheduler } from './sim-scheduler.ts';
import { actorClock, asActor, invocationsAsActors, simulatedRequests, stackClock } from './stack-clock.ts';
import { type LocalStateMachine, LocalStepFunctions } from './step-functions.ts';
import { type MayDial, sweepMaySkip } from './sweep-skip.ts';
import { LocalQueue, redelivery } from './upload-queue.ts';
import { type LocalWebhooks, localWebhookSecret, startWebhookReceiver } from './webhook-receiver.ts';

export interface LocalStackOptions {
  voiceApi: { url: string; apiKey: string };
  /** The simulated clock handlers and Wait states follow (the emulator's); real time when absent. */
  clock?: SettableClock;
  /** Another document in place of the lifecycle (tests of intake alone). */
  lifecycle?: LocalStateMachine;
  bucket?: string;
  /** Keep DynamoDB data (suppression list, upload memory) in this directory instead of memory. */
  dynamoPath?: string;
  /** Keep the bucket's objects in this directory (kept after close) instead of a temporary one. */
  s3Directory?: string;
  /** Deployment settings (DEFAULT_COUNTRY, DEFAULT_TIME_ZONE, …) as the Lambda environment would carry them. */
  settings?: Record<string, string>;
  log?: Log;
  /**
   * Without a clock: how long a message the intake or outcomes function failed on waits before its next delivery.
   * Their visibility timeouts as deployed (30 and 6 minutes) unless set; a test that provokes a failure shortens it.
   */
  realTimeRedeliveryMs?: number;
  /**
   * Wraps the lifecycle function as Lambda would invoke it: rehearsals of Lambda failures (a step that throws
   * Lambda.Unknown) and of a wedged workflow. Not for normal runs.
   */
  wrapLifecycle?: (invoke: LambdaInvoke) => LambdaInvoke;
  /** Wraps the guard function likewise: rehearsals of a guard invocation that fails. Not for normal runs. */
  wrapGuard?: (invoke: LambdaInvoke) => LambdaInvoke;
  /** Wraps the sweeper function likewise: rehearsals of a slow sweep. Not for normal runs. */
  wrapSweep?: (invoke: LambdaInvoke) => LambdaInvoke;
  /** How simulated time moves (with `clock`): by default it jumps to the next wake-up (SimScheduler). */
  scheduler?: SimScheduler;
  /**
   * With `clock`, the emulator's `mayDial`: a sweep that watches the calls list is skipped while no watched campaign
   * may be dialling. Without it (a real Voice API), such sweeps all run.
   */
  mayDial?: MayDial;
  /**
   * The Voice API is an emulator on this stack's clock that holds its delayed answers with `holdAnswer`
   * (`callsheet run`): the workflows' requests then time out on the simulated clock too (stack-clock.ts).
   */
  heldAnswers?: boolean;
  /** Fixed ports on 127.0.0.1 (`callsheet local`); each 0 or absent picks a free one. */
  ports?: { s3?: number; dynamodb?: number; sfn?: number; webhooks?: number; events?: number };
  /**
   * Check the state-machine document against the ASL schema before running it (0.6 s a process; by default). The
   * CLI skips it: its document is the committed one, which every test stack checks.
   */
  checkDocuments?: boolean;
}

export interface LocalStack {
  bucket: string;
  s3: LocalS3;
  dynamo: LocalDynamo;
  sfn: LocalStepFunctions;
  events: LocalEventBus;
  /** Moves simulated time; null when the stack runs in real time. */
  scheduler: SimScheduler | null;
  stateMachineArn: string;
  /** The environment every handler is configured from, exactly as in AWS but for the endpoints. */
  env: Record<string, string>;
  s3Client: S3Client;
  objects: ObjectStore;
  intakeQueue: LocalQueue;
  /**
   * Tokens of the account's one API budget for a local tool (the stats sampler): `shared` leaves the lifecycle its
   * reserve; `maxWaitMs: 0` skips a request rather than wait.
   */
  budget(share: BudgetShare, options?: { maxWaitMs?: number }): RequestBudget;
  /**
   * Resolves when the safety net is at rest: the guard has handled every execution that ended so far, and no sweep
   * is under way (a sweep may still secure what a guard left unconfirmed).
   */
  guardIdle(): Promise<void>;
  /** The webhook receiver on 127.0.0.1 and the outcomes queue behind it (point the emulator's webhookUrl here). */
  webhooks: LocalWebhooks;
  /** Contact sync: contacts/ files in the bucket and `Contact Upserted` events on the bus (`events`). */
  contacts: LocalContacts;
  /** Holds an emulator's delayed answer (its `hold` option): on the simulated clock with `heldAnswers`. */
  holdAnswer: HoldAnswer;
  close(): Promise<void>;
}

/**
 * Checks settings from the user's shell with every reader the stack builds on, before anything starts: a bad one
 * stops the stack in a moment, every problem named, with nothing to close. What the stack itself sets (endpoints,
 * table names; the API's address and key until they are known) stands in with placeholders; with nothing else to
 * differ, the readers cannot refuse once servers run (none would be left running).
 */
export function checkStackSettings(
  settings: Readonly<Record<string, string>>,
  voiceApi: { url: string; apiKey: string } = { url: 'http://127.0.0.1:1', apiKey: 'check' },
): void {
  const env: Record<string, string> = {
    AWS_REGION: LOCAL_REGION,
    ...Object.fromEntries(Object.values(TABLES).map((t) => [t.env, `check-${t.env.toLowerCase()}`])),
    EVENT_BUS_NAME: CALLSHEET_BUS,
    VOICE_API_WEBHOOK_SECRET: 'check',
    VOICE_API_URL: voiceApi.url,
    VOICE_API_KEY: voiceApi.apiKey,
    INTAKE_LEASE_SECONDS: '60',
    LIFECYCLE_STATE_MACHINE_ARN: `arn:aws:states:${LOCAL_REGION}:000000000000:stateMachine:check`,
    ...settings,
  };
  const problems = new Set<string>();
  for (const read of [
    () => readLifecycleConfig(env),
    () => readGuardConfig(env),
    () => readIntakeConfig(env),
    () => readContactsConfig(env, { queues: 'local' }),
    () => readOutcomesConfig(env),
    () => readWebhookConfig(env, { queue: 'local' }),
    // The stack setting the embedded stack honours too, checked as `cdk synth` checks it.
    () => executionTimeoutSeconds(settings),
  ]) {
    try {
      read();
    } catch (err) {
      if (!(err instanceof ConfigError)) throw err;
      for (const problem of err.problems) problems.add(problem);
    }
  }
  // Every problem of every reader at once, each named once (several functions read the same setting).
  if (problems.size > 0) throw new ConfigError([...problems]);
}

/** The workflow's execution timeout: LIFECYCLE_TIMEOUT_SECONDS, checked as `cdk synth` checks it, or the default. */
export function executionTimeoutSeconds(settings: Readonly<Record<string, string>>): number {
  const value = settings.LIFECYCLE_TIMEOUT_SECONDS;
  const checked = checkSetting(SETTINGS.LIFECYCLE_TIMEOUT_SECONDS, value);
  if (typeof checked === 'object')
    throw new ConfigError([`LIFECYCLE_TIMEOUT_SECONDS=${JSON.stringify(value)}: ${checked.problem}`]);
  return typeof checked === 'number' ? checked : DEFAULT_EXECUTION_TIMEOUT_SECONDS;
}

/** Calls a middy handler as the Lambda runtime does (middy's type also allows a callback, unused here). */
const lambdaInvoke =
  (handler: (event: never, context: Context) => Promise<unknown>): LambdaInvoke =>
  (event, context) =>
    handler(event as never, context);

/**
 * The embedded stack: s3rver, dynalite, the local Step Functions endpoint and EventBridge on 127.0.0.1, with the
 * intake handler fed by real-shaped S3 event records through a local queue, exactly as S3 → SQS → Lambda in AWS,
 * contact sync fed as in AWS, and every caller of the Voice API drawing on the account's one budget.
 */
export async function startLocalStack(options: LocalStackOptions): Promise<LocalStack> {
  checkStackSettings(options.settings ?? {}, options.voiceApi);
  const s3 = await startS3([options.bucket ?? 'callsheet-uploads'], options.s3Directory, options.ports?.s3);
  // What has started, closed again if a later step fails: a listening stand-in would keep a failed command running.
  const started: (() => Promise<unknown> | undefined)[] = [() => s3.close()];
  try {
    return await startOn(options, s3, started);
  } catch (err) {
    for (const close of started.reverse()) await Promise.resolve(close()).catch(() => undefined);
    throw err;
  }
}

/** Everything after S3, each stand-in added to `started` as it listens. */
async function startOn(
  options: LocalStackOptions,
  s3: LocalS3,
  started: (() => Promise<unknown> | undefined)[],
): Promise<LocalStack> {
  const bucket = options.bucket ?? 'callsheet-uploads';
  const clock = options.clock ?? null;
  const now = clock ? () => new Date(clock.now()) : () => new Date();
  const dynamo = await startDynamo({ path: options.dynamoPath, port: options.ports?.dynamodb, thread: true });
  started.push(() => dynamo.close());
  const sfn = new LocalStepFunctions(LOCAL_REGION, now, { checkDocuments: options.checkDocuments });
  const sfnEndpoint = await sfn.listen(options.ports?.sfn);
  started.push(() => sfn.close());
  const events = new LocalEventBus(now, LOCAL_REGION);
  const eventsEndpoint = await events.listen(options.ports?.events);
  started.push(() => events.close());
  const log = options.log ?? silentLog;
  const scheduler = clock ? (options.scheduler ?? new SimScheduler(clock)) : null;
  // Waits inside handlers (the API budget, back-off) on the simulated clock, as sleeps of whoever waits.
  const waitClock = clock ? stackClock(clock, scheduler) : undefined;
  const env: Record<string, string> = {
    AWS_REGION: LOCAL_REGION,
    AWS_ACCESS_KEY_ID: LOCAL_CREDENTIALS.accessKeyId,
    AWS_SECRET_ACCESS_KEY: LOCAL_CREDENTIALS.secretAccessKey,
    AWS_ENDPOINT_URL_S3: s3.endpoint,
    AWS_ENDPOINT_URL_DYNAMODB: dynamo.endpoint,
    AWS_ENDPOINT_URL_SFN: sfnEndpoint,
    AWS_ENDPOINT_URL_EVENTBRIDGE: eventsEndpoint,
    [TABLES.uploads.env]: dynamo.tables.uploads,
    [TABLES.suppression.env]: dynamo.tables.suppression,
    [TABLES.campaigns.env]: dynamo.tables.campaigns,
    [TABLES.outcomes.env]: dynamo.tables.outcomes,
    // As CDK sets them: one API budget for the lifecycle, outcomes and contact sync; callsheet's own bus.
    [TABLES.contacts.env]: dynamo.tables.contacts,
    [TABLES.apiBudget.env]: dynamo.tables.apiBudget,
    EVENT_BUS_NAME: CALLSHEET_BUS,
    VOICE_API_WEBHOOK_SECRET: localWebhookSecret(),
    VOICE_API_URL: options.voiceApi.url,
    VOICE_API_KEY: options.voiceApi.apiKey,
    INTAKE_LEASE_SECONDS: '60',
    ...options.settings,
  };
  // The budget's waits and the client's back-off on the stack's clock (real time when there is none); the budget
  // paces the client, so its own limiter is off.
  const requests = scheduler && options.heldAnswers ? simulatedRequests(scheduler) : null;
  const apiOptions = {
    now,
    log,
    ...(waitClock && scheduler
      ? {
          api: {
            requestsPerMinute: 0,
            clock: actorClock(scheduler),
            ...(requests ? { timing: requests.timing } : {}),
          },
          budgetClock: waitClock,
        }
      : {}),
  };
  const lifecycleHandler = lambdaInvoke(
    makeLifecycleHandler(await buildLifecycleSteps(readLifecycleConfig(env), apiOptions), log),
  );
  // A sweep's quiet answer (nothing to find before a given instant) holds only while no workflow acts.
  let workflowActed = false;
  const invokeLifecycle: typeof lifecycleHandler = (event, context) => {
    workflowActed = true;
    // And when it ends: a sweep may have run while it slept mid-work (a held answer, a budget wait).
    return lifecycleHandler(event, context).finally(() => {
      workflowActed = true;
    });
  };
  const timeoutSeconds = executionTimeoutSeconds(options.settings ?? {});
  const lifecycle =
    options.lifecycle ??
    localLifecycleMachine(options.wrapLifecycle?.(invokeLifecycle) ?? invokeLifecycle, scheduler, timeoutSeconds);
  const stateMachineArn = sfn.register(lifecycle);
  env.LIFECYCLE_STATE_MACHINE_ARN = stateMachineArn;

  // The guard and the sweeper, as in AWS: an EventBridge rule on execution status, and a schedule.
  const guard = await buildCampaignGuard(readGuardConfig(env), apiOptions);
  const guardHandler = lambdaInvoke(makeGuardHandler(guard, log));
  const onEnded = options.wrapGuard?.(guardHandler) ?? guardHandler;
  const sweepHandler = lambdaInvoke(makeSweeperHandler(guard, scanSaidOnce(log)));
  const sweep = options.wrapSweep?.(sweepHandler) ?? sweepHandler;
  // Each ended execution's guard runs at once and on its own, as EventBridge invokes the function for each event. Run
  // one after another, a guard waiting its turn held the simulated clock still while the one before it slept on it.
  const guarding = new Set<Promise<unknown>>();
  // Closing the stack cuts a guard retry's wait short (retryWait): the campaign is secured before the tables go.
  const closing = new AbortController();
  // The sweep under way, if any: it may secure a part while the run reads what its guard left.
  let sweeping: Promise<unknown> = Promise.resolve();
  const guardsIdle = async () => {
    for (;;) {
      if (guarding.size > 0) await Promise.all(guarding);
      const round = sweeping;
      await round;
      if (guarding.size === 0 && round === sweeping) return;
    }
  };
  sfn.onStatusChange((execution) => {
    // A workflow that ends (stopped, timed out, failed) changes what a sweep finds, as a look does.
    workflowActed = true;
    const event = {
      source: 'aws.states',
      'detail-type': EXECUTION_STATUS_CHANGE,
      detail: {
        executionArn: execution.executionArn,
        stateMachineArn: execution.stateMachineArn,
        name: execution.name,
        status: execution.status,
      },
    };
    if (!matchesGuardPattern(event, stateMachineArn)) return;
    // Time stands still while the guard works, as it reacts within seconds in AWS.
    const id = `guard:${execution.executionArn}`;
    scheduler?.join(id);
    const about = { execution: execution.executionArn };
    // As Lambda runs the rule's asynchronous invocation: one that throws is tried twice more, a minute and then two
    // minutes later (infra/campaign-guard.ts); after the last, AWS puts the event in the GuardFailures queue.
    const attempts = () =>
      invokeAsync(
        // A context of its own per invocation, as Lambda gives: its deadline counts from this attempt.
        () => onEnded(event, localContext('callsheet-guard')),
        GUARD_RETRY_ATTEMPTS,
        retryWait(scheduler, id, closing.signal),
        (err, attempt, waitMs) =>
          log.warn('guard failed; Lambda runs it again', {
            ...about,
            attempt,
            retryInSeconds: waitMs / 1000,
            error: (err as Error).message,
          }),
      );
    const work: Promise<unknown> = asActor(id, attempts)
      .catch((err: Error) =>
        log.error('guard failed on every attempt; in AWS its event goes to the GuardFailures queue', {
          ...about,
          attempts: GUARD_RETRY_ATTEMPTS + 1,
          error: err.message,
        }),
      )
      .finally(() => {
        guarding.delete(work);
        scheduler?.leave(id);
      });
    guarding.add(work);
  });
  const sweepEveryMs = readGuardConfig(env).guard.sweepIntervalMs;
  // On the simulated clock the sweeps a quiet answer says will find nothing are skipped until a workflow acts (a
  // new part, a look): AWS runs them all; skipping only saves the embedded stack's time.
  // A sweep that watched the calls list finds something only while a watched campaign may dial (resumed outside
  // callsheet, its start moved earlier): while the emulator says none may, the sweeps in between are skipped too.
  let watching: WatchedCampaign[] = [];
  const sweepIdle = () => sweepMaySkip(workflowActed, watching, options.mayDial);
  const runSweep = () => {
    workflowActed = false;
    const round = sweep({} as never, localContext('callsheet-sweeper')).then(
      (out) => {
        const answer = out as { quietUntil: number | null; watching?: WatchedCampaign[] };
        watching = answer.watching ?? [];
        // No instant at all: nothing to find until a workflow acts (starts, looks, ends).
        return answer.quietUntil ?? Number.POSITIVE_INFINITY;
      },
      (err: Error) => {
        log.error('sweeper failed', { error: err.message });
        return null;
      },
    );
    sweeping = round;
    return round;
  };
  let stopSweeper = scheduler ? scheduler.every(sweepEveryMs, runSweep, sweepIdle) : () => {};
  if (!scheduler) {
    const timer = setInterval(runSweep, sweepEveryMs);
    timer.unref();
    stopSweeper = () => clearInterval(timer);
  }
  const intake = makeIntakeHandler(
    await buildIntakeService(readIntakeConfig(env), now, { budgetClock: waitClock }),
    log,
  );
  // As infra/upload-bucket.ts makes it. Time stands still while intake works on an upload: one dropped during a run
  // starts its parts at the instant it came, not at whatever wake-up the clock jumped to meanwhile.
  const intakeQueue = new LocalQueue(
    'callsheet-intake',
    invocationsAsActors(scheduler, 'intake', intake),
    redelivery(scheduler, INTAKE_TIMEOUT_SECONDS, options.realTimeRedeliveryMs),
  );
  // The bucket notification in AWS is filtered to incoming/; reports, parts and moved originals raise nothing.
  s3.onEvent((event) => {
    const records = event.Records.filter(
      (r) => r.eventName.startsWith('ObjectCreated:') && r.s3.object.key.startsWith(INCOMING),
    );
    if (records.length > 0) intakeQueue.send(JSON.stringify({ Records: records }));
  });
  started.push(async () => stopSweeper());
  const webhooks = await startWebhookReceiver(env, {
    ...apiOptions,
    scheduler,
    ...(options.realTimeRedeliveryMs !== undefined ? { realTimeRedeliveryMs: options.realTimeRedeliveryMs } : {}),
    port: options.ports?.webhooks,
  });
  started.push(() => webhooks.close());
  const contacts = await startLocalContacts({
    env,
    tables: dynamo.tables,
    s3,
    bus: events,
    ...(clock ? { clock, scheduler } : {}),
    log,
  });
  const client = s3Client({ region: LOCAL_REGION, endpoints: { s3: s3.endpoint }, credentials: LOCAL_CREDENTIALS });
  const budgetDb = documentClient({
    region: LOCAL_REGION,
    endpoints: { dynamodb: dynamo.endpoint },
    credentials: LOCAL_CREDENTIALS,
  });
  const budgetReader = new EnvReader(env);
  const budgetConfig = readBudgetConfig(budgetReader);
  budgetReader.done();
  return {
    bucket,
    s3,
    dynamo,
    sfn,
    events,
    scheduler,
    stateMachineArn,
    env,
    s3Client: client,
    objects: new ObjectStore(client),
    intakeQueue,
    webhooks,
    contacts,
    holdAnswer: requests?.holdAnswer ?? ((ms) => new Promise<void>((resolve) => setTimeout(resolve, ms))),
    budget: (share, o = {}) => apiBudget(budgetDb, budgetConfig, share, { clock: waitClock, ...o }),
    guardIdle: guardsIdle,
    async close() {
      stopSweeper();
      // Messages waiting out a visibility timeout go with the stack (SQS would keep them; this queue is memory).
      await intakeQueue.stop();
      await webhooks.close();
      client.destroy();
      budgetDb.destroy();
      await sfn.close();
      // Stopped executions reach the guard, which secures their campaigns: let it finish before its tables go (a
      // retry still waiting runs at once).
      closing.abort();
      await guardsIdle();
      await Promise.all([s3.close(), dynamo.close(), events.close()]);
    },
  };
}
