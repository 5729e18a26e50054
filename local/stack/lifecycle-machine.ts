import { readFileSync } from 'node:fs';
import type { StateMachineDefinition } from 'aws-local-stepfunctions';
import { localContext } from './lambda-context.ts';
import type { SimScheduler } from './sim-scheduler.ts';
import type { LocalStateMachine } from './step-functions.ts';

/** The one lifecycle document: CDK deploys this file, and the local runner executes it as it is. */
export const LIFECYCLE_DOCUMENT = new URL('../../state-machines/campaign-lifecycle.asl.json', import.meta.url);

type State = { Type: string; TimestampPath?: string };

// biome-ignore lint/suspicious/noTemplateCurlyInString: the document's literal DefinitionSubstitutions placeholder
export const LIFECYCLE_FUNCTION_PLACEHOLDER = '${LifecycleFunctionArn}';
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
 */
export function localLifecycleMachine(handler: LambdaInvoke, scheduler: SimScheduler | null): LocalStateMachine {
  // The same substitution CDK makes at deploy time (DefinitionSubstitutions), with the local function's ARN.
  const text = readFileSync(LIFECYCLE_DOCUMENT, 'utf8').replaceAll(
    LIFECYCLE_FUNCTION_PLACEHOLDER,
    LOCAL_LIFECYCLE_FUNCTION_ARN,
  );
  const definition = JSON.parse(text) as StateMachineDefinition & { States: Record<string, State> };
  const states = Object.entries(definition.States);
  const tasks = states.filter(([, s]) => s.Type === 'Task').map(([name]) => name);
  const waits = states.filter(([, s]) => s.Type === 'Wait').map(([name]) => name);
  const zero = (names: string[]) => Object.fromEntries(names.map((n) => [n, 0]));
  return {
    name: 'callsheet-lifecycle',
    definition,
    runOptions: (name, arn) => ({
      overrides: {
        taskResourceLocalHandlers: Object.fromEntries(
          tasks.map((task) => [
            task,
            async (input: unknown) => {
              await scheduler?.gate(arn);
              return (await handler(input, localContext('callsheet-lifecycle'))) as never;
            },
          ]),
        ),
        ...(scheduler ? { waitTimeOverrides: zero(waits), retryIntervalOverrides: zero(tasks) } : {}),
      },
      context: { Execution: { Id: arn, Name: name } } as never,
    }),
    onStart: (execution) => {
      if (!scheduler) return;
      scheduler.join(execution.executionArn);
      void execution.done.finally(() => scheduler.leave(execution.executionArn));
    },
    onEvent: (execution, event) => {
      if (!scheduler || event.type !== 'StateEntered' || event.state?.type !== 'Wait') return;
      const path = definition.States[event.state.name]?.TimestampPath;
      const until = path ? Date.parse(String(readPath(path, event.state.input))) : Number.NaN;
      if (!Number.isNaN(until)) scheduler.sleep(execution.executionArn, until);
    },
  };
}
