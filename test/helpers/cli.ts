import { spawn } from 'node:child_process';
import { once } from 'node:events';

export const BIN = new URL('../../bin/callsheet.mjs', import.meta.url).pathname;

/** Runs `callsheet <args>` as a user would and collects its exit status and output. */
export async function runCli(
  args: string[],
  env: NodeJS.ProcessEnv = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [BIN, ...args], {
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
  const [code] = await once(child, 'close');
  return { code: code as number, stdout, stderr };
}
