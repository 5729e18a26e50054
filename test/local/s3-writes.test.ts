import { ListObjectsV2Command, type S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { s3Client } from '#commons/aws/clients.ts';
import { ObjectStore } from '#commons/aws/object-store.ts';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '#local/stack/local-aws.ts';
import { type LocalS3, startS3 } from '#local/stack/s3.ts';

describe('the local S3 stand-in', () => {
  let s3: LocalS3;
  let client: S3Client;
  let objects: ObjectStore;
  beforeAll(async () => {
    s3 = await startS3(['b']);
    client = s3Client({ region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS, endpoints: { s3: s3.endpoint } });
    objects = new ObjectStore(client);
  });
  afterAll(() => s3.close());

  it('replaces an object whole, as S3 does: a read racing writes of longer and shorter bodies sees one of them', async () => {
    // Bodies of different lengths, so a write over a longer one in place leaves the longer one's tail behind.
    const bodies = [40_000, 700, 9_000, 120, 25_000].map((n, i) => JSON.stringify({ i, pad: 'x'.repeat(n) }));
    await objects.put('b', 'report.json', bodies[0] as string, 'application/json');
    const seen: string[] = [];
    for (let round = 0; round < 20; round++) {
      const writes = bodies.map((b, i) =>
        objects.put('b', 'report.json', b, 'application/json', { writer: String(i) }),
      );
      const reads = Array.from({ length: 10 }, async () => {
        const got = await objects.get('b', 'report.json');
        seen.push(got?.bytes.toString() ?? '(missing)');
      });
      await Promise.all([...writes, ...reads]);
      // Once the writes are answered, the object is one whole body and its metadata says which.
      const last = await objects.get('b', 'report.json');
      expect(bodies).toContain(last?.bytes.toString());
      expect(last?.bytes.toString()).toBe(bodies[Number(last?.metadata.writer)]);
    }
    expect(seen.filter((s) => !bodies.includes(s)).map((s) => s.slice(0, 40))).toEqual([]);
    // No side file of a write shows in a listing.
    const listed = await client.send(new ListObjectsV2Command({ Bucket: 'b' }));
    expect(listed.Contents?.map((o) => o.Key)).toEqual(['report.json']);
  });
});
