import { mkdir, readFile, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { TableName } from '#commons/tables.ts';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from './local-aws.ts';
import type { LocalStack } from './local-stack.ts';

/**
 * What a running local stack (`callsheet local`, `callsheet run`) tells other commands about itself, in
 * `<data dir>/stack.json`: while it runs, it holds the data directory (dynalite's LevelDB lock), so operator
 * commands reach its endpoints instead of opening the database themselves.
 */
export interface RunningStack {
  pid: number;
  /** The command that holds the directory. */
  command: 'local' | 'run';
  startedAt: string;
  region: string;
  credentials: { accessKeyId: string; secretAccessKey: string };
  endpoints: { s3: string; dynamodb: string; sfn: string; webhooks: string; events: string };
  bucket: string;
  tables: Record<TableName, string>;
  stateMachineArn: string;
  /** The emulator's URL and key when the stack runs against it (a local, random key). */
  voiceApi: { url: string; apiKey: string } | null;
  agentId: string | null;
}

export class DataDirBusyError extends Error {}

/** Where a running stack describes itself (it is there only while one runs). */
export const runningStackFile = (dataDir: string) => join(dataDir, 'stack.json');

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The stack running on this data directory, or null when none is (a file left by a killed process is stale). */
export async function readRunningStack(dataDir: string): Promise<RunningStack | null> {
  let info: RunningStack;
  try {
    info = JSON.parse(await readFile(runningStackFile(dataDir), 'utf8')) as RunningStack;
  } catch {
    return null;
  }
  return info.pid && info.pid !== process.pid && alive(info.pid) ? info : null;
}

/**
 * Takes the data directory for this process, before anything opens its database: a second stack on the same
 * directory is refused with a message saying who holds it and what to do. Answers a function that records the
 * running stack's endpoints, and one that releases the directory.
 */
export async function claimDataDir(
  dataDir: string,
  command: RunningStack['command'],
): Promise<{
  publish(info: Omit<RunningStack, 'pid' | 'command' | 'startedAt'>): Promise<void>;
  release(): Promise<void>;
}> {
  await mkdir(dataDir, { recursive: true });
  const file = runningStackFile(dataDir);
  const claim = { pid: process.pid, command, startedAt: new Date().toISOString() };
  for (let attempt = 0; ; attempt++) {
    try {
      await writeFile(file, JSON.stringify(claim), { flag: 'wx', mode: 0o600 });
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST' || attempt > 2) throw err;
      let holder: Partial<RunningStack> = {};
      try {
        holder = JSON.parse(await readFile(file, 'utf8')) as Partial<RunningStack>;
      } catch {
        // Being written right now by another process: look again.
      }
      if (holder.pid && alive(holder.pid))
        throw new DataDirBusyError(
          `callsheet ${holder.command ?? 'run'} (process ${holder.pid}) is using the data directory ${dataDir}. ` +
            `Stop it first, or give this command its own directory: CALLSHEET_DATA_DIR=<another dir> callsheet …`,
        );
      if (holder.pid) await unlink(file).catch(() => undefined);
    }
  }
  return {
    publish: async (info) => {
      await writeFile(file, `${JSON.stringify({ ...claim, ...info }, null, 2)}\n`, { mode: 0o600 });
    },
    release: async () => {
      await unlink(file).catch(() => undefined);
    },
  };
}

/** What a started local stack publishes about itself. */
export const describeStack = (
  stack: LocalStack,
  voiceApi: RunningStack['voiceApi'],
  agentId: string | null,
): Omit<RunningStack, 'pid' | 'command' | 'startedAt'> => ({
  region: LOCAL_REGION,
  credentials: LOCAL_CREDENTIALS,
  endpoints: {
    s3: stack.s3.endpoint,
    dynamodb: stack.dynamo.endpoint,
    sfn: stack.env.AWS_ENDPOINT_URL_SFN as string,
    webhooks: stack.webhooks.url,
    events: stack.env.AWS_ENDPOINT_URL_EVENTBRIDGE as string,
  },
  bucket: stack.bucket,
  tables: stack.dynamo.tables,
  stateMachineArn: stack.stateMachineArn,
  voiceApi,
  agentId,
});
