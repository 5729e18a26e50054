import { crc32 } from 'node:zlib';
import { ListObjectsV2Command, PutObjectCommand } from '@aws-sdk/client-s3';
import type { SQSEvent } from 'aws-lambda';
import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { documentClient } from '#commons/aws/clients.ts';
import { silentLog } from '#commons/log.ts';
import { SuppressionList } from '#commons/suppression-list.ts';
import { uploadId } from '#commons/upload-ref.ts';
import { buildIntakeService } from '#intake/build-service.ts';
import { readIntakeConfig } from '#intake/config.ts';
import { makeIntakeHandler } from '#intake/handler.ts';
import type { IntakeReport } from '#intake/report.ts';
import { UploadStore } from '#intake/upload-store.ts';
import { unlaunchedUploads } from '#local/cli/operator.ts';
import { localContext } from '#local/stack/lambda-context.ts';
import { LOCAL_CREDENTIALS } from '#local/stack/local-aws.ts';
import { type LocalStack, startLocalStack } from '#local/stack/local-stack.ts';
import type { S3Event } from '#local/stack/s3.ts';
import { TEST_KEY, useEmulator } from '../helpers/emulator.ts';
import { inlineRow, workbookParts } from '../helpers/ooxml.ts';
import { recordOnlyLifecycle } from '../helpers/pipeline.ts';
import { contactSheet, phones, xlsx } from '../helpers/sheets.ts';
import { zip } from '../helpers/zip.ts';

const list = (...rows: [string, string][]) =>
  inlineRow(1, ['Phone Number', 'Name']) + rows.map((row, i) => inlineRow(i + 2, row)).join('');

const f = useEmulator();
let stack: LocalStack;
let agentId: string;

beforeAll(async () => {
  stack = await startLocalStack({
    voiceApi: { url: f.emu.url, apiKey: TEST_KEY },
    lifecycle: recordOnlyLifecycle,
    // A failed upload comes back after 50 ms rather than the deployed half hour (real time here).
    realTimeRedeliveryMs: 50,
    // These tests upload the same numbers many times in one simulated hour; caps have their own (outcomes/caps-run).
    settings: { DEFAULT_COUNTRY: 'US', CALL_CAP_PER_DAY: '1000', CALL_CAP_PER_WEEK: '1000' },
  });
});
afterAll(async () => {
  await stack?.close();
});

async function newAgent(name = `Agent ${Math.random().toString(36).slice(2, 8)}`) {
  const agent = await f.api.agents.create({ name });
  agentId = agent.id;
  return agent;
}

async function upload(key: string, body: Buffer, metadata: Record<string, string> = {}) {
  await stack.s3Client.send(new PutObjectCommand({ Bucket: stack.bucket, Key: key, Body: body, Metadata: metadata }));
  await stack.intakeQueue.idle();
}

async function keys(prefix: string): Promise<string[]> {
  const out = await stack.s3Client.send(new ListObjectsV2Command({ Bucket: stack.bucket, Prefix: prefix }));
  return (out.Contents ?? []).map((o) => o.Key as string).sort();
}

async function reportFor(key: string, eTagOf: Buffer): Promise<IntakeReport> {
  const { createHash } = await import('node:crypto');
  const eTag = createHash('md5').update(eTagOf).digest('hex');
  const id = uploadId({ bucket: stack.bucket, key, versionId: null, eTag, size: eTagOf.length });
  const obj = await stack.objects.get(stack.bucket, `reports/${id}/report.json`);
  if (!obj) throw new Error(`no report for ${key} (${id})`);
  return JSON.parse(obj.bytes.toString('utf8')) as IntakeReport;
}

const executionsFor = (id: string) => [...stack.sfn.executions.values()].filter((e) => e.name.startsWith(id));

describe('intake on the local stack (s3rver, dynalite, local Step Functions, emulator)', () => {
  it('launches each part of an upload whose key has spaces and parentheses, reports it, and moves the original', async () => {
    await newAgent();
    const body = await xlsx(contactSheet([...phones(3), '+14155551000', 'not a phone']));
    const key = `incoming/${agentId}/March leads (final).xlsx`;
    await upload(key, body);

    const report = await reportFor(key, body);
    expect(report).toMatchObject({
      status: 'launched',
      error: null,
      agent: { id: agentId },
      rows: { total: 5, valid: 3, rejected: 2 },
      rejected: [
        { row: 5, reason: 'duplicate_phone', input: '+14155551000' },
        { row: 6, reason: 'invalid_phone', input: 'not a phone' },
      ],
      parts: [{ index: 1, rows: 3, timeZone: 'America/Los_Angeles', campaignName: 'March leads (final)' }],
    });
    const id = report.uploadId;
    expect(await keys('incoming/')).toEqual([]);
    expect(await keys(`processed/${agentId}/`)).toEqual([`processed/${agentId}/${id}/March leads (final).xlsx`]);
    const moved = await stack.objects.get(stack.bucket, `processed/${agentId}/${id}/March leads (final).xlsx`);
    expect(moved?.bytes.equals(body)).toBe(true);
    expect(await keys(`reports/${id}/`)).toEqual([`reports/${id}/annotated.xlsx`, `reports/${id}/report.json`]);

    const [execution, ...more] = executionsFor(id);
    expect(more).toEqual([]);
    const plan = JSON.parse(execution?.input ?? '{}').plan;
    expect(plan).toMatchObject({
      uploadId: id,
      agentId,
      part: { index: 1, of: 1, key: `parts/${id}/part-1.xlsx`, rows: 3, country: 'US' },
      campaign: { name: 'March leads (final)', startDateTime: null, retries: 1 },
      window: { rules: null, holidays: [] },
    });
    const part = await stack.objects.get(stack.bucket, plan.part.key);
    const wb = new ExcelJS.Workbook();
    await wb.xlsx.load(part?.bytes as unknown as ArrayBuffer);
    expect(wb.worksheets[0]?.getRow(1).values).toEqual([undefined, 'Phone Number', 'Name', 'Custom Instruction']);
    expect(wb.worksheets[0]?.rowCount).toBe(4);
  });

  it('launches an upload whose start has passed, and says it starts now', async () => {
    await newAgent();
    const body = await xlsx(contactSheet(phones(2, '+1415558')));
    const key = `incoming/${agentId}/late.xlsx`;
    await upload(key, body, { 'start-date-time': '2020-01-06T09:00', 'time-zone': 'America/New_York' });
    const report = await reportFor(key, body);
    expect(report.status).toBe('launched');
    expect(report.notes).toContain(
      'the start date time 2020-01-06T09:00 (America/New_York) has passed: the campaigns start now, each when its calling window opens',
    );
    // A start ahead is no news.
    const ahead = `incoming/${agentId}/ahead.xlsx`;
    const aheadBody = await xlsx(contactSheet(phones(2, '+1415559')));
    const nextWeek = new Date(Date.now() + 7 * 86_400_000).toISOString().slice(0, 16);
    await upload(ahead, aheadBody, { 'start-date-time': nextWeek, 'time-zone': 'America/New_York' });
    const later = await reportFor(ahead, aheadBody);
    expect(later.status).toBe('launched');
    expect(later.notes.filter((n) => n.includes('has passed'))).toEqual([]);
  });

  it('starts nothing twice for duplicate, concurrent and retried deliveries of one S3 event', async () => {
    await newAgent();
    const body = await xlsx(contactSheet(phones(1500, '+1415556')));
    const key = `incoming/${agentId}/big list.xlsx`;
    const seen: S3Event[] = [];
    stack.s3.onEvent((e) => seen.push(e));
    await stack.s3Client.send(new PutObjectCommand({ Bucket: stack.bucket, Key: key, Body: body }));
    // While the queue handles the upload, the same real-shaped record arrives three more times at once.
    const event = seen.find((e) => e.Records[0]?.s3.object.key === `incoming/${agentId}/big+list.xlsx`);
    expect(event).toBeDefined();
    const handler = makeIntakeHandler(await buildIntakeService(readIntakeConfig(stack.env)), silentLog);
    const sqs = (n: number): SQSEvent =>
      ({ Records: [{ messageId: `dup-${n}`, body: JSON.stringify(event) }] }) as unknown as SQSEvent;
    await Promise.all([1, 2, 3].map((n) => handler(sqs(n), localContext('intake'))));
    await stack.intakeQueue.idle();
    // A late redelivery after it finished is answered from memory.
    expect(await handler(sqs(4), localContext('intake'))).toEqual({ batchItemFailures: [] });

    const report = await reportFor(key, body);
    expect(report.parts.map((p) => p.rows)).toEqual([1000, 500]);
    expect(executionsFor(report.uploadId).map((e) => e.name)).toEqual([
      `${report.uploadId}-p1`,
      `${report.uploadId}-p2`,
    ]);
  });

  it('lets exactly one of many concurrent deliveries claim an upload', async () => {
    const db = documentClient({
      region: 'us-east-1',
      endpoints: { dynamodb: stack.dynamo.endpoint },
      credentials: LOCAL_CREDENTIALS,
    });
    const store = new UploadStore(db, stack.dynamo.tables.uploads);
    const ref = { bucket: stack.bucket, key: 'incoming/a/b.xlsx', versionId: null, eTag: 'e', size: 1 };
    const claims = await Promise.all(Array.from({ length: 8 }, () => store.claim('race', ref, 1000, 60_000)));
    expect(claims.filter((c) => c.kind === 'claimed')).toHaveLength(1);
    expect(claims.filter((c) => c.kind === 'busy')).toHaveLength(7);
    // A lease that has run out (a crashed attempt) can be taken over; a finished upload answers done.
    expect(await store.claim('race', ref, 1000 + 60_001, 60_000)).toEqual({ kind: 'claimed', attempts: 2 });
    await store.finish('race', { status: 'rejected', reportKey: 'r', movedTo: null, parts: [] });
    expect(await store.claim('race', ref, 10_000_000, 60_000)).toMatchObject({ kind: 'done' });
  });

  it('rejects a file that is not a spreadsheet with a report that says why, and keeps the original intact', async () => {
    await newAgent();
    const body = Buffer.from('Name,Phone Number\nAnn,+14155550000\n');
    const key = `incoming/${agentId}/renamed.xlsx`;
    await upload(key, body);
    const report = await reportFor(key, body);
    expect(report.status).toBe('rejected');
    expect(report.error).toEqual({
      code: 'unsupported_format',
      message: expect.stringContaining('named .xlsx but holds text, not a spreadsheet. If it is a list'),
    });
    expect(report.annotated).toBeNull();
    const kept = await stack.objects.get(stack.bucket, `rejected/${agentId}/${report.uploadId}/renamed.xlsx`);
    expect(kept?.bytes.equals(body)).toBe(true);
    expect(executionsFor(report.uploadId)).toEqual([]);
  });

  it('gives every hostile or odd file it refuses a report with the reason and moves it out of incoming/, untouched', async () => {
    await newAgent();
    const sheet = list(['+14155550101', 'Ada']);
    const good = workbookParts({ sheets: [{ name: 'Contacts', data: sheet }] });
    const damaged = good.map((p) =>
      p.name === 'xl/worksheets/sheet1.xml'
        ? { ...p, data: Buffer.from(p.data.toString().replace('0101', '0109')), crc32: crc32(p.data) }
        : p,
    );
    const refused: [string, Buffer, string, string, Record<string, string>?][] = [
      ['brochure.xlsx', Buffer.from('%PDF-1.7\n1 0 obj\n'), 'unsupported_format', 'This is a PDF document'],
      [
        'entities.xlsx',
        zip(workbookParts({ sheets: [{ name: 'Contacts', data: sheet }], prolog: '<!DOCTYPE x [<!ENTITY a "b">]>' })),
        'xml_entities',
        'contains XML entity declarations, which callsheet refuses',
      ],
      ['damaged.xlsx', zip(damaged), 'corrupt', 'fails its checksum (CRC-32)'],
      [
        'hidden.xlsx',
        zip(workbookParts({ sheets: [{ name: 'Old', state: 'hidden', data: sheet }] })),
        'no_phone_column',
        '"Old", is hidden',
      ],
      [
        'quote.csv',
        Buffer.from('Phone Number,Name\n+14155550101,"Ada\n+14155550102,Bo\n'),
        'unterminated_quote',
        'opened on line 2',
      ],
      ['tabs.csv', Buffer.from('Telefon\tName\n+14155550101\tAda\n'), 'no_phone_column', 'looks tab-separated'],
      [
        'feb30.xlsx',
        zip(good),
        'invalid_settings',
        'S3 metadata x-amz-meta-start-date-time: "2026-02-30T09:00" is not a real date and time: February 2026 has 28 days',
        { 'start-date-time': '2026-02-30T09:00', 'time-zone': 'America/New_York' },
      ],
    ];
    for (const [name, body, code, reason, metadata] of refused) {
      const key = `incoming/${agentId}/${name}`;
      await upload(key, body, metadata);
      const report = await reportFor(key, body);
      expect(report.status, name).toBe('rejected');
      expect(report.error, name).toEqual({ code, message: expect.stringContaining(reason) });
      const kept = await stack.objects.get(stack.bucket, `rejected/${agentId}/${report.uploadId}/${name}`);
      expect(kept?.bytes.equals(body), name).toBe(true);
      expect(executionsFor(report.uploadId), name).toEqual([]);
    }
    expect(await keys(`incoming/${agentId}/`)).toEqual([]);
  });

  it('rejects an upload outside an agent folder, for an unknown agent, and for an inactive agent', async () => {
    const body = await xlsx(contactSheet(phones(2, '+1415557')));
    await upload('incoming/loose.xlsx', body);
    expect((await reportFor('incoming/loose.xlsx', body)).error?.code).toBe('no_agent');

    await upload('incoming/nobody-here/list.xlsx', body);
    const unknown = await reportFor('incoming/nobody-here/list.xlsx', body);
    expect(unknown.error).toMatchObject({ code: 'unknown_agent', message: expect.stringContaining('nobody-here') });

    const sleepy = await newAgent('Night shift');
    await f.api.agents.toggle(sleepy.id);
    await upload('incoming/Night shift/list.xlsx', body);
    const inactive = await reportFor('incoming/Night shift/list.xlsx', body);
    expect(inactive.error).toMatchObject({ code: 'inactive_agent', message: expect.stringContaining('not active') });
    expect(inactive.rows.valid).toBe(2);
    expect(executionsFor(inactive.uploadId)).toEqual([]);
    // `callsheet status` lists them, with the report's reason, though they have no campaign.
    const db = documentClient({
      region: 'us-east-1',
      endpoints: { dynamodb: stack.dynamo.endpoint },
      credentials: LOCAL_CREDENTIALS,
    });
    // An upload whose intake died after claiming it (its lease ran out unfinished) is listed too.
    const stuck = { bucket: stack.bucket, key: 'incoming/a/stuck.xlsx', versionId: null, eTag: 'e', size: 1 };
    await new UploadStore(db, stack.dynamo.tables.uploads).claim('stuck-upload', stuck, 1000, 60_000);
    const listed = await unlaunchedUploads(db, stack.dynamo.tables.uploads);
    db.destroy();
    expect(listed).toContainEqual({
      uploadId: 'stuck-upload',
      key: 'incoming/a/stuck.xlsx',
      status: 'unfinished',
      reason: expect.stringContaining('intake started it 1 time and did not finish'),
      reportKey: null,
      finishedAt: null,
    });
    // Unfinished first, then the newest.
    expect(listed[0]?.uploadId).toBe('stuck-upload');
    expect(listed).toContainEqual({
      uploadId: unknown.uploadId,
      key: 'incoming/nobody-here/list.xlsx',
      status: 'rejected',
      reason: unknown.error?.message,
      reportKey: `reports/${unknown.uploadId}/report.json`,
      finishedAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
    });
    const times = listed.flatMap((u) => (u.finishedAt ? [u.finishedAt] : []));
    expect(times.length).toBeGreaterThanOrEqual(2);
    expect(times).toEqual([...times].sort().reverse());
    expect(listed.map((u) => u.uploadId)).toContain(inactive.uploadId);
  });

  it('finds the agent by its unique name', async () => {
    const agent = await newAgent('Renewals desk');
    const body = await xlsx(contactSheet(phones(2, '+1415558')));
    await upload('incoming/renewals desk/list.xlsx', body);
    const report = await reportFor('incoming/renewals desk/list.xlsx', body);
    expect(report).toMatchObject({ status: 'launched', agent: { id: agent.id, name: 'Renewals desk' } });
  });

  it('reports the same content uploaded again under a new key instead of dialling it, unless the user opts in', async () => {
    await newAgent();
    const body = await xlsx(contactSheet(phones(2, '+1415559')));
    await upload(`incoming/${agentId}/first.xlsx`, body);
    const first = await reportFor(`incoming/${agentId}/first.xlsx`, body);
    expect(first.status).toBe('launched');

    await upload(`incoming/${agentId}/again.xlsx`, body);
    const again = await reportFor(`incoming/${agentId}/again.xlsx`, body);
    expect(again).toMatchObject({
      status: 'repeated',
      error: { code: 'repeated_upload' },
      earlierUpload: { uploadId: first.uploadId, key: `incoming/${agentId}/first.xlsx` },
    });
    expect(again.error?.message).toMatch(/repeat upload: yes/);
    expect(executionsFor(again.uploadId)).toEqual([]);

    await upload(`incoming/${agentId}/on purpose.xlsx`, body, { 'repeat-upload': 'yes' });
    const onPurpose = await reportFor(`incoming/${agentId}/on purpose.xlsx`, body);
    expect(onPurpose.status).toBe('launched');
    expect(executionsFor(onPurpose.uploadId)).toHaveLength(1);
  });

  it('removes numbers on the suppression list and reads settings from object metadata', async () => {
    await newAgent();
    const numbers = phones(4, '+1415560');
    const list = new SuppressionList(
      documentClient({
        region: 'us-east-1',
        endpoints: { dynamodb: stack.dynamo.endpoint },
        credentials: LOCAL_CREDENTIALS,
      }),
      stack.dynamo.tables.suppression,
    );
    await list.add([numbers[1] as string, numbers[3] as string], 'opted out', 'test');
    const body = await xlsx(contactSheet(numbers));
    await upload(`incoming/${agentId}/suppressed.xlsx`, body, { 'campaign-name': 'Quiet list', retries: '3' });
    const report = await reportFor(`incoming/${agentId}/suppressed.xlsx`, body);
    expect(report.rejected).toEqual([
      { row: 3, reason: 'suppressed', input: numbers[1] },
      { row: 5, reason: 'suppressed', input: numbers[3] },
    ]);
    expect(report.settings).toEqual({ campaignName: 'Quiet list', retries: 3 });
    const plan = JSON.parse(executionsFor(report.uploadId)[0]?.input ?? '{}').plan;
    expect(plan.campaign).toMatchObject({ name: 'Quiet list', retries: 3 });
  });

  it('a bad setting rejects the file with the setting named', async () => {
    await newAgent();
    const body = await xlsx(contactSheet(phones(1, '+1415561')));
    await upload(`incoming/${agentId}/late.xlsx`, body, { 'start-date-time': '2026-04-01T09:00:00' });
    const report = await reportFor(`incoming/${agentId}/late.xlsx`, body);
    expect(report.error).toEqual({
      code: 'invalid_settings',
      message:
        'S3 metadata x-amz-meta-start-date-time: a start date-time is a local time, so it needs a time zone too: S3 metadata x-amz-meta-time-zone, e.g. America/New_York',
    });
  });

  it('finishes an upload after a failed attempt, starting each part once', async () => {
    await newAgent();
    const body = await xlsx(contactSheet(phones(2, '+1415562')));
    await f.admin.fault({ path: '/agents', status: 503, count: 6 });
    const key = `incoming/${agentId}/flaky.xlsx`;
    await stack.s3Client.send(new PutObjectCommand({ Bucket: stack.bucket, Key: key, Body: body }));
    await stack.intakeQueue.idle();
    const report = await reportFor(key, body);
    expect(report.status).toBe('launched');
    expect(executionsFor(report.uploadId)).toHaveLength(1);
    expect(await keys('incoming/')).toEqual([]);
    // The first delivery gave up on the API's 503s; the redelivery took the released upload over.
    const db = documentClient({
      region: 'us-east-1',
      endpoints: { dynamodb: stack.dynamo.endpoint },
      credentials: LOCAL_CREDENTIALS,
    });
    expect(await new UploadStore(db, stack.dynamo.tables.uploads).get(report.uploadId)).toMatchObject({
      state: 'done',
      attempts: 2,
    });
  });
});
