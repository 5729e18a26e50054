import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CallOutcome } from '#commons/outcomes/call-outcome.ts';
import { OutcomeStore } from '#commons/outcomes/outcome-store.ts';
import { CampaignStore } from '#lifecycle/campaign-store.ts';
import { localDynamoPath } from '#local/stack/data-dir.ts';
import { startDynamo } from '#local/stack/dynamo.ts';
import { LOCAL_CREDENTIALS } from '#local/stack/local-aws.ts';
import { runInProcess } from '../helpers/cli.ts';
import { dynaliteClient } from '../helpers/dynalite-client.ts';
import { readAllWays } from '../intake/output-readers.ts';

const base = (callId: string, phone: string, at: string, more: Partial<CallOutcome> = {}): CallOutcome => ({
  callId,
  campaignId: 'cmp_cli',
  phone,
  contactName: null,
  status: 'completed',
  failureReason: null,
  durationSeconds: 60,
  costInr: 4.5,
  transcriptUrl: null,
  recordingUrl: null,
  summary: null,
  at,
  startedAt: new Date(Date.parse(at) - 60_000).toISOString(),
  optOutPhrase: null,
  ...more,
});

const OUTCOMES = [
  base('c1', '+14155550001', '2026-03-02T09:00:00Z', {
    status: 'failed',
    failureReason: 'no_answer',
    durationSeconds: 0,
    costInr: 0,
    contactName: '=HYPERLINK("x")',
  }),
  base('c2', '+14155550001', '2026-03-02T09:20:00Z', { recordingUrl: 'http://127.0.0.1/r/c2.wav' }),
  base('c3', '+14155550002', '2026-03-02T09:05:00Z', { optOutPhrase: 'stop calling me', contactName: 'Ann, "A"' }),
  base('c4', '+14155550003', '2026-03-02T09:06:00Z', { campaignId: 'cmp_other' }),
];

let dataDir: string;
beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'callsheet-outcomes-'));
  const dynamo = await startDynamo({ path: localDynamoPath({ CALLSHEET_DATA_DIR: dataDir }) });
  try {
    const db = dynaliteClient(dynamo.endpoint);
    const store = new OutcomeStore(db, dynamo.tables.outcomes);
    for (const o of OUTCOMES) await store.record(o);
    // The parts callsheet launched: cmp_cli's, and one whose campaign has no call recorded yet.
    const parts = new CampaignStore(db, dynamo.tables.campaigns);
    const at = new Date('2026-03-02T09:00:00Z');
    for (const [partKey, campaignId, part] of [
      ['sheet-1a2b-p1', 'cmp_cli', 1],
      ['sheet-1a2b-p2', 'cmp_quiet', 2],
    ] as const) {
      await parts.beginCreate(partKey, 'sheet-1a2b', part, at);
      await parts.created(partKey, campaignId);
      await parts.finish(partKey, 'completed', at);
    }
    db.destroy();
  } finally {
    await dynamo.close();
  }
});
afterAll(async () => {
  await rm(dataDir, { recursive: true, force: true });
});

describe('callsheet campaign outcomes', () => {
  const env = () => ({ CALLSHEET_DATA_DIR: dataDir, OUTCOMES_TABLE: '' });

  it('exports the per-contact table as CSV, one line per number, formulas defused', async () => {
    const res = await runInProcess(['campaign', 'outcomes', 'cmp_cli', '--csv'], env());
    expect(res.code).toBe(0);
    const lines = res.stdout.trimEnd().split('\r\n');
    expect(lines[0]).toBe(
      '"Phone Number","Name","Attempts","Last Status","Failure Reason","Talk Seconds","Cost (INR)","Last Call Started At","Last Call Ended At","Last Call Id","Opted Out","Transcript","Recording"',
    );
    // Every text quoted, numbers bare, the E.164 numbers as they are.
    expect(lines.slice(1)).toEqual([
      `"+14155550001","'=HYPERLINK(""x"")",2,"completed",,60,4.5,"2026-03-02T09:19:00.000Z","2026-03-02T09:20:00Z","c2",,,"http://127.0.0.1/r/c2.wav"`,
      `"+14155550002","Ann, ""A""",1,"completed",,60,4.5,"2026-03-02T09:04:00.000Z","2026-03-02T09:05:00Z","c3","yes: ""stop calling me"" (suppressed mid-campaign)",,`,
    ]);
  });

  it('writes an .xlsx workbook with the same rows', async () => {
    const file = join(dataDir, 'out.xlsx');
    const res = await runInProcess(['campaign', 'outcomes', 'cmp_cli', '--xlsx', '--out', file], env());
    expect(res.code).toBe(0);
    expect(res.stderr).toContain('2 contact(s) of campaign cmp_cli written to');
    const wb = new ExcelJS.Workbook();
    await wb.xlsx.load((await readFile(file)) as unknown as ArrayBuffer);
    const ws = wb.getWorksheet('Outcomes');
    expect(ws?.getRow(2).getCell(1).value).toBe('+14155550001');
    expect(ws?.getRow(2).getCell(3).value).toBe(2);
    expect(ws?.getRow(3).getCell(11).value).toContain('stop calling me');
    expect(ws?.rowCount).toBe(3);
    // The header stays in view and reads as a header; the file passes a strict XML 1.0 parser and SheetJS.
    expect(ws?.views[0]).toMatchObject({ state: 'frozen', ySplit: 1 });
    expect(ws?.getRow(1).getCell(1).font?.bold).toBe(true);
    const read = await readAllWays(await readFile(file));
    expect(read.strict.rows).toEqual([3]);
    expect(read.sheetNames).toEqual(['Outcomes']);
    expect(read.sheetjs[1]?.slice(0, 4)).toEqual(['+14155550001', '=HYPERLINK("x")', 2, 'completed']);
  });

  it('prints a table by default, says so when a campaign has no outcomes, and names an unknown id', async () => {
    const table = await runInProcess(['campaign', 'outcomes', 'cmp_cli'], env());
    expect(table.stdout.split('\n')[0]).toMatch(/^Phone Number\s+Name\s+Attempts\s+Last Status/);
    expect(table.stdout).toContain('+14155550002');
    // By its part key, as `show` and `report` take it.
    const byPart = await runInProcess(['campaign', 'outcomes', 'sheet-1a2b-p1'], env());
    expect(byPart.code).toBe(0);
    expect(byPart.stdout).toBe(table.stdout);
    const quiet = await runInProcess(['campaign', 'outcomes', 'cmp_quiet'], env());
    expect(quiet.code).toBe(0);
    expect(quiet.stdout).toContain('No outcomes recorded for campaign cmp_quiet');
    // An id callsheet never launched is not an empty campaign.
    const none = await runInProcess(['campaign', 'outcomes', 'cmp_none'], env());
    expect(none.code).toBe(1);
    expect(none.stdout).toBe('');
    expect(none.stderr).toContain('callsheet campaign: no campaign cmp_none in the local stack');
    const both = await runInProcess(['campaign', 'outcomes', 'cmp_cli', '--csv', '--xlsx'], env());
    expect(both.code).toBe(2);
    // --out alone writes what the file's name ends in; a folder or another name is refused with what to give.
    const named = join(dataDir, 'named.csv');
    const byName = await runInProcess(['campaign', 'outcomes', 'cmp_cli', '--out', named], env());
    expect(byName.code).toBe(0);
    expect(byName.stdout).toBe('');
    expect(await readFile(named, 'utf8')).toBe(
      (await runInProcess(['campaign', 'outcomes', 'cmp_cli', '--csv'], env())).stdout,
    );
    const folder = await runInProcess(['campaign', 'outcomes', 'cmp_cli', '--xlsx', '--out', dataDir], env());
    expect(folder.code).toBe(2);
    expect(folder.stderr).toContain(
      `--out ${dataDir} is a folder: give a file name, e.g. ${join(dataDir, 'outcomes-cmp_cli.xlsx')}`,
    );
    const odd = await runInProcess(['campaign', 'outcomes', 'cmp_cli', '--out', join(dataDir, 'outcomes.txt')], env());
    expect(odd.code).toBe(2);
    expect(odd.stderr).toContain('say --csv or --xlsx, or name the file .csv or .xlsx');
  });

  it('reads a deployed table when OUTCOMES_TABLE is set', async () => {
    const dynamo = await startDynamo({ prefix: 'deployed' });
    try {
      const db = dynaliteClient(dynamo.endpoint);
      await new OutcomeStore(db, dynamo.tables.outcomes).record(base('d1', '+14155550009', '2026-03-02T10:00:00Z'));
      db.destroy();
      const res = await runInProcess(['campaign', 'outcomes', 'cmp_cli', '--csv'], {
        CALLSHEET_DATA_DIR: join(dataDir, 'unused'),
        OUTCOMES_TABLE: dynamo.tables.outcomes,
        AWS_ENDPOINT_URL_DYNAMODB: dynamo.endpoint,
        AWS_ACCESS_KEY_ID: LOCAL_CREDENTIALS.accessKeyId,
        AWS_SECRET_ACCESS_KEY: LOCAL_CREDENTIALS.secretAccessKey,
        AWS_REGION: 'us-east-1',
      });
      expect(res.stdout.trimEnd().split('\r\n').slice(1)).toEqual([
        '"+14155550009",,1,"completed",,60,4.5,"2026-03-02T09:59:00.000Z","2026-03-02T10:00:00Z","d1",,,',
      ]);
    } finally {
      await dynamo.close();
    }
  });
});
