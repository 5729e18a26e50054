import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalContacts, startLocalContacts } from '#local/stack/contacts-stack.ts';
import { type LocalDynamo, startDynamo } from '#local/stack/dynamo.ts';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '#local/stack/local-aws.ts';
import { type LocalS3, startS3 } from '#local/stack/s3.ts';
import { TEST_KEY, useEmulator } from '../helpers/emulator.ts';
import { xlsx } from '../helpers/sheets.ts';
import { emulatorContact } from './harness.ts';

const f = useEmulator({ settings: { rateLimitPerMinute: 100 } });
let s3: LocalS3;
let dynamo: LocalDynamo;
let contacts: LocalContacts;
beforeAll(async () => {
  s3 = await startS3(['stack-bucket']);
  dynamo = await startDynamo({ prefix: 'stack' });
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
    clock: f.emu.core.clock,
  });
});
afterAll(async () => {
  await s3.close();
  await dynamo.close();
});

describe('contact sync on the embedded stack', () => {
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
