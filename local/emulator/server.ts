import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { API_PREFIX } from '#commons/voice-api/http.ts';
import { EmulatorCore, type EmulatorOptions } from './core.ts';
import { type Handler, HttpError, parseJson, type Reply, Router, readBody } from './http-kit.ts';
import { type RateDecision, rateLimit } from './rate-limit.ts';
import { adminRoutes } from './routes/admin.ts';
import { agentRoutes } from './routes/agents.ts';
import { callRoutes } from './routes/calls.ts';
import { campaignRoutes } from './routes/campaigns.ts';
import { contactRoutes } from './routes/contacts.ts';
import { knowledgeRoutes } from './routes/knowledge.ts';
import { phoneNumberRoutes } from './routes/phone-numbers.ts';
import { ttsRoutes } from './routes/tts.ts';
import { widgetRoutes } from './routes/widget.ts';
import { type ArmedFault, Traffic } from './traffic.ts';

/**
 * Holds an answer `ms` milliseconds (a delay fault), given the request's headers: real time by default; under
 * `callsheet run` the embedded stack's simulated clock, as the sleep of the workflow that asked (LocalStack.holdAnswer).
 * `late`: the request itself is held before it is carried out, on its own, so it goes on after the workflow gave up;
 * `finished` settles once it has been carried out, answered and logged.
 */
export type HoldAnswer = (
  ms: number,
  headers: IncomingMessage['headers'],
  late?: boolean,
  finished?: Promise<void>,
) => Promise<void>;

export interface StartOptions extends EmulatorOptions {
  port?: number;
  host?: string;
  hold?: HoldAnswer;
}

export interface RunningEmulator {
  url: string;
  port: number;
  core: EmulatorCore;
  traffic: Traffic;
  close(): Promise<void>;
}

const BODY_LIMIT = 8 * 1024 * 1024;
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** An answer's body as sent, with the type it needs; none for a 204 or an answer without a body. */
interface Encoded {
  bytes: Buffer | null;
  type: Record<string, string>;
}

function encoded(reply: Reply): Encoded {
  if (reply.bytes) return { bytes: reply.bytes, type: {} };
  if (reply.status === 204 || reply.body === undefined) return { bytes: null, type: {} };
  return { bytes: Buffer.from(JSON.stringify(reply.body)), type: { 'Content-Type': 'application/json' } };
}

/**
 * Sends an answer. `cut`: its status, its headers, the length of its whole body and the first half of it, then the
 * connection closes: a client sees the request carried out and cannot read what came of it.
 */
function send(res: ServerResponse, status: number, headers: Record<string, string>, body: Encoded, cut = false): void {
  if (!body.bytes) {
    res.writeHead(status, headers);
    res.end();
    return;
  }
  const bytes = body.bytes;
  res.writeHead(status, { ...headers, ...body.type, 'Content-Length': String(bytes.length) });
  if (cut) res.write(bytes.subarray(0, Math.floor(bytes.length / 2)), () => res.destroy());
  else res.end(bytes);
}

/** The emulator's HTTP front: auth, rate limit, injected faults, request log, error answers. */
class EmulatorHttp {
  readonly api = new Router();
  readonly admin = new Router();

  constructor(
    readonly core: EmulatorCore,
    readonly traffic: Traffic,
    private readonly hold: HoldAnswer = (ms) => sleep(ms),
  ) {
    for (const register of [
      agentRoutes,
      callRoutes,
      contactRoutes,
      campaignRoutes,
      knowledgeRoutes,
      phoneNumberRoutes,
      ttsRoutes,
      widgetRoutes,
    ]) {
      register(this.api, core);
    }
    adminRoutes(this.admin, core, traffic);
  }

  /** Counts the request against the plan's minute and hour windows (simulated time) and answers the headers. */
  private rateLimit(): RateDecision {
    const { settings, rateWindow } = this.core.account;
    return rateLimit(settings, rateWindow, this.core.clock.now(), this.core.clock.speed);
  }

  private authenticate(req: IncomingMessage, path: string): void {
    const key = req.headers['x-api-key'];
    if (key === this.core.apiKey) return;
    // The embed snippet is the one endpoint a widget key may open.
    if (path === '/widget/embed-snippet' && key === this.core.account.widget.widget_key) return;
    throw new HttpError(401, key ? 'invalid API key' : 'missing X-API-Key header');
  }

  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const api = (req.url ?? '/').startsWith(API_PREFIX);
    if (api) this.traffic.started();
    let finish = () => {};
    const finished = new Promise<void>((resolve) => {
      finish = resolve;
    });
    try {
      await this.answer(req, res, finished);
    } finally {
      finish();
      if (api) this.traffic.finished();
    }
  }

  private async answer(req: IncomingMessage, res: ServerResponse, finished: Promise<void>): Promise<void> {
    const started = Date.now();
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const method = (req.method ?? 'GET').toUpperCase();
    let reply: Reply;
    const extra: Record<string, string> = {};
    let raw: Buffer = Buffer.alloc(0);
    let fault: ArmedFault | null = null;
    let holdMs = 0;
    try {
      raw = await readBody(req, BODY_LIMIT);
      if (url.pathname.startsWith('/_emulator/')) {
        reply = await this.dispatch(this.admin, method, url.pathname, url, req, raw);
      } else if (url.pathname.startsWith(API_PREFIX)) {
        const path = url.pathname.slice(API_PREFIX.length) || '/';
        fault = this.traffic.takeFault(method, path, this.core.clock.now());
        extra['X-Request-Id'] = `req_${randomUUID()}`;
        if (fault?.spec.status) {
          if (fault.spec.delayMs > 0) await this.hold(fault.spec.delayMs, req.headers);
          throw this.injected(fault.spec.status);
        }
        holdMs = fault?.spec.delayMs ?? 0;
        if (fault?.spec.late) {
          // Held before it is carried out: it takes effect after a client that gave up on it.
          await this.hold(holdMs, req.headers, true, finished);
          holdMs = 0;
        }
        this.authenticate(req, path);
        const limit = this.rateLimit();
        Object.assign(extra, limit.headers);
        if (limit.exceeded) throw new HttpError(429, `rate limit exceeded: too many requests this ${limit.window}`);
        reply = await this.dispatch(this.api, method, path, url, req, raw);
        // Carried out, and answered with the plan's body instead (a vendor's partial or odd answer).
        if (fault?.spec.body !== undefined)
          reply = { status: reply.status, headers: reply.headers, body: fault.spec.body };
      } else {
        throw new HttpError(404, 'Not Found');
      }
    } catch (err) {
      reply = this.errorReply(err);
    }
    // A delay or drop fault lets the request take effect and then holds or loses the answer: the client sees a
    // timeout or a broken connection for something that did happen.
    if (holdMs > 0) await this.hold(holdMs, req.headers);
    const body = encoded(reply);
    // An answer without a body has nothing to cut: it is sent whole.
    const cut = fault?.spec.cut === true && (body.bytes?.length ?? 0) > 0;
    this.traffic.log({
      at: this.core.clock.iso(),
      method,
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      status: reply.status,
      duration_ms: Date.now() - started,
      fault: fault !== null,
      ...(fault ? { fault_id: fault.id } : {}),
      ...(fault?.spec.drop ? { dropped: true } : {}),
      ...(cut ? { cut: true } : {}),
      ...(fault?.spec.body !== undefined ? { replaced: true } : {}),
      ...(raw.length > 0 && raw.length <= 4096 && (req.headers['content-type'] ?? '').includes('json')
        ? { body: safeJson(raw) }
        : {}),
    });
    if (res.destroyed) return;
    if (fault?.spec.drop) {
      res.destroy(); // no status line, no bytes: the answer is lost
      return;
    }
    send(res, reply.status, { ...extra, ...reply.headers }, body, cut);
  }

  private injected(status: number): HttpError {
    const headers: Record<string, string> = {};
    if (status === 429) {
      headers['Retry-After'] = '1';
      headers['X-RateLimit-Remaining'] = '0';
      headers['X-RateLimit-Reset'] = String(Math.ceil(this.core.clock.now() / 1000) + 1);
    }
    return new HttpError(status, status >= 500 ? 'injected server error' : `injected ${status}`, headers);
  }

  private async dispatch(
    router: Router,
    method: string,
    path: string,
    url: URL,
    req: IncomingMessage,
    raw: Buffer,
  ): Promise<Reply> {
    const found = router.match(method, path);
    if (found === null) throw new HttpError(404, 'Not Found');
    if (found === 'method') throw new HttpError(405, 'Method Not Allowed');
    const handler: Handler = found.handler;
    let parsed: unknown;
    let didParse = false;
    return handler({
      req,
      url,
      params: found.params,
      raw,
      json: () => {
        if (!didParse) {
          parsed = parseJson(raw);
          didParse = true;
        }
        return parsed;
      },
    });
  }

  private errorReply(err: unknown): Reply {
    if (err instanceof HttpError) return { status: err.status, body: { detail: err.detail }, headers: err.headers };
    console.error('emulator: unexpected error', err);
    return { status: 500, body: { detail: 'internal server error' } };
  }
}

function safeJson(raw: Buffer): unknown {
  try {
    return JSON.parse(raw.toString('utf8'));
  } catch {
    return raw.toString('utf8');
  }
}

/** Starts the emulator on 127.0.0.1 (port 0 picks a free one). */
export async function startEmulator(options: StartOptions): Promise<RunningEmulator> {
  const core = new EmulatorCore(options);
  const traffic = new Traffic();
  const http = new EmulatorHttp(core, traffic, options.hold);
  const server: Server = createServer((req, res) => {
    http.handle(req, res).catch((err) => {
      console.error('emulator: request failed', err);
      if (!res.headersSent) res.writeHead(500).end();
    });
  });
  core.live.attach(server);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const url = `http://${options.host ?? '127.0.0.1'}:${port}`;
  core.baseUrl = url;
  return {
    url,
    port,
    core,
    traffic,
    close: async () => {
      core.clock.stop();
      core.live.close();
      await core.webhooks.settled();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
