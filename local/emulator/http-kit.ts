import type { IncomingMessage } from 'node:http';
import type { ValidationItem } from '#commons/voice-api/errors.ts';

/** An error answer: status plus the contract's `{"detail": ...}` body. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly detail: string | ValidationItem[],
    readonly headers: Record<string, string> = {},
  ) {
    super(typeof detail === 'string' ? detail : detail.map((d) => d.msg).join('; '));
  }
}

export const notFound = (what: string): HttpError => new HttpError(404, `${what} not found`);
export const conflict = (message: string): HttpError => new HttpError(409, message);
export const invalid = (items: ValidationItem[]): HttpError => new HttpError(422, items);

export interface Reply {
  status: number;
  body?: unknown;
  /** Raw bytes instead of JSON. */
  bytes?: Buffer;
  headers?: Record<string, string>;
}

export interface RequestContext {
  req: IncomingMessage;
  url: URL;
  params: Record<string, string>;
  raw: Buffer;
  /** The body parsed as JSON; a 422 when it is not. */
  json(): unknown;
}

export type Handler = (ctx: RequestContext) => Reply | Promise<Reply>;

interface Route {
  method: string;
  pattern: RegExp;
  names: string[];
  handler: Handler;
}

/** Path patterns like `/agents/:agentId/toggle`. */
export class Router {
  private readonly routes: Route[] = [];

  on(method: string, path: string, handler: Handler): this {
    const names: string[] = [];
    const source = path.replace(/:[A-Za-z]+/g, (m) => {
      names.push(m.slice(1));
      return '([^/]+)';
    });
    this.routes.push({ method, pattern: new RegExp(`^${source}/?$`), names, handler });
    return this;
  }

  match(method: string, path: string): { handler: Handler; params: Record<string, string> } | 'method' | null {
    let pathMatched = false;
    for (const r of this.routes) {
      const m = r.pattern.exec(path);
      if (!m) continue;
      pathMatched = true;
      if (r.method !== method) continue;
      const params: Record<string, string> = {};
      r.names.forEach((n, i) => {
        params[n] = decodeURIComponent(m[i + 1] ?? '');
      });
      return { handler: r.handler, params };
    }
    return pathMatched ? 'method' : null;
  }
}

export async function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > limit) throw new HttpError(413, `request body is larger than ${limit} bytes`);
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

export function parseJson(raw: Buffer): unknown {
  if (raw.length === 0) throw invalid([{ loc: ['body'], msg: 'a JSON body is required', type: 'missing' }]);
  try {
    return JSON.parse(raw.toString('utf8'));
  } catch (err) {
    throw invalid([{ loc: ['body'], msg: `JSON decode error: ${(err as Error).message}`, type: 'json_invalid' }]);
  }
}
