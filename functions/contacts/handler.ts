import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import middy from '@middy/core';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import type { Log } from '#commons/log.ts';
import type { ContactSync, MessageResult } from './contact-sync.ts';

/** A message that must come back to the queue (its contact could not be stored or pushed yet). */
class NotSyncedYet extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'NotSyncedYet';
  }
}

/**
 * SQS (fed by the EventBridge rule, contact sheets and the CLI) → this function. The whole batch is synced at once
 * (contacts go to the API 100 to a request); Powertools' batch processor then reports exactly the messages whose
 * contact did not sync as batch item failures, so only those return.
 */
export function makeContactsHandler(sync: ContactSync, log: Log) {
  return middy(async (event: SQSEvent, context: Context): Promise<SQSBatchResponse> => {
    const results = await sync.handle(
      event.Records.map((r) => ({
        messageId: r.messageId,
        body: r.body,
        receiveCount: Number(r.attributes?.ApproximateReceiveCount ?? '1') || 1,
      })),
    );
    const byId = new Map<string, MessageResult>(results.map((r) => [r.messageId, r]));
    const counts: Record<string, number> = {};
    for (const r of results) counts[r.status] = (counts[r.status] ?? 0) + 1;
    log.info('contact events handled', { messages: results.length, ...counts });
    for (const r of results) {
      if ('reason' in r)
        log.warn('contact event not synced', { messageId: r.messageId, status: r.status, reason: r.reason });
      else if (r.status === 'done' && r.superseded)
        log.info('older contact change: newer values kept', { messageId: r.messageId, superseded: r.superseded });
    }
    return processPartialResponse(
      event,
      async (record: SQSRecord) => {
        const r = byId.get(record.messageId);
        if (r?.status === 'retry') throw new NotSyncedYet(r.reason);
      },
      new BatchProcessor(EventType.SQS),
      { context, throwOnFullBatchFailure: false },
    );
  });
}
