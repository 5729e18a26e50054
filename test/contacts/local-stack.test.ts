import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { GetObjectCommand, ListObjectsV2Command, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalContacts, startLocalContacts } from '#local/stack/contacts-stack.ts';
import { type LocalDynamo, startDynamo } from '#local/stack/dynamo.ts';
import { LocalEventBus } from '#local/stack/event-bus.ts';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '#local/stack/local-aws.ts';
import { type LocalS3, startS3 } from '#local/stack/s3.ts';
import { TEST_KEY, useEmulator } from '../helpers/emulator.ts';
import { xlsx } from '../helpers/sheets.ts';
import { emulatorContact } from './harness.ts';

const f = useEmulator({ settings: { rateLimitPerMinute: 100 } });
let s3: LocalS3;
let dynamo: LocalDynamo;
let contacts: LocalContacts;
let bus: LocalEventBus;
let busEndpoint: string;
beforeAll(async () => {
  s3 = await startS3(['stack-bucket']);
  dynamo = await startDynamo({ prefix: 'stack' });
  bus = new LocalEventBus();
  busEndpoint = await bus.listen();
  contacts = await startLocalContacts({
    env: {
      AWS_REGION: LOCAL_REGION,
      AWS_ACCESS_KEY_ID: LOCAL_CREDENTIALS.accessKeyId,
      AWS_SECRET_ACCESS_KEY: LOCAL_CREDENTIALS.secretAccessKey,
      AWS_ENDPOINT_URL_S3: s3.endpoint,
      AWS_ENDPOINT_URL_DYNAMODB: dynamo.endpoint,
      VOICE_API_URL: f.emu.url,
      VOICE_API_KEY: TEST_KEY,
    },
    tables: dynamo.tables,
    s3,
    bus,
    clock: f.emu.core.clock,
  });
});
afterAll(async () => {
  await bus.close();
  await s3.close();
  await dynamo.close();
});

const s3client = () =>
  new S3Client({
    region: LOCAL_REGION,
    endpoint: s3.endpoint,
    credentials: LOCAL_CREDENTIALS,
    forcePathStyle: true,
    requestChecksumCalculation: 'WHEN_REQUIRED',
  });

describe('contact sync on the embedded stack', () => {
  it('reads JSON lines dropped under contacts/ and reports each line it rejected', async () => {
    const client = s3client();
    const lines = [
      JSON.stringify({ event_id: 'jl-1', phone_number: '+14155572001', name: 'Lines', tags: ['a'], note: 'one' }),
      'not an event',
      JSON.stringify({ event_id: 'jl-2', phone_number: '+14155572001', tags: ['b', 'a'], note: 'two' }),
    ].join('\n');
    await client.send(new PutObjectCommand({ Bucket: 'stack-bucket', Key: 'contacts/crm.jsonl', Body: lines }));
    await contacts.settle();
    expect(await emulatorContact(f, '+14155572001')).toMatchObject({ tags: ['a', 'b'], notes: ['one', 'two'] });
    // The report, under reports/contacts/, names the line and why.
    const listed = await client.send(new ListObjectsV2Command({ Bucket: 'stack-bucket', Prefix: 'reports/contacts/' }));
    const reports = await Promise.all(
      (listed.Contents ?? []).map(async (o) => {
        const got = await client.send(new GetObjectCommand({ Bucket: 'stack-bucket', Key: o.Key }));
        return JSON.parse((await got.Body?.transformToString()) ?? '{}');
      }),
    );
    const report = reports.find((r) => r.upload?.key === 'contacts/crm.jsonl');
    client.destroy();
    expect(report).toMatchObject({ status: 'queued', format: 'jsonl', rows: { total: 3, accepted: 2, rejected: 1 } });
    expect(report.rejected).toEqual([{ row: 2, reason: expect.stringMatching(/^not JSON/) }]);
  }, 120_000);

  it("takes Contact Upserted events on callsheet's bus, as the deployed rule does, and answers each bad entry", async () => {
    const events = new EventBridgeClient({
      region: LOCAL_REGION,
      endpoint: busEndpoint,
      credentials: LOCAL_CREDENTIALS,
    });
    const detail = (id: string, note: string) => JSON.stringify({ event_id: id, phone_number: '+14155572002', note });
    const out = await events.send(
      new PutEventsCommand({
        Entries: [
          { EventBusName: 'callsheet', Source: 'crm', DetailType: 'Contact Upserted', Detail: detail('bus-1', 'kept') },
          // The default bus has no such rule: accepted, and goes nowhere (as in AWS).
          { Source: 'crm', DetailType: 'Contact Upserted', Detail: detail('bus-2', 'nowhere') },
          { EventBusName: 'callsheet', Source: 'crm', DetailType: 'Something Else', Detail: detail('bus-3', 'other') },
          { EventBusName: 'nobus', Source: 'crm', DetailType: 'Contact Upserted', Detail: detail('bus-4', 'x') },
          { EventBusName: 'callsheet', Source: 'crm', DetailType: 'Contact Upserted', Detail: '[1]' },
        ],
      }),
    );
    events.destroy();
    expect(out.FailedEntryCount).toBe(2);
    expect(out.Entries?.map((e) => e.ErrorCode ?? 'ok')).toEqual([
      'ok',
      'ok',
      'ok',
      'NotFoundException',
      'MalformedDetail',
    ]);
    await contacts.settle();
    expect((await emulatorContact(f, '+14155572002'))?.notes).toEqual(['kept']);
    expect(contacts.queue.deadLetters).toEqual([]);
  }, 60_000);

  it('a sheet dropped under contacts/ and an event sent to the queue reach the API within the plan', async () => {
    const client = new S3Client({
      region: LOCAL_REGION,
      endpoint: s3.endpoint,
      credentials: LOCAL_CREDENTIALS,
      forcePathStyle: true,
      requestChecksumCalculation: 'WHEN_REQUIRED',
    });
    const rows: (string | number | null)[][] = [['Phone Number', 'Name']];
    for (let i = 0; i < 250; i++) rows.push([`+1415557${String(1000 + i)}`, `Row ${i}`]);
    await client.send(
      new PutObjectCommand({ Bucket: 'stack-bucket', Key: 'contacts/crm.xlsx', Body: await xlsx(rows) }),
    );
    contacts.send({ event_id: 'stack-1', phone_number: '+14155571000', note: 'from the bus' });
    await contacts.settle();
    client.destroy();
    expect(await emulatorContact(f, '+14155571249')).toMatchObject({ contact_name: 'Row 249' });
    expect(await emulatorContact(f, '+14155571000')).toMatchObject({ contact_name: 'Row 0', notes: ['from the bus'] });
    expect(contacts.queue.deadLetters).toEqual([]);
    const statuses = (await f.admin.requests<{ path: string; status: number }[]>())
      .filter((r) => r.path.endsWith('/contacts/bulk'))
      .map((r) => r.status);
    expect(statuses.every((s) => s === 200)).toBe(true);
    expect(statuses.length).toBeLessThanOrEqual(4);
  }, 120_000);
});
