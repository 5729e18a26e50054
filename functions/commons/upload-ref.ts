import { createHash } from 'node:crypto';
import { partKey } from './campaign-plan.ts';

/** One uploaded object version, as an S3 event names it (key already URL-decoded). */
export interface UploadRef {
  bucket: string;
  key: string;
  /** Present when the bucket is versioned. */
  versionId: string | null;
  eTag: string;
  size: number;
}

export const INCOMING = 'incoming/';

/** Real S3 event keys are URL-encoded with `+` for a space. */
export const decodeEventKey = (key: string): string => decodeURIComponent(key.replace(/\+/g, ' '));

interface S3EventRecord {
  eventSource?: string;
  eventName?: string;
  s3?: {
    bucket?: { name?: string };
    object?: { key?: string; versionId?: string; eTag?: string; size?: number };
  };
}

/** The object-created records of an S3 notification; anything else (S3's test event, deletions) is skipped. */
export function uploadsInS3Event(event: { Records?: S3EventRecord[] }): UploadRef[] {
  return (event.Records ?? [])
    .filter((r) => r.eventSource === 'aws:s3' && r.eventName?.startsWith('ObjectCreated:'))
    .map((r) => ({
      bucket: r.s3?.bucket?.name ?? '',
      key: decodeEventKey(r.s3?.object?.key ?? ''),
      versionId: r.s3?.object?.versionId ?? null,
      eTag: r.s3?.object?.eTag ?? '',
      size: r.s3?.object?.size ?? 0,
    }))
    .filter((u) => u.bucket !== '' && u.key !== '');
}

/**
 * A stable id for one object version: the same for every delivery of its event and every retry, different for
 * a new upload under the same key. Readable for people browsing `reports/`.
 */
export function uploadId(ref: UploadRef): string {
  const digest = createHash('sha256')
    .update(`${ref.bucket}\n${ref.key}\n${ref.versionId ?? `etag:${ref.eTag}`}`)
    .digest('hex')
    .slice(0, 16);
  const base = ref.key.split('/').pop() ?? 'upload';
  const slug = base
    .replace(/\.[^.]*$/, '')
    .replace(/[^A-Za-z0-9]+/g, '-')
    .replace(/^-|-$/g, '')
    .slice(0, 40);
  return `${slug || 'upload'}-${digest}`;
}

/** Step Functions execution names: unique per upload version and part. */
export const executionName = partKey;

/** Where the upload sits under `incoming/`: the first folder names the agent. */
export function agentFolder(key: string): { agent: string | null; relative: string } {
  const relative = key.startsWith(INCOMING) ? key.slice(INCOMING.length) : key;
  const slash = relative.indexOf('/');
  return slash > 0 ? { agent: relative.slice(0, slash), relative } : { agent: null, relative };
}
