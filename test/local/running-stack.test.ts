import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claimDataDir, DataDirBusyError, readRunningStack } from '#local/stack/running-stack.ts';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'callsheet-claim-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A process id that is certainly not running: one that has just ended. */
async function endedPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '0']);
  await once(child, 'exit');
  return child.pid as number;
}

describe('one stack per data directory', () => {
  it('refuses a directory another live process holds, naming it', async () => {
    const holder = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)']);
    try {
      await writeFile(join(dir, 'stack.json'), JSON.stringify({ pid: holder.pid, command: 'local' }));
      await expect(claimDataDir(dir, 'run')).rejects.toThrow(DataDirBusyError);
      await expect(claimDataDir(dir, 'run')).rejects.toThrow(`callsheet local (process ${holder.pid})`);
      expect((await readRunningStack(dir))?.pid).toBe(holder.pid);
    } finally {
      holder.kill();
    }
  });

  it('takes over a file left by a process that died, publishes, and releases', async () => {
    await writeFile(join(dir, 'stack.json'), JSON.stringify({ pid: await endedPid(), command: 'run' }));
    expect(await readRunningStack(dir)).toBeNull();
    const claim = await claimDataDir(dir, 'local');
    const held = JSON.parse(await readFile(join(dir, 'stack.json'), 'utf8'));
    expect(held).toMatchObject({ pid: process.pid, command: 'local' });
    // This process's own claim is not "another stack" to talk to.
    expect(await readRunningStack(dir)).toBeNull();
    await claim.release();
    await expect(readFile(join(dir, 'stack.json'))).rejects.toThrow();
  });
});
