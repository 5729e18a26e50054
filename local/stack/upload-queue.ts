import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { QUEUE_MAX_RECEIVES, visibilitySeconds } from '#commons/queue-settings.ts';
import { localContext } from './lambda-context.ts';
import type { SimScheduler } from './sim-scheduler.ts';

export type SqsHandler = (event: SQSEvent, context: Context) => Promise<SQSBatchResponse>;

export interface QueueOptions {
  /** SQS's visibility timeout: how long after a receive a message that failed is delivered again. */
  retryDelayMs: number;
  /** After this many receives a failing message goes to the dead letters. */
  maxReceives: number;
  /** The clock the visibility timeout counts on: real time by default, the stack's where it has one. */
  now?: () => number;
  /** Runs `redeliver` once `ms` have passed on that clock. */
  after?: (ms: number, redeliver: () => void) => void;
}

/** A timer that does not keep the process alive: a stack that closes drops what waits (`stop`). */
const realTime = (ms: number, redeliver: () => void) => {
  setTimeout(redeliver, ms).unref();
};

/**
 * The redelivery of the queue in front of a function that times out after `consumerTimeoutSeconds`, as deployed
 * (commons/queue-settings.ts): a failed message waits out the visibility timeout and is dead-lettered after the
 * last receive. On the stack's scheduler the wait is on the simulated clock (time does not pass that instant before
 * it is delivered again); in real time it is real minutes, or `realTimeMs` for a test that provokes a failure.
 */
export function redelivery(
  scheduler: SimScheduler | null,
  consumerTimeoutSeconds: number,
  realTimeMs?: number,
): QueueOptions {
  const visibilityMs = visibilitySeconds(consumerTimeoutSeconds) * 1000;
  if (!scheduler) return { retryDelayMs: realTimeMs ?? visibilityMs, maxReceives: QUEUE_MAX_RECEIVES };
  return {
    retryDelayMs: visibilityMs,
    maxReceives: QUEUE_MAX_RECEIVES,
    now: () => scheduler.now(),
    after: (ms, redeliver) => void scheduler.at(scheduler.now() + ms, async () => redeliver()),
  };
}

/** A message waiting out its visibility timeout; `dropped` once the queue stops. */
interface Waiting {
  dropped: boolean;
}

/**
 * An SQS queue in front of one function (intake's, the outcomes processor's), as Lambda's event source mapping
 * drives it: one message per invocation, a failed message delivered again after the visibility timeout, then
 * dead-lettered.
 */
export class LocalQueue {
  readonly deadLetters: SQSRecord[] = [];
  /** Messages a handler is working on now. */
  private inHand = 0;
  private readonly waiting = new Set<Waiting>();
  private waiters: { all: boolean; resolve: () => void }[] = [];

  constructor(
    private readonly name: string,
    private readonly handler: SqsHandler,
    private readonly options: QueueOptions,
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

  /** Resolves once no message is being handled or waiting to be delivered again. */
  idle(): Promise<void> {
    return this.until(true);
  }

  /**
   * Resolves once no message is being handled; some may wait out their visibility timeout, which only passes
   * once whoever awaits this lets the clock move.
   */
  handled(): Promise<void> {
    return this.until(false);
  }

  /** How many receives a message gets before it goes to the dead letters. */
  get maxReceives(): number {
    return this.options.maxReceives;
  }

  /** Whether a failed message waits to be delivered again. */
  get retrying(): boolean {
    return this.waiting.size > 0;
  }

  /** Drops the messages waiting to be delivered again (the stack is closing) and waits for those in hand. */
  stop(): Promise<void> {
    for (const w of this.waiting) w.dropped = true;
    this.waiting.clear();
    this.settle();
    return this.handled();
  }

  private until(all: boolean): Promise<void> {
    if (this.inHand === 0 && (!all || this.waiting.size === 0)) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ all, resolve }));
  }

  private settle(): void {
    if (this.inHand > 0) return;
    const done = this.waiters.filter((w) => !w.all || this.waiting.size === 0);
    this.waiters = this.waiters.filter((w) => !done.includes(w));
    for (const w of done) w.resolve();
  }

  private deliver(record: SQSRecord, receive: number): void {
    this.inHand++;
    const now = this.options.now ?? Date.now;
    const receivedAt = now();
    const attempt = { ...record, attributes: { ...record.attributes, ApproximateReceiveCount: String(receive) } };
    void this.handler({ Records: [attempt] }, localContext(this.name))
      .then(
        (res) => res.batchItemFailures.length > 0,
        () => true,
      )
      .then((failed) => {
        if (failed && receive < this.maxReceives) {
          const wait: Waiting = { dropped: false };
          this.waiting.add(wait);
          // The visibility timeout runs from the receive, as in SQS, not from the end of the failed invocation.
          const ms = Math.max(0, receivedAt + this.options.retryDelayMs - now());
          (this.options.after ?? realTime)(ms, () => {
            if (wait.dropped) return;
            this.waiting.delete(wait);
            this.deliver(record, receive + 1);
          });
        } else if (failed) this.deadLetters.push(attempt);
      })
      .finally(() => {
        this.inHand--;
        this.settle();
      });
  }
}
