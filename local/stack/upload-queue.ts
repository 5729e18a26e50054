import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { localContext } from './lambda-context.ts';
import type { SimScheduler } from './sim-scheduler.ts';

export type SqsHandler = (event: SQSEvent, context: Context) => Promise<SQSBatchResponse>;

export interface QueueOptions {
  /** SQS's visibility timeout: how long a failed message waits before it is delivered again. */
  retryDelayMs?: number;
  /** After this many receives a failing message goes to the dead letters. */
  maxReceives?: number;
  /** Runs `redeliver` once `ms` have passed: real time by default, the stack's clock where it has one. */
  after?: (ms: number, redeliver: () => void) => void;
}

const realTime = (ms: number, redeliver: () => void) => {
  setTimeout(redeliver, ms);
};

/**
 * A queue's redelivery as deployed: on the stack's scheduler a failed message waits out the queue's visibility
 * timeout on the simulated clock (time does not pass that instant before it is delivered again) and is
 * dead-lettered after `maxReceives`, as infra sets them. In real time nothing would move a clock past a wait of
 * minutes, so it comes back after 50 ms.
 */
export function redelivery(
  scheduler: SimScheduler | null,
  deployed: { visibilityMs: number; maxReceives: number },
): QueueOptions {
  if (!scheduler) return { retryDelayMs: 50, maxReceives: deployed.maxReceives };
  return {
    retryDelayMs: deployed.visibilityMs,
    maxReceives: deployed.maxReceives,
    after: (ms, redeliver) => void scheduler.at(scheduler.now() + ms, async () => redeliver()),
  };
}

/**
 * The SQS queue between the bucket and the intake function, as Lambda's event source mapping drives it: one
 * message per invocation, partial batch failures redelivered after the visibility timeout, then dead-lettered.
 */
export class LocalQueue {
  readonly deadLetters: SQSRecord[] = [];
  private inFlight = 0;
  private waiters: (() => void)[] = [];

  constructor(
    private readonly name: string,
    private readonly handler: SqsHandler,
    private readonly options: QueueOptions = {},
  ) {}

  send(body: string): void {
    const record: SQSRecord = {
      messageId: crypto.randomUUID(),
      receiptHandle: crypto.randomUUID(),
      body,
      attributes: {
        ApproximateReceiveCount: '0',
        SentTimestamp: String(Date.now()),
        SenderId: 'local',
        ApproximateFirstReceiveTimestamp: String(Date.now()),
      },
      messageAttributes: {},
      md5OfBody: '',
      eventSource: 'aws:sqs',
      eventSourceARN: `arn:aws:sqs:us-east-1:000000000000:${this.name}`,
      awsRegion: 'us-east-1',
    };
    this.deliver(record, 1);
  }

  /** Resolves once no message is being handled or waiting for redelivery. */
  idle(): Promise<void> {
    return this.inFlight === 0 ? Promise.resolve() : new Promise((resolve) => this.waiters.push(resolve));
  }

  private deliver(record: SQSRecord, receive: number, counted = false): void {
    if (!counted) this.inFlight++;
    const attempt = { ...record, attributes: { ...record.attributes, ApproximateReceiveCount: String(receive) } };
    void this.handler({ Records: [attempt] }, localContext(this.name))
      .then(
        (res) => res.batchItemFailures.length > 0,
        () => true,
      )
      .then((failed) => {
        if (failed && receive < (this.options.maxReceives ?? 3)) {
          this.inFlight++; // counted now, so idle() does not resolve while the redelivery waits
          (this.options.after ?? realTime)(this.options.retryDelayMs ?? 50, () =>
            this.deliver(record, receive + 1, true),
          );
        } else if (failed) this.deadLetters.push(attempt);
      })
      .finally(() => {
        this.inFlight--;
        if (this.inFlight === 0) for (const w of this.waiters.splice(0)) w();
      });
  }
}
