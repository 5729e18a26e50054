import middy from '@middy/core';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import type { Log } from '#commons/log.ts';
import {
  asLog,
  clearTags,
  count,
  METRIC,
  type Observability,
  observabilityFor,
  observe,
  tagLogs,
} from '#commons/observability.ts';
import { checkCallEvent } from '#commons/outcomes/call-event.ts';
import type { OutcomeService } from '#commons/outcomes/outcome-service.ts';

/**
 * Outcomes queue → this function. A message that fails (the API or DynamoDB did, or it is not an event at all) is
 * reported back alone; SQS delivers it again and, after the queue's limit, moves it to the dead letters, where
 * it stays for inspection rather than being dropped. An event for a call the API does not know is not a failure:
 * the service notes it, this counts it, and the message is done (no delivery would ever find the call).
 */
export function makeOutcomesHandler(
  service: OutcomeService,
  log?: Log,
  obs: Observability = observabilityFor('outcomes'),
) {
  const out: Log = log ?? asLog(obs.logger);
  const handler = middy(async (event: SQSEvent): Promise<SQSBatchResponse> => {
    const batchItemFailures: SQSBatchResponse['batchItemFailures'] = [];
    for (const message of event.Records) {
      clearTags(obs);
      try {
        // The receiver checked the same bytes; checked again so a message put on the queue another way is refused
        // with its reason rather than half recorded.
        const checked = checkCallEvent(JSON.parse(message.body));
        if (!checked.ok) throw new TypeError(`message is not a call event: ${checked.problem}`);
        const parsed = checked.event;
        const campaignId = parsed.data.metadata?.campaign_id;
        if (typeof campaignId === 'string') tagLogs(obs, { campaignId });
        const result = await service.handleEvent(parsed);
        if (result === 'unknown-call') count(obs, METRIC.unknownCallEvents);
        out.info('call event handled', { event: parsed.event, callId: parsed.data.call_id, result });
      } catch (err) {
        out.warn('call event not handled; SQS will deliver it again', {
          messageId: message.messageId,
          receiveCount: message.attributes?.ApproximateReceiveCount,
          error: (err as Error).name,
          reason: (err as Error).message,
        });
        batchItemFailures.push({ itemIdentifier: message.messageId });
      }
    }
    return { batchItemFailures };
  });
  return observe(handler, obs);
}
