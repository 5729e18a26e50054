import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Requests of one operation on one table, and what DynamoDB billed for them. */
export interface DynamoTally {
  table: string;
  /** `BatchGetItem`, `PutItem`, … (the `X-Amz-Target` after the dot). */
  operation: string;
  requests: number;
  /** Read or write capacity units, as the response's ConsumedCapacity says. */
  capacity: number;
}

export interface DynamoProxy {
  url: string;
  /** Per table and operation since the last `reset()`. */
  tallies(): DynamoTally[];
  reset(): void;
  close(): Promise<void>;
}

type Consumed = { TableName?: string; CapacityUnits?: number };

/** The table a request concerns: `TableName`, or the one table of a batch's `RequestItems`. */
function tableOf(body: Record<string, unknown>): string {
  if (typeof body.TableName === 'string') return body.TableName;
  const items = body.RequestItems as Record<string, unknown> | undefined;
  return items ? Object.keys(items).join('+') : '?';
}

/**
 * DynamoDB as a Lambda meets it in AWS, for a stand-in on the same machine: each request waits `delayMs` before it
 * is passed on (a round trip in a region is a few ms; to dynalite on 127.0.0.1 it is nothing, which hides every
 * request made one after another). Each request also asks for its ConsumedCapacity, so what the path would be
 * billed is counted here without the code measured asking for it (dynalite checks no signature, so the changed
 * body is accepted).
 */
export async function startDynamoProxy(target: string, delayMs: number): Promise<DynamoProxy> {
  let tally = new Map<string, DynamoTally>();
  const count = (table: string, operation: string) => {
    const key = `${table} ${operation}`;
    const t = tally.get(key) ?? { table, operation, requests: 0, capacity: 0 };
    tally.set(key, t);
    return t;
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const operation = String(req.headers['x-amz-target'] ?? '').split('.')[1] ?? '?';
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Record<string, unknown>;
      const t = count(tableOf(body), operation);
      t.requests++;
      const sent = Buffer.from(JSON.stringify({ ...body, ReturnConsumedCapacity: 'TOTAL' }));
      setTimeout(() => {
        const { 'content-length': _length, ...headers } = req.headers;
        const out = request(
          new URL(req.url ?? '/', target),
          { method: req.method, headers: { ...headers, 'content-length': sent.length, host: new URL(target).host } },
          (answer) => {
            const back: Buffer[] = [];
            answer.on('data', (c: Buffer) => back.push(c));
            answer.on('end', () => {
              const bytes = Buffer.concat(back);
              try {
                const parsed = JSON.parse(bytes.toString('utf8')) as { ConsumedCapacity?: Consumed | Consumed[] };
                const consumed = parsed.ConsumedCapacity;
                for (const c of Array.isArray(consumed) ? consumed : consumed ? [consumed] : [])
                  t.capacity += c.CapacityUnits ?? 0;
              } catch {
                // not JSON (never from dynalite): nothing to count
              }
              res.writeHead(answer.statusCode ?? 502, answer.headers);
              res.end(bytes);
            });
          },
        );
        out.on('error', () => res.destroy());
        out.end(sent);
      }, delayMs);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    tallies: () => [...tally.values()].sort((a, b) => a.table.localeCompare(b.table) || b.requests - a.requests),
    reset: () => {
      tally = new Map();
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
