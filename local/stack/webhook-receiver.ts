import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { LambdaFunctionURLEvent, LambdaFunctionURLResult } from 'aws-lambda';
import type { Log } from '#commons/log.ts';
import { buildOutcomeService } from '#commons/outcomes/build-service.ts';
import { readOutcomesConfig } from '#commons/outcomes/config.ts';
import type { OutcomeService } from '#commons/outcomes/outcome-service.ts';
import { OUTCOMES_TIMEOUT_SECONDS } from '#commons/queue-settings.ts';
import type { VoiceApiOptions } from '#commons/voice-api/http.ts';
import type { Clock } from '#commons/voice-api/rate-limiter.ts';
import { makeOutcomesHandler } from '#outcomes/handler.ts';
import { buildWebhookReceiver } from '#webhooks/build-receiver.ts';
import { readWebhookConfig } from '#webhooks/config.ts';
import { makeWebhookHandler } from '#webhooks/handler.ts';
import { localContext } from './lambda-context.ts';
import type { SimScheduler } from './sim-scheduler.ts';
import { invocationsAsActors } from './stack-clock.ts';
import { LocalQueue, redelivery } from './upload-queue.ts';

export interface LocalWebhooks {
  /** Where the emulator (or anything on this machine) POSTs call events: `POST /_emulator/config {webhookUrl}`. */
  url: string;
  /** The signing secret the receiver expects (`webhookSecret` of the emulator). */
  secret: string;
  /** The outcomes queue; its `deadLetters` are the DLQ. */
  queue: LocalQueue;
  outcomes: OutcomeService;
  close(): Promise<void>;
}

/**
 * Points an emulator's webhooks at this receiver (`POST /_emulator/config`). An emulator reset forgets it, as it
 * forgets every setting changed after start-up.
 */
export async function deliverEmulatorWebhooks(
  emulatorUrl: string,
  webhooks: Pick<LocalWebhooks, 'url' | 'secret'>,
  settings: Record<string, unknown> = {},
): Promise<void> {
  const res = await fetch(`${emulatorUrl}/_emulator/config`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ ...settings, webhookUrl: webhooks.url, webhookSecret: webhooks.secret }),
  });
  await res.arrayBuffer();
  if (!res.ok) throw new Error(`the emulator at ${emulatorUrl} refused the webhook settings (${res.status})`);
}

/** A fresh signing secret for one local stack. */
export const localWebhookSecret = () => `whsec_${randomBytes(24).toString('hex')}`;

/**
 * The webhook receiver of AWS on 127.0.0.1: the same Function URL handler behind a plain HTTP server (requests
 * shaped as Function URLs shape them), feeding the same outcomes handler through a local queue with dead letters.
 */
export async function startWebhookReceiver(
  env: Record<string, string>,
  options: {
    now: () => Date;
    log: Log;
    /** The Voice API options and budget clock the stack gives every function (simulated time, held answers). */
    api?: Partial<VoiceApiOptions>;
    budgetClock?: Clock;
    port?: number;
    /** The stack's scheduler, on simulated time: invocations are its actors, redeliveries wait on it. */
    scheduler?: SimScheduler | null;
    /** Without a scheduler: the wait before a failed message's next delivery (the deployed six minutes if unset). */
    realTimeRedeliveryMs?: number;
  },
): Promise<LocalWebhooks> {
  const secret = env.VOICE_API_WEBHOOK_SECRET as string;
  const scheduler = options.scheduler ?? null;
  const { now, log, api, budgetClock } = options;
  const outcomes = await buildOutcomeService(readOutcomesConfig(env), {
    now,
    log,
    ...(api ? { api } : {}),
    ...(budgetClock ? { budgetClock } : {}),
  });
  const processor = makeOutcomesHandler(outcomes, options.log);
  const queue = new LocalQueue(
    'callsheet-outcomes',
    invocationsAsActors(scheduler, 'outcomes', processor),
    // As infra/webhooks.ts makes it: an event the processor could not handle (the API budget spent for the
    // minute, a DynamoDB error) comes back minutes later, so a burst waits out the budget instead of being
    // dead-lettered within a second.
    redelivery(scheduler, OUTCOMES_TIMEOUT_SECONDS, options.realTimeRedeliveryMs),
  );
  const receiver = buildWebhookReceiver(
    readWebhookConfig(env, { queue: 'local' }),
    { send: async (body) => queue.send(body) },
    options.now,
  );
  const handler = makeWebhookHandler(receiver, options.log);
  const server: Server = createServer((req, res) => {
    void readBody(req)
      .then(async (body) => {
        const result = (await handler(functionUrlEvent(req, body), localContext('callsheet-webhooks'))) as Exclude<
          LambdaFunctionURLResult,
          string
        >;
        res.writeHead(result.statusCode ?? 200, result.headers as Record<string, string>);
        res.end(result.body ?? '');
      })
      .catch(() => res.writeHead(500).end());
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/webhooks`,
    secret,
    queue,
    outcomes,
    async close() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await queue.stop();
    },
  };
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/** As a Function URL passes a request: headers lower-cased, text bodies as text, anything else base64. */
function functionUrlEvent(req: IncomingMessage, body: Buffer): LambdaFunctionURLEvent {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers))
    if (value !== undefined) headers[name.toLowerCase()] = Array.isArray(value) ? value.join(',') : value;
  const text = /^(text\/|application\/json)/.test(headers['content-type'] ?? '');
  return {
    version: '2.0',
    routeKey: '$default',
    rawPath: (req.url ?? '/').split('?')[0] as string,
    rawQueryString: (req.url ?? '').split('?')[1] ?? '',
    headers,
    requestContext: {
      http: {
        method: req.method ?? 'GET',
        path: req.url ?? '/',
        protocol: 'HTTP/1.1',
        sourceIp: '127.0.0.1',
        userAgent: '',
      },
    },
    body: text ? body.toString('utf8') : body.toString('base64'),
    isBase64Encoded: !text,
  } as unknown as LambdaFunctionURLEvent;
}
