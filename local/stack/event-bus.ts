import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface BusEvent {
  EventBusName?: string;
  Source: string;
  DetailType: string;
  Detail: unknown;
  Time: string;
}

/** A stand-in for EventBridge's PutEvents (AWS JSON 1.1) on 127.0.0.1 that keeps what was published. */
export class LocalEventBus {
  readonly events: BusEvent[] = [];
  private server: Server | null = null;

  constructor(private readonly now: () => Date = () => new Date()) {}

  async listen(): Promise<string> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const target = String(req.headers['x-amz-target'] ?? '');
        if (target !== 'AWSEvents.PutEvents') {
          res.writeHead(400, { 'content-type': 'application/x-amz-json-1.1' });
          res.end(JSON.stringify({ __type: 'UnknownOperationException', message: `no ${target} here` }));
          return;
        }
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
          Entries: { EventBusName?: string; Source: string; DetailType: string; Detail: string }[];
        };
        const ids = body.Entries.map((e) => {
          this.events.push({ ...e, Detail: JSON.parse(e.Detail), Time: this.now().toISOString() });
          return { EventId: crypto.randomUUID() };
        });
        res.writeHead(200, { 'content-type': 'application/x-amz-json-1.1' });
        res.end(JSON.stringify({ FailedEntryCount: 0, Entries: ids }));
      });
    });
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  close(): Promise<void> {
    return new Promise((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}
