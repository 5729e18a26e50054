import { spawn } from 'node:child_process';
import { once } from 'node:events';
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
