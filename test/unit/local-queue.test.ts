import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { LocalQueue } from '#local/stack/upload-queue.ts';

/**
 * The embedded stack's SQS queue on a clock the test moves: when a failed message comes back, when the wait for it
 * is over, and what closing does to a message still waiting out its visibility timeout.
 */
function queueOn(failures: number, maxReceives = 5) {
  let now = 1_000;
  const timers: { at: number; run: () => void }[] = [];
  const receives: { at: number; count: string }[] = [];
  let failing = failures;
  const queue = new LocalQueue(
    'test',
    async (event: SQSEvent): Promise<SQSBatchResponse> => {
      const [record] = event.Records;
      receives.push({ at: now, count: record?.attributes.ApproximateReceiveCount ?? '' });
      // Work that takes time on the queue's clock: the visibility timeout counts from the receive.
      now += 10;
      if (failing-- > 0) return { batchItemFailures: [{ itemIdentifier: record?.messageId ?? '' }] };
      return { batchItemFailures: [] };
    },
    {
      retryDelayMs: 360_000,
      maxReceives,
      now: () => now,
      after: (ms, redeliver) => {
        timers.push({ at: now + ms, run: redeliver });
      },
    },
  );
  /** Moves the clock to the next timer and runs it. */
  const tick = () => {
    const t = timers.shift();
    if (!t) return false;
    now = Math.max(now, t.at);
    t.run();
    return true;
  };
  return { queue, receives, tick, timers };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('LocalQueue', () => {
  it.each([
    [0, 5, ['1'], 0],
    [2, 5, ['1', '2', '3'], 0],
    [4, 5, ['1', '2', '3', '4', '5'], 0],
    [9, 5, ['1', '2', '3', '4', '5'], 1],
    [9, 3, ['1', '2', '3'], 1],
  ])(
    'a message failing %i times with %i receives: received %j, %i dead-lettered',
    async (failures, max, counts, dead) => {
      const { queue, receives, tick } = queueOn(failures, max);
      queue.send('{}');
      let idle = false;
      void queue.idle().then(() => {
        idle = true;
      });
      do await settle();
      while (tick());
      await settle();
      expect(receives.map((r) => r.count)).toEqual(counts);
      // Each receive comes a visibility timeout after the one before, counted from that receive.
      expect(receives.map((r) => r.at - 1_000)).toEqual(counts.map((_, i) => i * 360_000));
      expect(queue.deadLetters).toHaveLength(dead);
      expect(idle).toBe(true);
    },
  );

  it('handled() answers while a failed message waits; idle() only once it is delivered again', async () => {
    const { queue, tick } = queueOn(1);
    queue.send('{}');
    await queue.handled();
    expect(queue.retrying).toBe(true);
    let idle = false;
    void queue.idle().then(() => {
      idle = true;
    });
    await settle();
    expect(idle).toBe(false);
    expect(tick()).toBe(true);
    await settle();
    expect(idle).toBe(true);
    expect(queue.retrying).toBe(false);
  });

  it('stop() drops a message waiting out its visibility timeout: idle() answers, and the late timer delivers nothing', async () => {
    const { queue, receives, tick } = queueOn(1);
    queue.send('{}');
    await queue.handled();
    await queue.stop();
    await queue.idle();
    expect(tick()).toBe(true);
    await settle();
    expect(receives).toHaveLength(1);
    expect(queue.deadLetters).toEqual([]);
  });
});
