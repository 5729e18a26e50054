import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface BusEvent {
  EventBusName?: string;
  Source: string;
  DetailType: string;
  Detail: unknown;
  Time: string;
}

/** An event as a rule's target receives it (the SQS body of an EventBridge → SQS rule). */
export interface EventEnvelope {
  version: '0';
  id: string;
  'detail-type': string;
  source: string;
  account: string;
  time: string;
  region: string;
  resources: string[];
  detail: unknown;
}

/** callsheet's own bus in AWS (infra/campaign-lifecycle.ts); the account's `default` bus exists too. */
export const CALLSHEET_BUS = 'callsheet';
const BUSES = new Set(['default', CALLSHEET_BUS]);
const ACCOUNT = '000000000000';
const MAX_ENTRIES = 10;

interface Entry {
  EventBusName?: string;
  Source?: unknown;
  DetailType?: unknown;
  Detail?: unknown;
  Resources?: unknown;
  Time?: unknown;
}

type EntryResult = { EventId: string } | { ErrorCode: string; ErrorMessage: string };

/** `callsheet` or `arn:aws:events:<region>:<account>:event-bus/callsheet` → `callsheet`; absent → `default`. */
const busName = (name: string | undefined) => (name ? (name.split(':event-bus/')[1] ?? name) : 'default');

/**
 * A stand-in for EventBridge's PutEvents (AWS JSON 1.1) on 127.0.0.1, as the AWS CLI and the SDK call it: up to
 * ten entries a request, each checked as EventBridge checks it (an entry that fails is answered with its error
 * and the others go on), kept in `events` and handed to the rules (`onEvent`) in the envelope a target receives.
 */
export class LocalEventBus {
  readonly events: BusEvent[] = [];
  private server: Server | null = null;
  private readonly rules: ((event: EventEnvelope, bus: string) => void)[] = [];

  constructor(
    private readonly now: () => Date = () => new Date(),
    private readonly region = 'us-east-1',
  ) {}

  /** A rule on the bus: sees every event put on any bus, with the bus's name. */
  onEvent(rule: (event: EventEnvelope, bus: string) => void): void {
    this.rules.push(rule);
  }

  async listen(port = 0): Promise<string> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const answer = (status: number, body: unknown) => {
          res.writeHead(status, { 'content-type': 'application/x-amz-json-1.1' });
          res.end(JSON.stringify(body));
        };
        const target = String(req.headers['x-amz-target'] ?? '');
        if (target !== 'AWSEvents.PutEvents')
          return answer(400, { __type: 'UnknownOperationException', message: `no ${target} here` });
        let body: { Entries?: Entry[] };
        try {
          body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { Entries?: Entry[] };
        } catch {
          return answer(400, { __type: 'SerializationException', message: 'the request body is not JSON' });
        }
        const entries = Array.isArray(body.Entries) ? body.Entries : [];
        if (entries.length < 1 || entries.length > MAX_ENTRIES)
          return answer(400, {
            __type: 'ValidationException',
            message: `1 validation error detected: Value at 'entries' failed to satisfy constraint: Member must have length between 1 and ${MAX_ENTRIES}, inclusive`,
          });
        const results = entries.map((e) => this.put(e));
        answer(200, { FailedEntryCount: results.filter((r) => 'ErrorCode' in r).length, Entries: results });
      });
    });
    await new Promise<void>((resolve, reject) => {
      this.server?.once('error', reject);
      this.server?.listen(port, '127.0.0.1', resolve);
    });
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  private put(e: Entry): EntryResult {
    const fail = (ErrorCode: string, ErrorMessage: string) => ({ ErrorCode, ErrorMessage });
    if (typeof e.Source !== 'string' || e.Source === '')
      return fail('InvalidArgument', 'Parameter Source is not valid.');
    if (typeof e.DetailType !== 'string' || e.DetailType === '')
      return fail('InvalidArgument', 'Parameter DetailType is not valid.');
    if (typeof e.Detail !== 'string') return fail('InvalidArgument', 'Parameter Detail is not valid.');
    let detail: unknown;
    try {
      detail = JSON.parse(e.Detail);
    } catch {
      return fail('MalformedDetail', 'Detail is malformed.');
    }
    if (detail === null || typeof detail !== 'object' || Array.isArray(detail))
      return fail('MalformedDetail', 'Detail is malformed.');
    const bus = busName(e.EventBusName);
    if (!BUSES.has(bus)) return fail('NotFoundException', `Event bus ${bus} does not exist.`);
    const time = this.now().toISOString();
    const id = randomUUID();
    this.events.push({
      ...(e.EventBusName ? { EventBusName: e.EventBusName } : {}),
      Source: e.Source,
      DetailType: e.DetailType,
      Detail: detail,
      Time: time,
    });
    const envelope: EventEnvelope = {
      version: '0',
      id,
      'detail-type': e.DetailType,
      source: e.Source,
      account: ACCOUNT,
      time,
      region: this.region,
      resources: Array.isArray(e.Resources) ? e.Resources.map(String) : [],
      detail,
    };
    for (const rule of this.rules) rule(envelope, bus);
    return { EventId: id };
  }

  close(): Promise<void> {
    return new Promise((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}
