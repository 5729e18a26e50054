import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SuppressionList } from '#commons/suppression-list.ts';
import { localDynamoPath } from '#local/stack/data-dir.ts';
import { startDynamo } from '#local/stack/dynamo.ts';
import { runInProcess } from '../helpers/cli.ts';
import { dynaliteClient } from '../helpers/dynalite-client.ts';

let dataDir: string;
beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'callsheet-data-'));
});
afterAll(async () => {
  await rm(dataDir, { recursive: true, force: true });
});

describe('callsheet suppress', () => {
  const env = () => ({ CALLSHEET_DATA_DIR: dataDir, SUPPRESSION_TABLE: '' });

  it('adds, lists and removes numbers on the local stack, normalizing them to E.164', async () => {
    const add = await runInProcess(['suppress', 'add', '(415) 555-2671', '+44 20 7946 0018', '--country', 'US'], env());
    expect(add).toMatchObject({ code: 0 });
    expect(add.stdout).toContain('+14155552671, +442079460018');

    const listed = await runInProcess(['suppress', 'list', '--json'], env());
    expect(
      JSON.parse(listed.stdout).map((s: { phone: string; reason: string; source: string }) => [
        s.phone,
        s.reason,
        s.source,
      ]),
    ).toEqual([
      ['+14155552671', 'opted out', 'cli'],
      ['+442079460018', 'opted out', 'cli'],
    ]);

    expect((await runInProcess(['suppress', 'remove', '+14155552671'], env())).code).toBe(0);
    // What the CLI wrote is what intake reads: the same table in the same data directory.
    const dynamo = await startDynamo({ path: localDynamoPath({ CALLSHEET_DATA_DIR: dataDir }) });
    try {
      const db = dynaliteClient(dynamo.endpoint);
      const list = new SuppressionList(db, dynamo.tables.suppression);
      expect([...(await list.matching(['+14155552671', '+442079460018', '+14155550000']))]).toEqual(['+442079460018']);
      db.destroy();
    } finally {
      await dynamo.close();
    }
  });

  it('reindexes the list on demand, and takes no numbers for it', async () => {
    expect((await runInProcess(['suppress', 'add', '+14155550301', '+14155550302'], env())).code).toBe(0);
    const out = await runInProcess(['suppress', 'reindex'], env());
    expect(out).toMatchObject({ code: 0 });
    // The first test's +442079460018 is still listed.
    expect(out.stdout).toContain('3 number(s) of the suppression list in the local stack');
    const refused = await runInProcess(['suppress', 'reindex', '+14155550301'], env());
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('reindex takes no numbers');
  });

  it('keeps a listed number as it was when it is added again, and says which numbers were not listed', async () => {
    const first = await runInProcess(['suppress', 'add', '+14155550401', '--reason', 'court order 2026-113'], env());
    expect(first.stdout).toContain('1 number added to the suppression list in the local stack');
    const again = await runInProcess(['suppress', 'add', '+14155550401', '+14155550402'], env());
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('1 number added to the suppression list in the local stack');
    expect(again.stdout).toMatch(/\+14155550402$/m);
    expect(again.stdout).toMatch(
      /^\+14155550401 was already on the list: court order 2026-113 \(added \S+ by cli\); kept as it was\.$/m,
    );
    const listed = JSON.parse((await runInProcess(['suppress', 'list', '--json'], env())).stdout) as {
      phone: string;
      reason: string;
    }[];
    expect(listed.find((s) => s.phone === '+14155550401')?.reason).toBe('court order 2026-113');
    expect(listed.find((s) => s.phone === '+14155550402')?.reason).toBe('opted out');

    const removed = await runInProcess(['suppress', 'remove', '+14155550402', '+14155550499'], env());
    expect(removed.code).toBe(0);
    expect(removed.stdout).toMatch(/^1 number taken off the suppression list in the local stack .*: \+14155550402$/m);
    expect(removed.stdout).toMatch(
      /^Not on the suppression list in the local stack .*, so nothing to take off: \+14155550499$/m,
    );
    expect(removed.stdout).not.toMatch(/taken off .*\+14155550499/);
  });

  it('refuses numbers it cannot read, saying how to write them', async () => {
    const out = await runInProcess(['suppress', 'add', '555-2671'], env());
    expect(out.code).toBe(2);
    expect(out.stderr).toContain(
      '"555-2671" is not a valid phone number (write it as +<country code><number>, or give --country)',
    );
    expect((await runInProcess(['suppress', 'wipe'], env())).stderr).toContain('say what to do: add, remove, list');
  });
});
