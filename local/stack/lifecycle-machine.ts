import type { StateMachineDefinition } from 'aws-local-stepfunctions';
import { renderLifecycleDocument } from '#state-machines/lifecycle-document.ts';
import { localContext } from './lambda-context.ts';
import { type Retrier, retryDelayMs } from './retry-delay.ts';
import type { SimScheduler } from './sim-scheduler.ts';
import { asActor } from './stack-clock.ts';
import type { LocalStateMachine } from './step-functions.ts';

type State = { Type: string; TimestampPath?: string; Retry?: Retrier[] };

const LOCAL_LIFECYCLE_FUNCTION_ARN = 'arn:aws:lambda:us-east-1:000000000000:function:callsheet-lifecycle';

/** Reads a simple JSONPath (`$.carry.wakeAt`) from a state's input. */
function readPath(path: string, input: unknown): unknown {
  return path
    .replace(/^\$\.?/, '')
    .split('.')
    .filter(Boolean)
    .reduce<unknown>((v, key) => (v && typeof v === 'object' ? (v as Record<string, unknown>)[key] : undefined), input);
}

export type LambdaInvoke = (event: unknown, context: ReturnType<typeof localContext>) => Promise<unknown>;

/**
 * The lifecycle document wired to the lifecycle handler, as Lambda would run it. With a scheduler, time is
 * simulated: Wait states and retry intervals take no real time, and each Wait moves the shared clock instead.
 * The execution timeout is timed on the runner's clock (the interpreter would use the real one).
 */
export function localLifecycleMachine(
  handler: LambdaInvoke,
  scheduler: SimScheduler | null,
  timeoutSeconds: number,
): LocalStateMachine {
  // The same rendering CDK deploys, with the local function's ARN in place of DefinitionSubstitutions.
  const rendered = JSON.parse(
    renderLifecycleDocument({ functionArn: LOCAL_LIFECYCLE_FUNCTION_ARN, timeoutSeconds }),
  ) as StateMachineDefinition & { States: Record<string, State>; TimeoutSeconds?: number };
  const { TimeoutSeconds, ...definition } = rendered;
  const states = Object.entries(definition.States);
  const tasks = states.filter(([, s]) => s.Type === 'Task').map(([name]) => name);
  const waits = states.filter(([, s]) => s.Type === 'Wait').map(([name]) => name);
  const zero = (names: string[]) => Object.fromEntries(names.map((n) => [n, 0]));
  // Each execution's retry attempts per task state since it was last entered, as the service counts them.
  const attempts = new Map<string, number[]>();
  // Each execution's task invocation under way. Lambda runs an invocation to its end even when the execution is
  // stopped or times out meanwhile, so a stopped workflow's last step may still act after the guard has.
  const inFlight = new Map<string, Promise<void>>();
  // Each execution, by ARN. One that has ended (stopped, timed out) is over from that instant, before `done` has told
  // anyone (the clock may release its next task's gate in between): the service invokes no task of its again, not
  // even the retry of a task whose invocation outlived the stop and failed.
  const runs = new Map<string, { status: string }>();
  return {
    name: 'callsheet-lifecycle',
    definition: definition as StateMachineDefinition,
    timeoutSeconds: TimeoutSeconds,
    armTimeout: (_execution, at, fire) => {
      if (scheduler)
        return scheduler.timer(at, () => {
          fire();
          return null;
        });
      const timer = setTimeout(fire, Math.max(0, at - Date.now()));
      timer.unref();
      return () => clearTimeout(timer);
    },
    runOptions: (name, arn) => ({
      overrides: {
        taskResourceLocalHandlers: Object.fromEntries(
          tasks.map((task) => [
            task,
            async (input: unknown) => {
              // The interpreter queues its events and the runner reads them in turn: let it read the Wait just
              // entered (whose StateEntered sets this execution's sleep) before the gate, or the task runs at once.
              if (scheduler) await new Promise((resolve) => setImmediate(resolve));
              await scheduler?.gate(arn);
              // Not invoked; failed at once, so the interpreter's own time limit of the task (real time) is not
              // left armed, keeping the process alive for minutes after the run.
              if ((runs.get(arn)?.status ?? 'RUNNING') !== 'RUNNING') throw endedExecution(arn);
              // A wait inside the step (the API budget) is this execution's sleep on the simulated clock.
              const invocation = asActor(arn, async () => {
                try {
                  return await handler(input, localContext('callsheet-lifecycle'));
                } catch (err) {
                  // The interval before the document's retry passes on the simulated clock, as it would in AWS,
                  // so a retry waits for what it waits for (a budget's next minute) instead of coming at once.
                  const retriers = definition.States[task]?.Retry ?? [];
                  const key = `${arn} ${task}`;
                  const made = attempts.get(key) ?? [];
                  attempts.set(key, made);
                  const wait = scheduler ? retryDelayMs(retriers, (err as Error).name, made) : null;
                  if (scheduler && wait) await scheduler.waitUntil(scheduler.now() + wait, arn);
                  throw err;
                }
              });
              const ended = invocation.then(
                () => undefined,
                () => undefined,
              );
              inFlight.set(arn, ended);
              void ended.then(() => {
                if (inFlight.get(arn) === ended) inFlight.delete(arn);
              });
              return (await invocation) as never;
            },
          ]),
        ),
        ...(scheduler ? { waitTimeOverrides: zero(waits), retryIntervalOverrides: zero(tasks) } : {}),
      },
      context: { Execution: { Id: arn, Name: name } } as never,
    }),
    onStart: (execution) => {
      runs.set(execution.executionArn, execution);
      if (!scheduler) return;
      scheduler.join(execution.executionArn);
      // The execution stays one of the clock's actors until its last invocation has ended too.
      void execution.done.finally(async () => {
        await inFlight.get(execution.executionArn);
        scheduler.leave(execution.executionArn);
        for (const task of tasks) attempts.delete(`${execution.executionArn} ${task}`);
      });
    },
    drained: (executionArn) => inFlight.get(executionArn) ?? Promise.resolve(),
    onEvent: (execution, event) => {
      if (event.type === 'StateEntered') attempts.delete(`${execution.executionArn} ${event.state?.name}`);
      if (!scheduler || event.type !== 'StateEntered' || event.state?.type !== 'Wait') return;
      const path = definition.States[event.state.name]?.TimestampPath;
      const until = path ? Date.parse(String(readPath(path, event.state.input))) : Number.NaN;
      if (!Number.isNaN(until)) scheduler.sleep(execution.executionArn, until);
    },
  };
}

/** What a task of an execution that has ended meets instead of an invocation (its result is not recorded). */
function endedExecution(arn: string): Error {
  return Object.assign(new Error(`execution ${arn} has ended: its task is not invoked`), { name: 'ExecutionEnded' });
}
