// Lambda entry (Function URL, auth NONE: the signature is the protection). Configuration is read at cold start.
import { buildWebhookReceiver } from './build-receiver.ts';
import { readWebhookConfig } from './config.ts';
import { makeWebhookHandler } from './handler.ts';

// Logs, metrics and traces through Powertools (functions/commons/observability.ts).
export const handler = makeWebhookHandler(buildWebhookReceiver(readWebhookConfig(process.env)));
