import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { Worker } from 'node:worker_threads';
import { CreateTableCommand, DynamoDBClient, ListTablesCommand, waitUntilTableExists } from '@aws-sdk/client-dynamodb';
import dynalite from 'dynalite';
import { documentClient } from '#commons/aws/dynamo-client.ts';
import { DEFAULT_CAP_LIMITS } from '#commons/frequency-cap.ts';
import { FrequencyCapStore } from '#commons/frequency-cap-store.ts';
import { SuppressionList } from '#commons/suppression-list.ts';
import { TABLES, type TableName } from '#commons/tables.ts';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from './local-aws.ts';

export interface LocalDynamo {
  endpoint: string;
  tables: Record<TableName, string>;
  close(): Promise<void>;
}

interface Served {
  port: number;
  /** Why dynalite stopped on its own (its thread died: a LevelDB store it could not open), if it did. */
  failure(): Error | null;
  close(): Promise<void>;
}

const DYNALITE_OPTIONS = { createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 };

/** dynalite on this thread: cheap to start (a command that reads a table and exits). */
async function serveHere(path: string | undefined, port: number): Promise<Served> {
  const server = dynalite({ path, ...DYNALITE_OPTIONS });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', () => resolve()));
  return {
    port: (server.address() as AddressInfo).port,
    failure: () => null,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/**
 * dynalite on a thread of its own, for a stack under load: its request parsing, expression checks and LevelDB work
 * then run beside the handlers instead of between them (a third or more of a simulated run's CPU). Same process,
 * so it ends with it and holds the data directory's lock as before.
 */
const WORKER = `
const { workerData, parentPort } = require('node:worker_threads');
const server = require(workerData.dynalite)({ path: workerData.path, ...workerData.options });
server.listen(workerData.port, '127.0.0.1', () => parentPort.postMessage({ port: server.address().port }));
parentPort.on('message', () => server.close(() => parentPort.postMessage({ closed: true })));
`;

async function serveOnThread(path: string | undefined, port: number): Promise<Served> {
  const worker = new Worker(WORKER, {
    eval: true,
    workerData: {
      dynalite: createRequire(import.meta.url).resolve('dynalite'),
      path,
      port,
      options: DYNALITE_OPTIONS,
    },
  });
  let failure: Error | null = null;
  worker.on('error', (err) => {
    failure = err;
  });
  // A thread that died (dynalite throws from a request when its store cannot be opened) answers no close.
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  const started = await new Promise<{ port: number }>((resolve, reject) => {
    worker.once('message', resolve);
    void exited.then(() => reject(failure ?? new Error('dynalite stopped before it listened')));
  });
  return {
    port: started.port,
    failure: () => failure,
    async close() {
      const closed = new Promise((resolve) => worker.once('message', resolve));
      worker.postMessage('close');
      await Promise.race([closed, exited]);
      await worker.terminate();
    },
  };
}

/** How long a store another command holds (`status --watch` opens it for each redraw) is waited for. */
const LOCKED_WAIT_MS = 3_000;

/** The LevelDB store class dynalite keeps its data in, from dynalite's own dependencies. */
export function dynaliteLevel(): new (path: string) => { open(): Promise<void>; close(): Promise<void> } {
  const fromDynalite = createRequire(createRequire(import.meta.url).resolve('dynalite'));
  return (fromDynalite('level') as { Level: ReturnType<typeof dynaliteLevel> }).Level;
}

/**
 * Opens the LevelDB store once before dynalite does. dynalite opens it lazily and, when it cannot, throws from inside
 * a request: a stack trace on this thread, a dead worker on its own, and no word of which files or why.
 */
async function checkStore(path: string): Promise<void> {
  const Level = dynaliteLevel();
  const deadline = Date.now() + LOCKED_WAIT_MS;
  for (;;) {
    const db = new Level(path);
    try {
      await db.open();
      return;
    } catch (err) {
      const cause = (err as Error & { cause?: Error & { code?: string } }).cause;
      if (cause?.code !== 'LEVEL_LOCKED') {
        throw new Error(
          `the DynamoDB store in ${path} could not be opened (${cause?.message ?? (err as Error).message}): restore ` +
            'it from a copy, or move it aside to start an empty one (what callsheet kept there, the do-not-call ' +
            'list, call counts, campaigns and uploads, is then not read)',
        );
      }
      if (Date.now() >= deadline)
        throw new Error(
          `the DynamoDB store in ${path} is in use by another process (another callsheet command on this data ` +
            'directory); try again when it has ended',
        );
    } finally {
      await db.close().catch(() => undefined);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** callsheet's tables (`<prefix>-<table>`) at `endpoint`, each created unless it exists, and active. */
export async function createTables(endpoint: string, prefix: string): Promise<Record<TableName, string>> {
  const client = new DynamoDBClient({ endpoint, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS });
  const tables = {} as Record<TableName, string>;
  const existing = new Set((await client.send(new ListTablesCommand({}))).TableNames ?? []);
  // All at once: each new table waits a moment to turn active, and a stack starts for every test file.
  await Promise.all(
    (Object.entries(TABLES) as [TableName, (typeof TABLES)[TableName]][]).map(async ([name, t]) => {
      const TableName = `${prefix}-${name}`;
      tables[name] = TableName;
      if (existing.has(TableName)) return;
      // A table kept from before an index lacks it (dynalite cannot add one): its readers fall back to a scan.
      const indexes = 'indexes' in t ? t.indexes : [];
      await client.send(
        new CreateTableCommand({
          TableName,
          AttributeDefinitions: [
            { AttributeName: t.partitionKey, AttributeType: 'S' },
            ...indexes.map((index) => ({ AttributeName: index.partitionKey, AttributeType: 'S' as const })),
          ],
          KeySchema: [{ AttributeName: t.partitionKey, KeyType: 'HASH' }],
          BillingMode: 'PAY_PER_REQUEST',
          ...(indexes.length > 0 && {
            GlobalSecondaryIndexes: indexes.map((index) => ({
              IndexName: index.name,
              KeySchema: [{ AttributeName: index.partitionKey, KeyType: 'HASH' as const }],
              Projection: { ProjectionType: 'INCLUDE' as const, NonKeyAttributes: [...index.include] },
            })),
          }),
        }),
      );
      await waitUntilTableExists({ client, maxWaitTime: 10, minDelay: 0.05, maxDelay: 0.1 }, { TableName });
    }),
  );
  client.destroy();
  return tables;
}

/**
 * dynalite on 127.0.0.1 with callsheet's tables (named `<prefix>-<table>`) created and active, the do-not-call list
 * and the call counts indexed: in memory, or in `path` (LevelDB) so data such as the suppression list outlives the
 * process; on a worker thread with `thread`.
 */
export async function startDynamo(
  options: { path?: string; prefix?: string; port?: number; thread?: boolean } = {},
): Promise<LocalDynamo> {
  const prefix = options.prefix ?? 'callsheet';
  if (options.path) await checkStore(options.path);
  const served = await (options.thread ? serveOnThread : serveHere)(options.path, options.port ?? 0);
  const endpoint = `http://127.0.0.1:${served.port}`;
  // A listening server (or its thread) would keep a failed command running: closed on any failure below.
  try {
    const tables = await createTables(endpoint, prefix);
    // A list or call counts kept from before the shards get them now; on new tables this only marks them indexed.
    const db = documentClient({
      region: LOCAL_REGION,
      endpoints: { dynamodb: endpoint },
      credentials: LOCAL_CREDENTIALS,
    });
    try {
      await new SuppressionList(db, tables.suppression).ensureIndexed();
      // The limits play no part in folding reservations.
      await new FrequencyCapStore(db, tables.outcomes, DEFAULT_CAP_LIMITS).ensureIndexed();
    } finally {
      db.destroy();
    }
    return { endpoint, tables, close: served.close };
  } catch (err) {
    await served.close();
    throw served.failure() ?? err;
  }
}
