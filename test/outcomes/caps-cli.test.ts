import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DeleteCommand, type DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FrequencyCapStore } from '#commons/frequency-cap-store.ts';
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

/** Works on the local data directory's outcomes table while no stack holds it. */
async function withOutcomes(
  work: (table: string, db: DynamoDBDocumentClient, store: FrequencyCapStore) => Promise<void>,
): Promise<void> {
  const dynamo = await startDynamo({ path: localDynamoPath({ CALLSHEET_DATA_DIR: dataDir }) });
  const db = dynaliteClient(dynamo.endpoint);
  try {
    await work(
      dynamo.tables.outcomes,
      db,
      new FrequencyCapStore(db, dynamo.tables.outcomes, { perDay: 3, perWeek: 7 }),
    );
  } finally {
    db.destroy();
    await dynamo.close();
  }
}

describe('callsheet caps', () => {
  const env = () => ({ CALLSHEET_DATA_DIR: dataDir, OUTCOMES_TABLE: '' });
  const phone = '+14155550777';

  it('folds call counts kept before the shards into them, the local stack at its start already', async () => {
    await withOutcomes(async (table, db) => {
      // As a data directory of the version before the shards: no mark, the number's own item at its daily cap.
      await db.send(new DeleteCommand({ TableName: table, Key: { pk: 'caps#indexed' } }));
      await db.send(
        new PutCommand({
          TableName: table,
          Item: {
            pk: `cap#${phone}`,
            kind: 'cap',
            phone,
            version: 1,
            entries: [{ key: 'old-upload', at: new Date(Date.now() - 3600_000).toISOString(), calls: 3 }],
          },
        }),
      );
    });
    const out = await runInProcess(['caps', 'reindex'], env());
    expect(out).toMatchObject({ code: 0 });
    // The stack the command opened folded it when it started; the command found it there and added nothing.
    expect(out.stdout).toContain(
      '1 number(s) with calls counted before the cap shards in the local stack (' +
        `${localDynamoPath({ CALLSHEET_DATA_DIR: dataDir })}); 0 reservation(s) added to the shards now.`,
    );
    await withOutcomes(async (table, db, store) => {
      expect(await store.indexed()).toBe(true);
      // Without the old item only the shards can know of the 3 calls.
      await db.send(new DeleteCommand({ TableName: table, Key: { pk: `cap#${phone}` } }));
      const decision = await store.admit(phone, 'new-upload', 1, new Date());
      expect(decision).toMatchObject({ admitted: false, reason: 'daily-cap' });
    });
  });

  it('says what it can do, and takes nothing more', async () => {
    const wrong = await runInProcess(['caps', 'wipe'], env());
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain('say what to do: reindex');
    const extra = await runInProcess(['caps', 'reindex', '+14155550777'], env());
    expect(extra.code).toBe(2);
    expect(extra.stderr).toContain('reindex takes nothing more');
  });
});
