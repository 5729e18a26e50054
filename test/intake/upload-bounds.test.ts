import { createHash } from 'node:crypto';
import { HeadObjectCommand, ListObjectsV2Command, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import type { SQSEvent } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { s3Client } from '#commons/aws/clients.ts';
import { ObjectStore } from '#commons/aws/object-store.ts';
import { silentLog } from '#commons/log.ts';
import { DEFAULT_LIMITS } from '#commons/spreadsheet/limits.ts';
import { uploadId } from '#commons/upload-ref.ts';
import { buildIntakeService } from '#intake/build-service.ts';
import { readIntakeConfig } from '#intake/config.ts';
import { makeIntakeHandler } from '#intake/handler.ts';
import type { IntakeReport } from '#intake/report.ts';
import { localContext } from '#local/stack/lambda-context.ts';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '#local/stack/local-aws.ts';
import { type LocalStack, startLocalStack } from '#local/stack/local-stack.ts';
import { type LocalS3, type S3Event, startS3 } from '#local/stack/s3.ts';
import { type CountingProxy, startCountingProxy } from '../helpers/counting-proxy.ts';
import { TEST_KEY, useEmulator } from '../helpers/emulator.ts';
import { inlineRow, workbookParts } from '../helpers/ooxml.ts';
import { zip } from '../helpers/zip.ts';

/**
 * Uploads intake must refuse without reading them whole, and the report each refusal leaves. Intake reaches s3rver
 * through a counting proxy, so a test can see what it downloaded (and how much of it), not only what it concluded.
 */
const f = useEmulator();
let stack: LocalStack;
let proxy: CountingProxy;

beforeAll(async () => {
  proxy = await startCountingProxy();
  stack = await startLocalStack({
    voiceApi: { url: f.emu.url, apiKey: TEST_KEY },
    lifecycle: {
      name: 'lifecycle',
      definition: { StartAt: 'Done', States: { Done: { Type: 'Succeed' as const } } },
      runOptions: () => ({}),
    },
    settings: { DEFAULT_COUNTRY: 'US', AWS_ENDPOINT_URL_S3: proxy.url },
  });
  proxy.target = stack.s3.endpoint;
});
afterAll(async () => {
  await stack?.close();
  await proxy?.close();
});

const md5 = (b: Buffer) => createHash('md5').update(b).digest('hex');
const OVER = DEFAULT_LIMITS.maxFileBytes + 1;
const TOO_LARGE =
  'The file is 52,428,801 bytes (50 MB); callsheet reads at most 52,428,800 bytes (50 MB) per file, so it was not read. Split it into smaller files and upload each.';

async function report(objects: ObjectStore, bucket: string, key: string, eTag: string) {
  const id = uploadId({ bucket, key, versionId: null, eTag, size: 0 });
  const obj = await objects.get(bucket, `reports/${id}/report.json`);
  if (!obj) throw new Error(`no report for ${key}`);
  return JSON.parse(obj.bytes.toString('utf8')) as IntakeReport;
}

async function keys(client: S3Client, bucket: string, prefix: string): Promise<string[]> {
  const out = await client.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix }));
  return (out.Contents ?? []).map((o) => o.Key as string).sort();
}

const downloads = (p: CountingProxy, key: string) =>
  p.requests.filter((r) => r.method === 'GET' && r.path.endsWith(key));

describe('what intake reads of an upload', () => {
  it('refuses a file over the limit by the size in its event, downloading none of it, and reports it', async () => {
    const body = Buffer.alloc(OVER, 'a');
    const key = 'incoming/bounds-agent/huge.csv';
    await stack.s3Client.send(new PutObjectCommand({ Bucket: stack.bucket, Key: key, Body: body }));
    await stack.intakeQueue.idle();

    const r = await report(stack.objects, stack.bucket, key, md5(body));
    expect(r).toMatchObject({
      status: 'rejected',
      error: { code: 'too_large', message: TOO_LARGE },
      upload: { key, size: OVER },
      original: `s3://${stack.bucket}/rejected/bounds-agent/${r.uploadId}/huge.csv`,
    });
    expect(downloads(proxy, key)).toEqual([]);
    const moved = await stack.s3Client.send(
      new HeadObjectCommand({ Bucket: stack.bucket, Key: `rejected/bounds-agent/${r.uploadId}/huge.csv` }),
    );
    expect(moved).toMatchObject({ ContentLength: OVER, ETag: `"${md5(body)}"` });
    expect(await keys(stack.s3Client, stack.bucket, 'incoming/bounds-agent/')).toEqual([]);
    expect(stack.intakeQueue.deadLetters).toEqual([]);
  });

  it('reads a CSV as it streams, stopping at a cell too long, and refuses hostile sheets with a report', async () => {
    const agent = await f.api.agents.create({ name: 'Bounds' });
    // A cell past Excel's limit near the top of a 16 MB file: the read stops there, the rest is never fetched.
    const rows = Array.from({ length: 600_000 }, (_, i) => `+1415${String(i).padStart(7, '0')},Contact ${i}`);
    const csv = Buffer.from(`Phone Number,Name\n+14155550100,${'x'.repeat(40_000)}\n${rows.join('\n')}\n`);
    const longShared = zip(
      workbookParts({
        sheets: [{ name: 'Contacts', data: `${inlineRow(1, ['Phone Number', 'Name'])}${sharedRow(2)}` }],
        sst: ['<t>+14155550101</t>', `<t>${'y'.repeat(33_000)}</t>`],
      }),
    );
    const cases: [string, Buffer, string][] = [
      ['long cell.csv', csv, 'Cell B2 of the CSV file holds more than 32,767 characters'],
      ['long shared.xlsx', longShared, 'Cell B2 of the sheet "Contacts" holds more than 32,767 characters'],
    ];
    for (const [name, body, message] of cases) {
      const key = `incoming/${agent.id}/${name}`;
      await stack.s3Client.send(new PutObjectCommand({ Bucket: stack.bucket, Key: key, Body: body }));
      await stack.intakeQueue.idle();
      const r = await report(stack.objects, stack.bucket, key, md5(body));
      expect(r, name).toMatchObject({ status: 'rejected', error: { code: 'cell_too_long' } });
      expect(r.error?.message, name).toContain(message);
      expect(await keys(stack.s3Client, stack.bucket, `rejected/${agent.id}/${r.uploadId}/`), name).toEqual([
        `rejected/${agent.id}/${r.uploadId}/${name}`,
      ]);
      expect(downloads(proxy, key), name).toHaveLength(1);
    }
    const [csvRead] = downloads(proxy, `incoming/${agent.id}/long cell.csv`);
    expect(csvRead?.bytes).toBeLessThan(csv.length / 3);
    expect(stack.intakeQueue.deadLetters).toEqual([]);
  });
});

describe('the intake handler', () => {
  it('drops a message that is not an S3 notification instead of retrying it into the dead-letter queue', async () => {
    const handler = makeIntakeHandler(await buildIntakeService(readIntakeConfig(stack.env)), silentLog);
    const bodies = ['not json', 'null', '42', '"text"', '{}', '{"Records":[{"eventSource":"aws:s3"}]}'];
    const event = {
      Records: bodies.map((body, i) => ({ messageId: `m${i}`, body })),
    } as unknown as SQSEvent;
    expect(await handler(event, localContext('intake'))).toEqual({ batchItemFailures: [] });
  });
});

const sharedRow = (r: number) => `<row r="${r}"><c r="A${r}" t="s"><v>0</v></c><c r="B${r}" t="s"><v>1</v></c></row>`;

describe('an event that does not say the size', () => {
  let side: LocalS3;
  let sideProxy: CountingProxy;
  let client: S3Client;
  const bucket = 'side-uploads';

  beforeAll(async () => {
    // A bucket of its own, which raises no events: the messages below are the only ones its uploads get.
    side = await startS3([bucket]);
    sideProxy = await startCountingProxy(side.endpoint);
    client = s3Client({ region: LOCAL_REGION, endpoints: { s3: side.endpoint }, credentials: LOCAL_CREDENTIALS });
  });
  afterAll(async () => {
    client?.destroy();
    await sideProxy?.close();
    await side?.close();
  });

  const message = (key: string, eTag: string, size?: number): SQSEvent => {
    const record: S3Event['Records'][number] = {
      eventVersion: '2.1',
      eventSource: 'aws:s3',
      awsRegion: LOCAL_REGION,
      eventTime: new Date().toISOString(),
      eventName: 'ObjectCreated:Put',
      s3: {
        s3SchemaVersion: '1.0',
        configurationId: 'uploads',
        bucket: { name: bucket, arn: `arn:aws:s3:::${bucket}`, ownerIdentity: { principalId: 'local' } },
        object: { key, eTag, sequencer: '1', ...(size === undefined ? {} : { size }) },
      },
    };
    return { Records: [{ messageId: key, body: JSON.stringify({ Records: [record] }) }] } as unknown as SQSEvent;
  };

  it('asks S3 for the size before reading, and refuses a file over the limit unread', async () => {
    const handler = makeIntakeHandler(
      await buildIntakeService(readIntakeConfig({ ...stack.env, AWS_ENDPOINT_URL_S3: sideProxy.url })),
      silentLog,
    );
    const body = Buffer.alloc(OVER, 'b');
    const key = 'incoming/bounds-agent/no size.csv';
    await client.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: body }));
    expect(await handler(message(key, md5(body)), localContext('intake'))).toEqual({ batchItemFailures: [] });

    const r = await report(new ObjectStore(client), bucket, key, md5(body));
    expect(r).toMatchObject({
      status: 'rejected',
      error: { code: 'too_large', message: TOO_LARGE },
      upload: { size: OVER },
    });
    expect(sideProxy.requests.filter((q) => q.path.endsWith(key)).map((q) => q.method)).toEqual(
      expect.arrayContaining(['HEAD']),
    );
    expect(downloads(sideProxy, key)).toEqual([]);
    expect(await keys(client, bucket, `rejected/bounds-agent/${r.uploadId}/`)).toEqual([
      `rejected/bounds-agent/${r.uploadId}/no size.csv`,
    ]);
  });

  it('leaves an original too large to copy where it was uploaded, and says so', async () => {
    const handler = makeIntakeHandler(
      await buildIntakeService(readIntakeConfig({ ...stack.env, AWS_ENDPOINT_URL_S3: sideProxy.url })),
      silentLog,
    );
    const body = Buffer.from('Phone Number\n+14155550101\n');
    const key = 'incoming/bounds-agent/six gigabytes.csv';
    await client.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: body }));
    const size = 6 * 1024 ** 3;
    expect(await handler(message(key, md5(body), size), localContext('intake'))).toEqual({ batchItemFailures: [] });
    const r = await report(new ObjectStore(client), bucket, key, md5(body));
    expect(r).toMatchObject({
      status: 'rejected',
      error: { code: 'too_large', message: expect.stringMatching(/^The file is 6,442,450,944 bytes \(6,144 MB\)/) },
      original: `s3://${bucket}/${key}`,
    });
    expect(downloads(sideProxy, key)).toEqual([]);
    expect(await keys(client, bucket, 'incoming/bounds-agent/six')).toEqual([key]);
  });
});
