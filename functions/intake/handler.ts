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
import { uploadId, uploadsInS3Event } from '#commons/upload-ref.ts';
import type { IntakeService } from './intake-service.ts';

/**
 * S3 → SQS → this function. Each message holds one S3 notification; a message whose upload could not be finished
 * is reported back as a batch item failure, so SQS redelivers only that one (and dead-letters it after the
 * queue's limit). Bad files are not failures: they are finished with a report saying why.
 */
export function makeIntakeHandler(service: IntakeService, log?: Log, obs: Observability = observabilityFor('intake')) {
  // Without a log of its own (in Lambda) the handler logs through Powertools, with the upload id on every line.
  const out: Log = log ?? asLog(obs.logger);
  const handler = middy(async (event: SQSEvent): Promise<SQSBatchResponse> => {
    const batchItemFailures: SQSBatchResponse['batchItemFailures'] = [];
    for (const message of event.Records) {
      clearTags(obs);
      let notification: unknown;
      try {
        notification = JSON.parse(message.body);
      } catch {
        notification = null;
      }
      // Not JSON, or JSON but not an object (`null`, a number): no redelivery would make it one.
      if (typeof notification !== 'object' || notification === null) {
        out.error('message is not an S3 notification; dropped', { messageId: message.messageId });
        continue;
      }
      try {
        for (const upload of uploadsInS3Event(notification as Parameters<typeof uploadsInS3Event>[0])) {
          tagLogs(obs, { uploadId: uploadId(upload) });
          const result = await service.process(upload);
          if (result.status !== 'ignored' && result.status !== 'duplicate_event') {
            count(obs, METRIC.uploads);
            count(
              obs,
              METRIC.contactsAccepted,
              result.parts.reduce((n, p) => n + p.rows, 0),
            );
          }
          out.info('upload handled', {
            key: upload.key,
            status: result.status,
            uploadId: 'uploadId' in result ? result.uploadId : undefined,
            parts: 'parts' in result ? result.parts.length : undefined,
          });
        }
      } catch (err) {
        out.warn('upload not finished; SQS will redeliver it', {
          messageId: message.messageId,
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
