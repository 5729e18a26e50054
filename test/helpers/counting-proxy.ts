import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ProxiedRequest {
  method: string;
  /** The path, decoded (`/bucket/incoming/agent/list.csv`), without the query. */
  path: string;
  /** Response body bytes passed back to the client before it finished or hung up. */
  bytes: number;
  /** A DynamoDB request's operation (`BatchGetItem`, from X-Amz-Target); empty for S3. */
  operation: string;
}

export interface CountingProxy {
  url: string;
  /** Every request passed on, in order of arrival. */
  requests: ProxiedRequest[];
  /** Where requests go: set once the server behind is up. */
  target: string;
  /** The most requests that were ever in flight at once. */
  maxInFlight: number;
  /** Forget the requests seen so far (and the most in flight), to count the next piece of work alone. */
  reset(): void;
  close(): Promise<void>;
}

/**
 * An HTTP pass-through on 127.0.0.1 that records each request and how much of its answer went back: put in front of
 * s3rver, it shows what a function downloaded, and how much of it; in front of dynalite, which operations it asked
 * and how many at once; without touching the function.
 */
export async function startCountingProxy(target = ''): Promise<CountingProxy> {
  const requests: ProxiedRequest[] = [];
  const proxy: CountingProxy = {
    url: '',
    requests,
    target,
    maxInFlight: 0,
    reset: () => {
      requests.length = 0;
      proxy.maxInFlight = 0;
    },
    close: async () => undefined,
  };
  let inFlight = 0;
  const server = createServer((req, res) => {
    inFlight++;
    proxy.maxInFlight = Math.max(proxy.maxInFlight, inFlight);
    res.on('close', () => inFlight--);
    const seen: ProxiedRequest = {
      method: req.method ?? '',
      path: decodeURIComponent(new URL(req.url ?? '/', 'http://proxy').pathname),
      bytes: 0,
      operation: String(req.headers['x-amz-target'] ?? '').split('.')[1] ?? '',
    };
    requests.push(seen);
    const { expect: _continue, ...headers } = req.headers;
    const out = request(
      new URL(req.url ?? '/', proxy.target),
      { method: req.method, headers: { ...headers, host: new URL(proxy.target).host } },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.on('data', (chunk: Buffer) => {
          seen.bytes += chunk.length;
        });
        answer.pipe(res);
        // The client hung up (it stopped reading): stop fetching for it.
        res.on('close', () => answer.destroy());
      },
    );
    out.on('error', () => res.destroy());
    req.pipe(out);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  proxy.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  proxy.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return proxy;
}
