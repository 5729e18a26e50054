import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { format } from 'node:util';
import { buildCli, freshBundle } from '#scripts/build-cli.mjs';

export const BIN = new URL('../../bin/callsheet.mjs', import.meta.url).pathname;

let built: Promise<unknown> | null = null;

/**
 * Runs `callsheet <args>` as a user would and collects its exit status and output. The compiled CLI is brought up to
 * date once per test file first, so parallel spawns do not each find the sources newer and compile them again.
 */
export async function runCli(
  args: string[],
  env: NodeJS.ProcessEnv = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  built ??= Promise.resolve(freshBundle() ?? buildCli({ quiet: true })).catch(() => undefined);
  await built;
  return runScript(BIN, args, env);
}

/** Longer than any one command takes on a busy machine (a whole `run` takes seconds). */
const COMMAND_LIMIT_MS = 120_000;

/** Runs a Node script in a new process and collects its exit status and output. */
export async function runScript(
  script: string,
  args: string[],
  env: NodeJS.ProcessEnv = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [script, ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => {
    stdout += d;
  });
  child.stderr.on('data', (d) => {
    stderr += d;
  });
  // A command that hangs fails with what it printed, rather than leaving the test to its timeout with nothing.
  let hung = false;
  const timer = setTimeout(() => {
    hung = true;
    child.kill('SIGKILL');
  }, COMMAND_LIMIT_MS);
  const [code] = await once(child, 'close');
  clearTimeout(timer);
  if (hung)
    throw new Error(
      `callsheet ${args.join(' ')} did not end within ${COMMAND_LIMIT_MS / 1000} s:\n${stdout}\n${stderr}`,
    );
  return { code: code as number, stdout, stderr };
}

let turn: Promise<unknown> = Promise.resolve();
/** Under the stack suite's 90 s test limit; a quick command takes a second or two, a `run` of the sample a few. */
const IN_PROCESS_LIMIT_MS = 60_000;

/**
 * Runs `callsheet <args>` in this process, for commands whose exit status and output are the point, not the
 * process: `main` from the sources with `env` laid over the environment and the console and standard streams
 * captured, one command at a time. A spawned command costs a second of CPU in start-up alone (Node, the SDK, the
 * phone metadata, a `run`'s stand-ins), which dozens of them spent over again on a 2-core machine. Commands that
 * wait for signals or hold the data directory while another process acts (`local`, `emulator`, `status --watch`,
 * a `run` that another shell or Ctrl-C acts on) and the compiled bundle itself are tested through `runCli`.
 */
export function runInProcess(
  args: string[],
  env: NodeJS.ProcessEnv = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  const mine = turn.then(() => inProcess(args, env));
  turn = mine.catch(() => undefined);
  return mine;
}

async function inProcess(args: string[], env: NodeJS.ProcessEnv) {
  const { main } = await import('#local/cli/main.ts');
  const saved = Object.keys(env).map((k) => [k, process.env[k]] as const);
  for (const [k, v] of Object.entries(env))
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  let stdout = '';
  let stderr = '';
  const toOut = (...a: unknown[]) => {
    stdout += `${format(...a)}\n`;
  };
  const toErr = (...a: unknown[]) => {
    stderr += `${format(...a)}\n`;
  };
  const consoleWas = {
    log: console.log,
    info: console.info,
    debug: console.debug,
    warn: console.warn,
    error: console.error,
  };
  const writeWas = { out: process.stdout.write, err: process.stderr.write };
  Object.assign(console, { log: toOut, info: toOut, debug: toOut, warn: toErr, error: toErr });
  const text = (chunk: string | Uint8Array) =>
    typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
  // As a stream's write: a callback given (after the encoding or in its place) is called once the text is taken.
  const writer =
    (append: (t: string) => void) =>
    (chunk: string | Uint8Array, ...rest: unknown[]) => {
      append(text(chunk));
      const done = rest.find((r) => typeof r === 'function') as (() => void) | undefined;
      if (done) queueMicrotask(done);
      return true;
    };
  process.stdout.write = writer((t) => {
    stdout += t;
  }) as typeof process.stdout.write;
  process.stderr.write = writer((t) => {
    stderr += t;
  }) as typeof process.stderr.write;
  // A command that hangs fails with what it printed, before the test's own limit, and gives the console back: the
  // next command in this worker (other files included) would otherwise wait on it for ever, unheard.
  let timer: NodeJS.Timeout | undefined;
  const hung = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('hung')), IN_PROCESS_LIMIT_MS);
  });
  try {
    return { code: await Promise.race([main(args), hung]), stdout, stderr };
  } catch (err) {
    if ((err as Error).message !== 'hung') throw err;
    throw new Error(
      `callsheet ${args.join(' ')} did not end within ${IN_PROCESS_LIMIT_MS / 1000} s:\n${stdout}\n${stderr}`,
    );
  } finally {
    clearTimeout(timer);
    Object.assign(console, consoleWas);
    process.stdout.write = writeWas.out;
    process.stderr.write = writeWas.err;
    for (const [k, v] of saved)
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
  }
}
