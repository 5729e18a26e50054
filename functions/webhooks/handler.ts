import middy from '@middy/core';
import type { LambdaFunctionURLEvent, LambdaFunctionURLResult } from 'aws-lambda';
import type { Log } from '#commons/log.ts';
import { asLog, count, METRIC, type Observability, observabilityFor, observe } from '#commons/observability.ts';
import type { WebhookReceiver } from './receiver.ts';

/**
 * Lambda Function URL → the receiver. The raw body is handed over byte for byte (base64-decoded when the URL
 * encoded it) so the signature is checked on exactly what was sent. Nothing about a request that failed its
 * checks is logged beyond the status and the receiver's reason, which names fields and rules, never values: the
 * body is untrusted.
 */
export function makeWebhookHandler(
  receiver: WebhookReceiver,
  log?: Log,
  obs: Observability = observabilityFor('webhooks'),
) {
  // Without a log of its own (in Lambda) the handler logs through Powertools.
  const out: Log = log ?? asLog(obs.logger);
  const handler = middy(async (event: LambdaFunctionURLEvent): Promise<LambdaFunctionURLResult> => {
    if (event.requestContext?.http?.method && event.requestContext.http.method !== 'POST')
      return { statusCode: 405, headers: { allow: 'POST' }, body: '' };
    const raw = event.body ?? '';
    const body = event.isBase64Encoded ? Buffer.from(raw, 'base64') : Buffer.from(raw, 'utf8');
    const result = await receiver.receive({ headers: event.headers ?? {}, body });
    if (result.status >= 500) out.warn('webhook not queued', { status: result.status });
    else if (result.status === 400) {
      // Signed, so from the vendor, and not delivered again: an operator should see it (the part's end fills in
      // the outcome from the calls list).
      out.warn('signed webhook refused: not a call event callsheet can record', {
        status: result.status,
        reason: result.body.message,
      });
      count(obs, METRIC.webhooksRefused);
    } else if (result.status >= 400) out.info('webhook refused', { status: result.status });
    return {
      statusCode: result.status,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(result.body),
    };
  }).use({
    // A store or queue that failed is a 503, so the sender delivers again later (after observe's error boundary).
    onError: async (request) => {
      out.error('webhook receiver failed', { error: (request.error as Error | undefined)?.name });
      request.response = {
        statusCode: 503,
        headers: { 'content-type': 'application/json' },
        body: '{"message":"try again"}',
      };
    },
  });
  return observe(handler, obs);
}
