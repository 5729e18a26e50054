import { GetObjectCommand, ListObjectsV2Command, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONTACT_UPSERTED, checkContactEvent } from '#contacts/contact-event.ts';
import { readContactSheet } from '#contacts/contact-sheet.ts';
import type { ContactState } from '#contacts/contact-state.ts';
import type { ContactSheetReport } from '#contacts/sheet-intake.ts';
import { CAMPAIGN_TAG, CampaignContactEvents } from '#intake/campaign-contacts.ts';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '#local/stack/local-aws.ts';
import { type LocalS3, startS3 } from '#local/stack/s3.ts';
import { useEmulator } from '../helpers/emulator.ts';
import { xls, xlsx } from '../helpers/sheets.ts';
import { emulatorContact, useSyncRig } from './harness.ts';

const BUCKET = 'contacts-test';
let s3: LocalS3;
let client: S3Client;
beforeAll(async () => {
  s3 = await startS3([BUCKET]);
  client = new S3Client({
    region: LOCAL_REGION,
    endpoint: s3.endpoint,
    credentials: LOCAL_CREDENTIALS,
    forcePathStyle: true,
    requestChecksumCalculation: 'WHEN_REQUIRED',
  });
});
afterAll(async () => {
  client.destroy();
  await s3.close();
});

const f = useEmulator();
const rig = useSyncRig(f, () => ({ AWS_ENDPOINT_URL_S3: s3.endpoint, DEFAULT_COUNTRY: 'US' }));

/** Uploads a sheet and delivers its S3 notification to the contact queue, as the bucket notification does. */
async function drop(key: string, body: Buffer, size = body.length): Promise<void> {
  const put = await client.send(new PutObjectCommand({ Bucket: BUCKET, Key: key, Body: body }));
  rig.queue.send(
    JSON.stringify({
      Records: [
        {
          eventSource: 'aws:s3',
          eventName: 'ObjectCreated:Put',
          s3: { bucket: { name: BUCKET }, object: { key, eTag: put.ETag?.replace(/"/g, ''), size } },
        },
      ],
    }),
  );
}

/** The first contact-sheet report whose key starts with `reports/contacts/<prefix>`. */
async function report(prefix = ''): Promise<ContactSheetReport> {
  const { Contents } = await client.send(
    new ListObjectsV2Command({ Bucket: BUCKET, Prefix: `reports/contacts/${prefix}` }),
  );
  const key = Contents?.[0]?.Key as string;
  const out = await client.send(new GetObjectCommand({ Bucket: BUCKET, Key: key }));
  return JSON.parse(await (out.Body as { transformToString(): Promise<string> }).transformToString());
}

describe('contact sheets under contacts/', () => {
  it('each row becomes an event; bad rows are reported with the reason; the same file twice changes nothing', async () => {
    const sheet = await xlsx([
      ['Phone Number', 'Name', 'Email', 'Lead Status', 'Tags', 'Note'],
      ['+14155550141', 'Ana', 'ana@example.com', 'Hot Lead', 'vip; spring', 'called back'],
      ['(415) 555-0142', 'Bo', '', '', 'spring', ''],
      ['12', 'Nobody', '', '', '', ''],
      ['+14155550143', 'Cy', 'not-mail', '', '', ''],
      [],
    ]);
    await drop('contacts/crm-export.xlsx', sheet);
    await rig.settle();
    const r = await report();
    expect(r.status).toBe('queued');
    expect(r.rows).toEqual({ total: 4, accepted: 2, rejected: 2 });
    expect(r.rejected).toEqual([
      { row: 4, reason: expect.stringContaining('phone_number') },
      { row: 5, reason: 'email: not a valid email address' },
    ]);
    const ana = await emulatorContact(f, '+14155550141');
    expect(ana).toMatchObject({
      contact_name: 'Ana',
      lead_status: 'hot_lead',
      tags: ['vip', 'spring'],
      notes: ['called back'],
    });
    expect((await emulatorContact(f, '+14155550142'))?.contact_name).toBe('Bo');
    // The same bytes again under another name: every row was seen, no note is appended again.
    await drop('contacts/crm-export-copy.xlsx', sheet);
    await rig.settle();
    expect((await emulatorContact(f, '+14155550141'))?.notes).toEqual(['called back']);
  });

  it('tells a row without its country code to set a default country, as a sheet row has no "country"', async () => {
    const csv = Buffer.from('Phone Number,Name\n4155552009,Ann\n+14155552010,Bo\n');
    const sheet = await readContactSheet(csv, 'crm.csv');
    expect(sheet.rows).toEqual({ total: 2, accepted: 1, rejected: 1 });
    expect(sheet.rejected).toEqual([
      {
        row: 2,
        reason:
          'phone_number: "4155552009" is not a valid phone number (write it as +<country code><number>, or set a ' +
          'default country: --country US for `callsheet contacts push`, DEFAULT_COUNTRY where deployed)',
      },
    ]);
    // With a default country the same row is read as a US number.
    expect((await readContactSheet(csv, 'crm.csv', 'US')).rows.accepted).toBe(2);
  });

  it('reads .xls and says why an unreadable sheet was rejected', async () => {
    await drop(
      'contacts/old.xls',
      xls([
        ['phone number', 'name'],
        ['+14155550144', 'Dee'],
      ]),
    );
    await rig.settle();
    expect(((await rig.store.read('+14155550144')) as ContactState).fields.contact_name).toBe('Dee');
    await drop('contacts/nothing.csv', Buffer.from('Name,City\nAna,Pune\n'));
    await rig.settle();
    expect(await report('nothing')).toMatchObject({ status: 'rejected', error: { code: 'no_phone_column' } });
  });

  it('refuses a sheet larger than callsheet reads from the size its event gives, before reading it', async () => {
    // The object itself is a small, valid sheet: only the size check can refuse it.
    const sheet = await xlsx([['Phone Number'], ['+14155550145']]);
    await drop('contacts/huge.xlsx', sheet, 60 * 1024 * 1024);
    await rig.settle();
    const rejected = await report('huge');
    expect(rejected).toMatchObject({ status: 'rejected', error: { code: 'too_large' } });
    expect(rejected.error?.message).toContain('Split it into smaller files');
    expect(await rig.store.read('+14155550145')).toBeNull();
  });
});

describe('EventBridge: Contact Upserted', () => {
  it('an event from the bus (rule → queue) is read from its envelope; another detail-type is rejected', async () => {
    const envelope = (detailType: string, detail: unknown) => ({
      version: '0',
      id: 'eb-1',
      'detail-type': detailType,
      source: 'crm.example',
      detail,
    });
    rig.send(
      envelope(CONTACT_UPSERTED, { event_id: 'crm-9', phone_number: '+14155550145', name: 'Eve', tags: ['crm'] }),
    );
    rig.send(envelope('Contact Deleted', { event_id: 'crm-10', phone_number: '+14155550145' }));
    await rig.settle();
    expect((await emulatorContact(f, '+14155550145'))?.contact_name).toBe('Eve');
    expect(rig.queue.deadLetters.map((d) => d.reason)).toEqual([
      'invalid event: detail-type "Contact Deleted" is not "Contact Upserted"',
    ]);
  });

  it('the schema checks types, sizes and unknown fields, and numbers are normalized as intake does', () => {
    expect(checkContactEvent({ event_id: 'a', phone_number: '020 7946 0018', country: 'GB' })).toMatchObject({
      ok: true,
      change: { phone: '+442079460018' },
    });
    expect(checkContactEvent({ event_id: 'a', phone_number: '4155550146' }, 'US')).toMatchObject({ ok: true });
    for (const [bad, reason] of [
      [{ phone_number: '+14155550146' }, "must have required property 'event_id'"],
      [{ event_id: 'a', phone_number: '+14155550146', tags: 'vip' }, 'tags must be array,null'],
      [{ event_id: 'a', phone_number: '+14155550146', name: 7 }, 'name must be string,null'],
      [
        { event_id: 'a', phone_number: '+14155550146', note: 'x'.repeat(5001) },
        'note must NOT have more than 5000 characters',
      ],
      [{ event_id: 'a', phone_number: '+1415' }, 'phone_number'],
    ] as const) {
      const check = checkContactEvent(bad);
      expect(check.ok).toBe(false);
      expect(check.ok ? '' : check.reason).toContain(reason);
    }
  });
});

describe("intake's hook: a launched campaign sheet's accepted rows", () => {
  it('upsert name, custom instruction and the campaign tag, once per upload', async () => {
    const hook = new CampaignContactEvents(rig.queue.events);
    const rows = [
      { row: 2, phone: '+14155550151', country: 'US', name: 'Gia', customInstruction: 'Ask about renewal' },
      { row: 3, phone: '+14155550152', country: 'US', name: null, customInstruction: null },
    ];
    await hook.upsertAccepted('spring-abc', rows);
    await hook.upsertAccepted('spring-abc', rows); // the upload redelivered
    await rig.settle();
    expect(await emulatorContact(f, '+14155550151')).toMatchObject({
      contact_name: 'Gia',
      custom_instruction: 'Ask about renewal',
      tags: [CAMPAIGN_TAG],
    });
    expect(((await rig.store.read('+14155550152')) as ContactState).tags).toEqual([CAMPAIGN_TAG]);
    expect(rig.queue.deadLetters).toEqual([]);
  });
});
