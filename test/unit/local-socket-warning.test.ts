import { afterEach, describe, expect, it, vi } from 'vitest';
import { documentClient } from '#commons/aws/clients.ts';

afterEach(() => {
  vi.restoreAllMocks();
});

const credentials = { accessKeyId: 'a', secretAccessKey: 'b' };
/** An agent with all 50 sockets to one endpoint busy and 100 more requests waiting. */
const busyAgent = {
  maxSockets: 50,
  sockets: { 'localhost:1': Array.from({ length: 50 }) },
  requests: { 'localhost:1': Array.from({ length: 100 }) },
};

/**
 * The SDK's own check of a client's HTTP handler when its sockets run out (NodeHttpHandler.checkSocketUsage), run
 * on a busy agent with the logger the client gave its handler.
 */
async function checkSockets(endpoint: string | undefined): Promise<void> {
  const db = documentClient({ region: 'us-east-1', endpoints: { dynamodb: endpoint }, credentials });
  const handler = db.config.requestHandler as unknown as {
    configProvider: Promise<{ logger?: unknown }>;
    constructor: { checkSocketUsage(agent: unknown, since: number, logger?: unknown): number };
  };
  const { logger } = await handler.configProvider;
  db.destroy();
  handler.constructor.checkSocketUsage(busyAgent, 0, logger);
}

/**
 * More requests at once than the SDK's 50 sockets: against the local stand-ins its warning would land in the middle
 * of `callsheet run`'s output, so a client with an endpoint override keeps it to itself; one for AWS logs it.
 */
describe('the socket-capacity warning of an SDK client', () => {
  it('is kept quiet for the local stack and written for AWS', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    await checkSockets('http://127.0.0.1:4567');
    expect(warn).not.toHaveBeenCalled();
    await checkSockets(undefined);
    expect(warn).toHaveBeenCalledWith(expect.stringContaining('socket usage at capacity=50'));
  });
});
