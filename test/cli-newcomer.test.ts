import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dynaliteLevel } from '#local/stack/dynamo.ts';
import { runCli, runInProcess } from './helpers/cli.ts';

let dataDir: string;
beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'callsheet-newcomer-'));
});
afterAll(async () => {
  await rm(dataDir, { recursive: true, force: true });
});

describe('what a newcomer meets first', () => {
  it('--version prints the package version', async () => {
    // Spawned: the compiled CLI finds package.json from its bundle.
    const out = await runCli(['--version']);
    expect(out.code).toBe(0);
    expect(out.stdout.trim()).toMatch(/^callsheet \d+\.\d+\.\d+$/);
  });

  it('an unknown option, a missing value or a stray argument is named plainly, with the options there are', async () => {
    const unknown = await runInProcess(['run', 'examples/contacts.xlsx', '--speed', '5']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('callsheet run: unknown option --speed (this command takes --agent <value>');
    expect(unknown.stderr).not.toContain('positional');
    const missing = await runInProcess(['validate', 'examples/contacts.xlsx', '--out']);
    expect(missing.stderr).toContain('callsheet validate: --out needs a value');
    // validate's help says truly which names a text file may have (functions/commons/spreadsheet/sources.ts).
    expect((await runInProcess(['validate', '--help'])).stdout).toContain(
      'a workbook is read whatever its name; text only when named\n                  .csv, .txt or .tsv',
    );
    const stray = await runInProcess(['status', 'now']);
    expect(stray.stderr).toContain('callsheet status: unexpected argument "now": this command takes none');
    // A negative number is a value to check, not a missing one.
    const negative = await runInProcess(['run', 'examples/contacts.xlsx', '--retries', '-1']);
    expect(negative.code).toBe(2);
    expect(negative.stderr).toContain('callsheet run: --retries must be 0, 1, 2 or 3');
    const every = await runInProcess(['status', '--watch', '--every', '-1']);
    expect(every.stderr).toContain('callsheet status: --every must be more than 0');
  });

  it('a data directory that is a file is named, before anything starts', async () => {
    const file = join(dataDir, 'not-a-folder');
    await writeFile(file, 'x');
    for (const args of [
      ['status'],
      ['suppress', 'list'],
      ['run', 'examples/contacts.xlsx'],
      ['validate', 'examples/contacts.xlsx'],
    ]) {
      const out = await runInProcess(args, {
        CALLSHEET_DATA_DIR: file,
        VOICE_API_URL: '',
        VOICE_API_KEY: '',
      });
      expect(out.code, out.stderr).toBe(1);
      expect(out.stderr).toBe(
        `callsheet ${args[0]}: ${file} is a file, not a folder: set CALLSHEET_DATA_DIR to a folder (or leave it unset for .callsheet/ in the current folder)\n`,
      );
    }
  });

  it('run blames a bad --start or --follow-up on the flag, before starting anything', async () => {
    const start = await runInProcess([
      'run',
      'examples/contacts.xlsx',
      '--start',
      '2026-02-30T09:00',
      '--time-zone',
      'UTC',
    ]);
    expect(start.code).toBe(2);
    expect(start.stderr).toMatch(/--start 2026-02-30T09:00: .*not a real date/);
    expect(start.stderr).not.toMatch(/metadata/);
    const followUp = await runInProcess(['run', 'examples/contacts.xlsx', '--follow-up', 'whenever']);
    expect(followUp.code).toBe(2);
    expect(followUp.stderr).toMatch(/--follow-up: /);
  });

  it('run --agent on the local emulator says why it cannot work and what to do', async () => {
    const out = await runCli(['run', 'examples/contacts.xlsx', '--agent', 'agent_from_elsewhere'], {
      CALLSHEET_DATA_DIR: join(dataDir, 'agent'),
      VOICE_API_URL: '',
      VOICE_API_KEY: '',
    });
    expect(out.code).toBe(2);
    expect(out.stderr).toContain('the local emulator starts with no agents on each run; leave --agent out');
  });

  it('a data directory whose DynamoDB store cannot be opened is named, with what to do, and left as it was', async () => {
    const dir = join(dataDir, 'damaged');
    await mkdir(join(dir, 'dynamodb'), { recursive: true });
    await writeFile(join(dir, 'dynamodb', 'CURRENT'), 'not a manifest name\n');
    const said = (stderr: string) =>
      expect(stderr).toContain(`the DynamoDB store in ${join(dir, 'dynamodb')} could not be opened (`);
    // Spawned: the process must end (it hung with the S3 stand-in still listening) and say why without a stack trace.
    const run = await runCli(['run', 'examples/contacts.xlsx'], {
      CALLSHEET_DATA_DIR: dir,
      VOICE_API_URL: '',
      VOICE_API_KEY: '',
    });
    expect(run.code).toBe(1);
    said(run.stderr);
    expect(run.stderr).toContain('restore it from a copy, or move it aside to start an empty one');
    expect(run.stderr).not.toMatch(/\n\s+at /);
    for (const command of [['suppress', 'list'], ['status']]) {
      const out = await runInProcess(command, { CALLSHEET_DATA_DIR: dir });
      expect([command, out.code]).toEqual([command, 1]);
      said(out.stderr);
    }
    expect(await readFile(join(dir, 'dynamodb', 'CURRENT'), 'utf8')).toBe('not a manifest name\n');
  }, 60_000);

  it('a DynamoDB store another process holds is waited for a moment, then named as in use, not as damaged', async () => {
    const dir = join(dataDir, 'held');
    await runInProcess(['suppress', 'add', '+14155550123'], { CALLSHEET_DATA_DIR: dir });
    // As another command holds it: LevelDB's lock on the store, taken with the library dynalite uses.
    const Level = dynaliteLevel();
    const holder = new Level(join(dir, 'dynamodb'));
    await holder.open();
    try {
      const held = await runInProcess(['suppress', 'list'], { CALLSHEET_DATA_DIR: dir });
      expect(held.code).toBe(1);
      expect(held.stderr).toContain(`the DynamoDB store in ${join(dir, 'dynamodb')} is in use by another process`);
      expect(held.stderr).not.toContain('move it aside');
    } finally {
      await holder.close();
    }
    const after = await runInProcess(['suppress', 'list'], { CALLSHEET_DATA_DIR: dir });
    expect([after.code, after.stdout]).toEqual([0, expect.stringContaining('+14155550123')]);
  });

  it('local names a taken port and what to do', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const { port } = taken.address() as AddressInfo;
    try {
      const out = await runCli(['local', '--port-base', String(port)], { CALLSHEET_DATA_DIR: join(dataDir, 'ports') });
      expect(out.code).toBe(1);
      expect(out.stderr).toContain(`callsheet local: port ${port} on 127.0.0.1 is taken`);
      expect(out.stderr).toContain('--port-base 0 for free ones');
      // Refused on its ports, it let go of the directory it had taken first.
      expect((await runInProcess(['suppress', 'list'], { CALLSHEET_DATA_DIR: join(dataDir, 'ports') })).code).toBe(0);
      // A directory another `local` holds is said first: its ports would be taken too, and --port-base no help.
      const held = join(dataDir, 'held-local');
      await mkdir(held, { recursive: true });
      await writeFile(join(held, 'stack.json'), JSON.stringify({ pid: process.pid, command: 'local' }));
      const second = await runCli(['local', '--port-base', String(port)], { CALLSHEET_DATA_DIR: held });
      expect(second.code).toBe(1);
      expect(second.stderr).toContain(`callsheet local (process ${process.pid}) is using the data directory ${held}`);
      expect(second.stderr).not.toContain('is taken');
    } finally {
      taken.close();
    }
  });

  it('validate rejects numbers on the do-not-call list of the data directory, as intake would', async () => {
    const env = { CALLSHEET_DATA_DIR: dataDir };
    // The first command in a data directory says it starts an empty list there (another folder, a typo: another list).
    const first = await runInProcess(['suppress', 'add', '+14155550201'], env);
    expect(first.code).toBe(0);
    expect(first.stderr).toContain(`callsheet: ${dataDir} held no callsheet data, so this started it empty`);
    expect(first.stderr).toContain(
      'set CALLSHEET_DATA_DIR to use another; the default is .callsheet/ in the current folder',
    );
    expect((await runInProcess(['suppress', 'list'], env)).stderr).toBe('');
    const sheet = join(dataDir, 'sheet.csv');
    await writeFile(sheet, 'Phone Number\n+14155550201\n+14155550202\n');
    const out = await runInProcess(['validate', sheet, '--json'], env);
    const report = JSON.parse(out.stdout);
    expect(report.rejected).toEqual([expect.objectContaining({ row: 2, reason: 'suppressed' })]);
    expect(report.rows).toEqual({ total: 2, valid: 1, rejected: 1, suppressed: 1 });
    expect(report.notes.join('\n')).not.toContain('no do-not-call list was checked');
    // The text counts them apart, as `run` does.
    const text = await runInProcess(['validate', sheet], env);
    expect(text.stdout).toContain(`${sheet} (csv): 2 rows, 1 valid, 0 rejected, 1 suppressed (do-not-call list)`);
    expect(text.stdout).not.toContain('no do-not-call list was checked');
    // Another data directory has its own (empty) list, and the text says no list was checked.
    const other = { CALLSHEET_DATA_DIR: join(dataDir, 'other') };
    const elsewhere = await runInProcess(['validate', sheet, '--json'], other);
    expect(JSON.parse(elsewhere.stdout).rows).toEqual({ total: 2, valid: 2, rejected: 0, suppressed: 0 });
    // The JSON carries the note the text prints.
    expect(JSON.parse(elsewhere.stdout).notes).toContainEqual(
      expect.stringMatching(/^no do-not-call list was checked: .* holds none and SUPPRESSION_TABLE is not set/),
    );
    expect((await runInProcess(['validate', sheet], other)).stdout).toContain(
      `note: no do-not-call list was checked: ${join(dataDir, 'other')} holds none and SUPPRESSION_TABLE is not set`,
    );
  });
});
