import { randomUUID } from 'node:crypto';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import type { DeadLetter, DeadLetterSink } from '#contacts/contact-sync.ts';
import { localContext } from './lambda-context.ts';

export type BatchHandler = (event: SQSEvent, context: Context) => Promise<SQSBatchResponse>;

interface Message {
  id: string;
  body: string;
  receives: number;
  /** Simulated time at which it may be delivered (again). */
  visibleAt: number;
}

export interface BatchQueueOptions {
  /** Messages per invocation (the event source mapping's batch size). */
  batchSize?: number;
  /** How long a failed message stays invisible before it is delivered again. */
  visibilityMs?: number;
  /** The queue's own redrive: after this many receives a message goes to the dead letters without a reason. */
  maxReceives?: number;
  now?: () => number;
}

/**
 * The contact queue as Lambda's SQS event source drives it, on a clock the caller controls: `drain()` delivers every
 * visible message in batches; batch item failures become visible again after the visibility timeout; the dead-letter
 * queue keeps what the handler dead-letters (with a reason) and what the redrive moves (without one).
 */
export class LocalBatchQueue implements DeadLetterSink {
  readonly deadLetters: DeadLetter[] = [];
  /** Invocations so far, with their batch sizes. */
  readonly invocations: number[] = [];
  private messages: Message[] = [];
  private readonly opts: Required<BatchQueueOptions>;
  private handler: BatchHandler | null = null;

  constructor(
    private readonly name: string,
    options: BatchQueueOptions = {},
  ) {
    this.opts = {
      batchSize: options.batchSize ?? 100,
      visibilityMs: options.visibilityMs ?? 60_000,
      maxReceives: options.maxReceives ?? 8,
      now: options.now ?? (() => Date.now()),
    };
  }

  /** The function behind the queue (set after construction: it needs this queue as its dead-letter sink). */
  attach(handler: BatchHandler): void {
    this.handler = handler;
  }

  send(body: string): void {
    this.messages.push({ id: randomUUID(), body, receives: 0, visibleAt: this.opts.now() });
  }

  /** The contact queue as an event sink (a sheet's rows, intake's hook): one message per event. */
  readonly events = {
    send: async (events: unknown[]): Promise<void> => {
      for (const e of events) this.send(JSON.stringify(e));
    },
  };

  async put(letters: DeadLetter[]): Promise<void> {
    this.deadLetters.push(...letters);
  }

  /** Messages still on the queue (visible or waiting out their visibility timeout). */
  get depth(): number {
    return this.messages.length;
  }

  /** When the next invisible message becomes visible again; null when none waits. */
  nextVisibleAt(): number | null {
    const waiting = this.messages.filter((m) => m.visibleAt > this.opts.now());
    return waiting.length === 0 ? null : Math.min(...waiting.map((m) => m.visibleAt));
  }

  /** Delivers every message visible now, a batch at a time, until none is visible. */
  async drain(): Promise<void> {
    if (!this.handler) throw new Error(`${this.name}: no function attached`);
    for (;;) {
      const now = this.opts.now();
      const batch = this.messages.filter((m) => m.visibleAt <= now).slice(0, this.opts.batchSize);
      if (batch.length === 0) return;
      for (const m of batch) m.receives++;
      this.invocations.push(batch.length);
      let failed: Set<string>;
      try {
        const res = await this.handler({ Records: batch.map((m) => this.record(m)) }, localContext(this.name));
        failed = new Set(res.batchItemFailures.map((f) => f.itemIdentifier));
      } catch {
        failed = new Set(batch.map((m) => m.id));
      }
      const after = this.opts.now();
      // Taken off the queue at once: one pass however long the queue (a sheet's 20,000 rows wait behind a batch).
      const gone = new Set<Message>();
      for (const m of batch) {
        if (!failed.has(m.id)) gone.add(m);
        else if (m.receives >= this.opts.maxReceives) {
          gone.add(m);
          this.deadLetters.push({ messageId: m.id, body: m.body, reason: `redrive after ${m.receives} receives` });
        } else m.visibleAt = after + this.opts.visibilityMs;
      }
      if (gone.size > 0) this.messages = this.messages.filter((x) => !gone.has(x));
    }
  }

  private record(m: Message): SQSRecord {
    const sent = String(this.opts.now());
    return {
      messageId: m.id,
      receiptHandle: randomUUID(),
      body: m.body,
      attributes: {
        ApproximateReceiveCount: String(m.receives),
        SentTimestamp: sent,
        SenderId: 'local',
        ApproximateFirstReceiveTimestamp: sent,
      },
      messageAttributes: {},
      md5OfBody: '',
      eventSource: 'aws:sqs',
      eventSourceARN: `arn:aws:sqs:us-east-1:000000000000:${this.name}`,
      awsRegion: 'us-east-1',
    };
  }
}
