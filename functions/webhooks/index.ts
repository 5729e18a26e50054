// Lambda entry (Function URL, auth NONE: the signature is the protection). Configuration is read at cold start.
import { jsonLog } from '../commons/log.ts';
import { buildWebhookReceiver } from './build-receiver.ts';
import { readWebhookConfig } from './config.ts';
import { makeWebhookHandler } from './handler.ts';

export const handler = makeWebhookHandler(buildWebhookReceiver(readWebhookConfig(process.env)), jsonLog('webhooks'));
