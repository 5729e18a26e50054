import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type RunOptions, StateMachine, type StateMachineDefinition } from 'aws-local-stepfunctions';

export type EventLog = Awaited<ReturnType<ReturnType<StateMachine['run']>['eventLogs']['next']>>['value'] & {
  type: string;
  state?: { name: string; type: string; input: unknown };
};

const pascal = (t: string) => t.charAt(0).toUpperCase() + t.slice(1);

import './promise-polyfill.ts';

export interface LocalStateMachine {
  name: string;
  definition: StateMachineDefinition;
  /** Run options for each execution (task handlers, wait overrides), given the execution's name and ARN. */
  runOptions: (executionName: string, executionArn: string) => RunOptions;
  /** Sees every execution as it starts, before any of its states runs. */
  onStart?: (execution: LocalExecution) => void;
  /** Sees every event of every execution as it happens (the local runner's clock listens here). */
  onEvent?: (execution: LocalExecution, event: EventLog) => void;
  /**
   * The document's top-level TimeoutSeconds, kept out of the interpreter (which would time it on the real clock):
   * the runner times it on its own clock and ends the execution as TIMED_OUT.
   */
  timeoutSeconds?: number;
  /**
   * Resolves once no task invocation of the execution is under way: one may outlive a stopped execution, as a
   * Lambda invocation outlives StopExecution in AWS.
   */
  drained?: (executionArn: string) => Promise<void>;
  /** Arms the execution's timeout; answers a cancel function (the simulated clock's timer). */
  armTimeout?: (execution: LocalExecution, at: number, fire: () => void) => () => void;
}

/** A history event as GetExecutionHistory names it (TaskStateEntered, WaitStateExited, ExecutionSucceeded…). */
export interface HistoryEvent {
  id: number;
  type: string;
  timestamp: number;
  stateName?: string;
}

export type ExecutionStatus = 'RUNNING' | 'SUCCEEDED' | 'FAILED' | 'ABORTED' | 'TIMED_OUT';

export interface LocalExecution {
  executionArn: string;
  stateMachineArn: string;
  name: string;
  input: string;
  status: ExecutionStatus;
  startDate: Date;
  stopDate: Date | null;
  output: string | null;
  error: string | null;
  cause: string | null;
  done: Promise<void>;
  abort: () => void;
  history: HistoryEvent[];
}

const ACCOUNT = '000000000000';
const NAME = /^[A-Za-z0-9_-]{1,80}$/;

class SfnError extends Error {
  constructor(
    readonly type: string,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Each document is built (and checked, unless asked not to) once per process: aws-local-stepfunctions compiles the
 * whole ASL schema to check one (0.6 s), which took longer than running a campaign when it was done for every
 * execution.
 */
const checked = new Map<string, StateMachine>();
function checkedMachine(definition: LocalStateMachine['definition'], check: boolean): StateMachine {
  const key = `${check}:${JSON.stringify(definition)}`;
  let machine = checked.get(key);
  if (!machine) {
    machine = new StateMachine(definition, { validationOptions: check ? { checkArn: true } : { noValidate: true } });
    checked.set(key, machine);
  }
  return machine;
}

/**
 * A stand-in for the Step Functions service: the StartExecution, DescribeExecution, ListExecutions and
 * StopExecution actions over the AWS JSON 1.0 wire protocol on 127.0.0.1, running each execution with
 * aws-local-stepfunctions. Names are unique per state machine as in AWS: the same name with the same input while
 * running answers the existing execution; otherwise it is ExecutionAlreadyExists.
 */
export class LocalStepFunctions {
  readonly executions = new Map<string, LocalExecution>();
  private readonly machines = new Map<string, LocalStateMachine>();
  private readonly runners = new Map<string, StateMachine>();
  private server: Server | null = null;
  private readonly statusListeners: ((execution: LocalExecution) => void)[] = [];

  /** Sees each execution once it has ended, as EventBridge's execution status change events would. */
  onStatusChange(listener: (execution: LocalExecution) => void): void {
    this.statusListeners.push(listener);
  }

  private ended(execution: LocalExecution): void {
    for (const listener of this.statusListeners) listener(execution);
  }

  /**
   * `checkDocuments: false` runs documents without checking them against the ASL schema: the CLI's stacks, whose
   * one document the test suite checks on every run (here, by default).
   */
  constructor(
    private readonly region = 'us-east-1',
    private readonly now: () => Date = () => new Date(),
    private readonly options: { checkDocuments?: boolean } = {},
  ) {}

  register(machine: LocalStateMachine): string {
    const arn = `arn:aws:states:${this.region}:${ACCOUNT}:stateMachine:${machine.name}`;
    this.runners.set(arn, checkedMachine(machine.definition, this.options.checkDocuments ?? true));
    this.machines.set(arn, machine);
    return arn;
  }

  start(stateMachineArn: string, name: string, input: string): LocalExecution {
    const machine = this.machines.get(stateMachineArn);
    const runner = this.runners.get(stateMachineArn);
    if (!machine || !runner)
      throw new SfnError('StateMachineDoesNotExist', `State Machine Does Not Exist: '${stateMachineArn}'`);
    if (!NAME.test(name)) throw new SfnError('InvalidName', `Invalid Name: '${name}'`);
    const executionArn = `arn:aws:states:${this.region}:${ACCOUNT}:execution:${machine.name}:${name}`;
    const existing = this.executions.get(executionArn);
    if (existing) {
      if (existing.status === 'RUNNING' && existing.input === input) return existing;
      throw new SfnError('ExecutionAlreadyExists', `Execution Already Exists: '${executionArn}'`);
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(input);
    } catch {
      throw new SfnError('InvalidExecutionInput', 'Invalid State Machine Execution Input: not JSON');
    }
    const run = runner.run(parsed as never, {
      ...machine.runOptions(name, executionArn),
      noThrowOnAbort: false,
    });
    let disarm = () => {};
    // Stopped or timed out, an execution ends at once, as in AWS: the interpreter's result may come only once the
    // task under way returns, and that invocation runs on (LocalStateMachine.drained).
    let endNow = () => {};
    const cut = new Promise<void>((resolve) => {
      endNow = resolve;
    });
    const execution: LocalExecution = {
      executionArn,
      stateMachineArn,
      name,
      input,
      status: 'RUNNING',
      startDate: this.now(),
      stopDate: null,
      output: null,
      error: null,
      cause: null,
      abort: () => {
        run.abort();
        endNow();
      },
      history: [],
      done: Promise.race([
        cut,
        run.result.then(
          (output) => {
            if (execution.status !== 'RUNNING') return;
            execution.status = 'SUCCEEDED';
            execution.output = JSON.stringify(output);
            execution.stopDate = this.now();
          },
          (err: Error & { cause?: { name?: string; message?: string } }) => {
            if (execution.status === 'ABORTED' || execution.status === 'TIMED_OUT') return;
            execution.status = 'FAILED';
            execution.error = err.cause?.name ?? err.name;
            execution.cause = err.cause?.message ?? err.message;
            execution.stopDate = this.now();
          },
        ),
      ]).finally(() => {
        disarm();
        this.ended(execution);
      }),
    };
    if (machine.timeoutSeconds && machine.armTimeout) {
      disarm = machine.armTimeout(execution, execution.startDate.getTime() + machine.timeoutSeconds * 1000, () =>
        this.timeOut(execution),
      );
    }
    this.executions.set(executionArn, execution);
    machine.onStart?.(execution);
    void this.record(execution, run.eventLogs as AsyncGenerator<EventLog>, machine);
    return execution;
  }

  /** Keeps each execution's history in AWS's vocabulary: a state entry is `<Type>StateEntered`. */
  private async record(e: LocalExecution, events: AsyncGenerator<EventLog>, machine: LocalStateMachine) {
    for await (const event of events) {
      const type =
        event.state && (event.type === 'StateEntered' || event.type === 'StateExited')
          ? `${pascal(event.state.type)}${event.type}`
          : event.type;
      e.history.push({ id: e.history.length + 1, type, timestamp: event.timestamp, stateName: event.state?.name });
      machine.onEvent?.(e, event);
    }
  }

  private timeOut(e: LocalExecution): void {
    if (e.status !== 'RUNNING') return;
    e.status = 'TIMED_OUT';
    e.error = 'States.Timeout';
    e.cause = 'The execution ran longer than its TimeoutSeconds.';
    e.stopDate = this.now();
    e.abort();
  }

  stop(executionArn: string, error?: string, cause?: string): void {
    const e = this.executions.get(executionArn);
    if (!e) throw new SfnError('ExecutionDoesNotExist', `Execution Does Not Exist: '${executionArn}'`);
    if (e.status !== 'RUNNING') return;
    e.status = 'ABORTED';
    e.error = error ?? null;
    e.cause = cause ?? null;
    e.stopDate = this.now();
    e.abort();
  }

  /**
   * Resolves when every execution started so far (and any they start) has ended, with every task invocation they
   * made: a stopped execution's last step may still be at work.
   */
  async settled(): Promise<void> {
    for (;;) {
      const all = [...this.executions.values()];
      const running = all.filter((e) => e.status === 'RUNNING');
      if (running.length > 0) {
        await Promise.all(running.map((e) => e.done));
        continue;
      }
      await Promise.all(all.map((e) => this.machines.get(e.stateMachineArn)?.drained?.(e.executionArn)));
      if ([...this.executions.values()].every((e) => e.status !== 'RUNNING')) return;
    }
  }

  async listen(port = 0): Promise<string> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const action = String(req.headers['x-amz-target'] ?? '').replace(/^AWSStepFunctions\./, '');
        let status = 200;
        let body: unknown;
        try {
          body = this.handle(action, JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}'));
        } catch (err) {
          const e = err instanceof SfnError ? err : new SfnError('InternalFailure', (err as Error).message);
          status = e.type === 'InternalFailure' ? 500 : 400;
          body = { __type: e.type, message: e.message };
          res.setHeader('x-amzn-ErrorType', e.type);
        }
        res.writeHead(status, { 'content-type': 'application/x-amz-json-1.0' });
        res.end(JSON.stringify(body));
      });
    });
    await new Promise<void>((resolve) => this.server?.listen(port, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async close(): Promise<void> {
    for (const e of this.executions.values()) if (e.status === 'RUNNING') this.stop(e.executionArn, 'LocalStackClosed');
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  private handle(action: string, req: Record<string, string | undefined>): unknown {
    const epoch = (d: Date | null) => (d ? d.getTime() / 1000 : undefined);
    const describe = (e: LocalExecution) => ({
      executionArn: e.executionArn,
      stateMachineArn: e.stateMachineArn,
      name: e.name,
      status: e.status,
      startDate: epoch(e.startDate),
      stopDate: epoch(e.stopDate),
      input: e.input,
      output: e.output ?? undefined,
      error: e.error ?? undefined,
      cause: e.cause ?? undefined,
    });
    switch (action) {
      case 'StartExecution': {
        const e = this.start(req.stateMachineArn ?? '', req.name ?? crypto.randomUUID(), req.input ?? '{}');
        return { executionArn: e.executionArn, startDate: epoch(e.startDate) };
      }
      case 'DescribeExecution': {
        const e = this.executions.get(req.executionArn ?? '');
        if (!e) throw new SfnError('ExecutionDoesNotExist', `Execution Does Not Exist: '${req.executionArn}'`);
        return describe(e);
      }
      case 'ListExecutions':
        return {
          executions: [...this.executions.values()]
            .filter((e) => e.stateMachineArn === req.stateMachineArn)
            .filter((e) => !req.statusFilter || e.status === req.statusFilter)
            .map(({ executionArn, stateMachineArn, name, status, startDate, stopDate }) => ({
              executionArn,
              stateMachineArn,
              name,
              status,
              startDate: epoch(startDate),
              stopDate: epoch(stopDate),
            })),
        };
      case 'GetExecutionHistory': {
        const e = this.executions.get(req.executionArn ?? '');
        if (!e) throw new SfnError('ExecutionDoesNotExist', `Execution Does Not Exist: '${req.executionArn}'`);
        return {
          events: e.history.map((h) => ({
            id: h.id,
            type: h.type,
            timestamp: h.timestamp / 1000,
            ...(h.stateName ? { stateEnteredEventDetails: { name: h.stateName } } : {}),
          })),
        };
      }
      case 'StopExecution': {
        this.stop(req.executionArn ?? '', req.error, req.cause);
        return { stopDate: Date.now() / 1000 };
      }
      default:
        throw new SfnError('UnknownOperationException', `callsheet's local Step Functions has no ${action}`);
    }
  }
}
