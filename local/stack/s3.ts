import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import S3rver from 's3rver';
import { atomicWrites } from './s3-atomic.ts';

export interface S3EventRecord {
  eventVersion: string;
  eventSource: 'aws:s3';
  awsRegion: string;
  eventTime: string;
  eventName: string;
  s3: {
    s3SchemaVersion: string;
    configurationId: string;
    bucket: { name: string; arn: string; ownerIdentity: { principalId: string } };
    object: { key: string; size?: number; eTag?: string; versionId?: string; sequencer: string };
  };
}

export interface S3Event {
  Records: S3EventRecord[];
}

export interface LocalS3 {
  endpoint: string;
  /** Called with each object-created event, already in the shape real S3 sends. */
  onEvent(listener: (event: S3Event) => void): void;
  close(): Promise<void>;
}

/**
 * Real S3 URL-encodes keys in event records, form style (`+` for a space, parentheses and the like as %XX);
 * s3rver sends them raw.
 */
export const encodeEventKey = (key: string): string =>
  key
    .split('/')
    .map((segment) =>
      encodeURIComponent(segment)
        .replace(/%20/g, '+')
        .replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`),
    )
    .join('/');

/** An s3rver event record in the shape real S3 delivers it (the ARN fixed and the key encoded). */
export function realS3Event(raw: { Records: S3EventRecord[] }): S3Event {
  return {
    Records: raw.Records.map((r) => ({
      ...r,
      s3: {
        ...r.s3,
        bucket: { ...r.s3.bucket, arn: `arn:aws:s3:::${r.s3.bucket.name}` },
        object: { ...r.s3.object, key: encodeEventKey(r.s3.object.key) },
      },
    })),
  };
}

/** s3rver on 127.0.0.1 with the given buckets, storing into `keep` or else a temporary directory removed on close. */
export async function startS3(buckets: string[], keep?: string, listenPort = 0): Promise<LocalS3> {
  if (keep) await mkdir(keep, { recursive: true });
  const directory = keep ?? (await mkdtemp(join(tmpdir(), 'callsheet-s3-')));
  const server = new S3rver({
    address: '127.0.0.1',
    port: listenPort,
    silent: true,
    directory,
    configureBuckets: buckets.map((name) => ({ name })),
  });
  atomicWrites(server.store);
  const { port } = await server.run();
  return {
    endpoint: `http://127.0.0.1:${port}`,
    onEvent(listener) {
      server.on('event', (raw: { Records: S3EventRecord[] }) => listener(realS3Event(raw)));
    },
    async close() {
      await server.close();
      if (!keep) await rm(directory, { recursive: true, force: true });
    },
  };
}
