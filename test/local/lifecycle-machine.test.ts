import { describe, expect, it } from 'vitest';
import { localLifecycleMachine } from '#local/stack/lifecycle-machine.ts';
import { SimScheduler } from '#local/stack/sim-scheduler.ts';
import { LocalStepFunctions } from '#local/stack/step-functions.ts';

const T0 = Date.parse('2026-12-07T18:00:00Z');

/** The local Step Functions on a simulated clock starting at T0, as `callsheet run` has them. */
function simulated() {
  let now = T0;
  const clock = {
    now: () => now,
    set: (t: number) => {
      now = t;
    },
  };
  return { scheduler: new SimScheduler(clock), sfn: new LocalStepFunctions('us-east-1', () => new Date(clock.now())) };
}

describe('the local lifecycle machine, stopped while a task runs', () => {
  it('lets the invocation under way run to its end, and retries nothing of a stopped execution', async () => {
    const { scheduler, sfn } = simulated();
    const invoked: string[] = [];
    let answer!: () => void;
    const answered = new Promise<void>((resolve) => {
      answer = resolve;
    });
    let started!: () => void;
    const running = new Promise<void>((resolve) => {
      started = resolve;
    });
    // The agent check fails as a retried error would (the document retries TransientError), once it is answered.
    const handler = async (event: unknown) => {
      invoked.push((event as { action: string }).action);
      started();
      await answered;
      throw Object.assign(new Error('the API answered 500'), { name: 'TransientError' });
    };
    const arn = sfn.register(localLifecycleMachine(handler as never, scheduler, 3600));
    const execution = sfn.start(arn, 'upload-1-p1', JSON.stringify({ plan: {} }));
    await running;
    sfn.stop(execution.executionArn);
    await execution.done;
    expect(execution.status).toBe('ABORTED');
    // Stopped, and its invocation still at work: the execution stays an actor of the clock until it returns.
    expect(scheduler.has(execution.executionArn)).toBe(true);
    let settled = false;
    const all = sfn.settled().then(() => {
      settled = true;
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(settled).toBe(false);
    answer();
    await all;
    // A few turns of the event loop for any retry the interpreter would make.
    for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
    expect(invoked).toEqual(['checkAgent']);
    expect(scheduler.has(execution.executionArn)).toBe(false);
    expect(execution.status).toBe('ABORTED');
  });
});

describe('the local lifecycle machine, timed out while it sleeps', () => {
  it('ends at once, invokes nothing more and leaves no task timer of the interpreter running', async () => {
    const { scheduler, sfn } = simulated();
    const invoked: string[] = [];
    // Created, then asleep until two hours on: the execution times out after one, at its next task's gate.
    const handler = async (event: unknown) => {
      const { action } = event as { action: string };
      invoked.push(action);
      return action === 'checkAgent' ? {} : { next: 'wait', wakeAt: new Date(T0 + 2 * 3600_000).toISOString() };
    };
    const timers = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
    const before = timers();
    const arn = sfn.register(localLifecycleMachine(handler as never, scheduler, 3600));
    const execution = sfn.start(arn, 'upload-2-p1', JSON.stringify({ plan: {} }));
    await execution.done;
    expect(execution.status).toBe('TIMED_OUT');
    expect(execution.stopDate?.getTime()).toBe(T0 + 3600_000);
    await sfn.settled();
    for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
    expect(invoked).toEqual(['checkAgent', 'createCampaign']);
    expect(scheduler.has(execution.executionArn)).toBe(false);
    // The task at the gate was let go and failed at once: the interpreter's time limit of it (330 s of real time,
    // which kept `callsheet run` alive long after its summary) is cleared.
    expect(timers()).toBe(before);
  });
});

describe('the local Step Functions, registering a document', () => {
  // A Wait state that says neither how long nor until when: the ASL schema refuses it.
  const broken = {
    name: 'broken',
    definition: { StartAt: 'Nap', States: { Nap: { Type: 'Wait', End: true } } },
    runOptions: () => ({}),
  } as never;

  it('checks it against the ASL schema, as the test stacks do, unless told not to (the CLI)', () => {
    expect(() => new LocalStepFunctions().register(broken)).toThrow(/Nap/);
    expect(new LocalStepFunctions('us-east-1', undefined, { checkDocuments: false }).register(broken)).toMatch(
      /:stateMachine:broken$/,
    );
  });
});
