import {
  CopyObjectCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  PutObjectCommand,
  type S3Client,
} from '@aws-sdk/client-s3';

export interface StoredObject {
  bytes: Buffer;
  eTag: string;
  versionId: string | null;
  /** User metadata (`x-amz-meta-*`), keys lower-case without the prefix. */
  metadata: Record<string, string>;
}

export interface ObjectVersion {
  versionId?: string | null;
  /** Refuse to act unless the object still has this ETag (unversioned buckets). */
  eTag?: string;
}

export interface ObjectHead {
  eTag: string;
  versionId: string | null;
  metadata: Record<string, string>;
  /** Bytes. */
  size: number;
}

const unquote = (eTag: string | undefined) => (eTag ?? '').replace(/^"|"$/g, '');

/** Exactly this version: by id in a versioned bucket, else by ETag. */
const versionParams = (version: ObjectVersion) => ({
  ...(version.versionId ? { VersionId: version.versionId } : {}),
  ...(version.eTag && !version.versionId ? { IfMatch: `"${version.eTag}"` } : {}),
});

const isMissing = (err: unknown) => {
  const e = err as { name?: string; $metadata?: { httpStatusCode?: number } };
  return e.name === 'NoSuchKey' || e.name === 'NotFound' || e.$metadata?.httpStatusCode === 404;
};

/** The S3 operations callsheet needs, with ETags unquoted and "not there" as null rather than an exception. */
export class ObjectStore {
  constructor(private readonly s3: S3Client) {}

  async get(bucket: string, key: string, version: ObjectVersion = {}): Promise<StoredObject | null> {
    try {
      const out = await this.s3.send(new GetObjectCommand({ Bucket: bucket, Key: key, ...versionParams(version) }));
      const bytes = Buffer.from((await out.Body?.transformToByteArray()) ?? []);
      return { bytes, eTag: unquote(out.ETag), versionId: out.VersionId ?? null, metadata: out.Metadata ?? {} };
    } catch (err) {
      const status = (err as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
      if (isMissing(err) || status === 412) return null;
      throw err;
    }
  }

  /** What `get` answers but the bytes, and the size: null when not there (or no longer that version or ETag). */
  async head(bucket: string, key: string, version: ObjectVersion = {}): Promise<ObjectHead | null> {
    try {
      const out = await this.s3.send(new HeadObjectCommand({ Bucket: bucket, Key: key, ...versionParams(version) }));
      return {
        eTag: unquote(out.ETag),
        versionId: out.VersionId ?? null,
        metadata: out.Metadata ?? {},
        size: out.ContentLength ?? 0,
      };
    } catch (err) {
      const status = (err as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
      if (isMissing(err) || status === 412) return null;
      throw err;
    }
  }

  /**
   * The bytes as they arrive, for a reader that need not hold them all; null when not there. Leaving the loop early
   * closes the connection.
   */
  async stream(bucket: string, key: string, version: ObjectVersion = {}): Promise<AsyncIterable<Uint8Array> | null> {
    try {
      const out = await this.s3.send(new GetObjectCommand({ Bucket: bucket, Key: key, ...versionParams(version) }));
      return (out.Body as AsyncIterable<Uint8Array> | undefined) ?? (async function* () {})();
    } catch (err) {
      const status = (err as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
      if (isMissing(err) || status === 412) return null;
      throw err;
    }
  }

  async put(
    bucket: string,
    key: string,
    body: Buffer | string,
    contentType: string,
    metadata: Record<string, string> = {},
  ): Promise<{ eTag: string; versionId: string | null }> {
    const out = await this.s3.send(
      new PutObjectCommand({ Bucket: bucket, Key: key, Body: body, ContentType: contentType, Metadata: metadata }),
    );
    return { eTag: unquote(out.ETag), versionId: out.VersionId ?? null };
  }

  /** Server-side copy of one exact version, user metadata included. */
  async copy(bucket: string, from: string, to: string, version: ObjectVersion = {}): Promise<void> {
    const source = `${bucket}/${from.split('/').map(encodeURIComponent).join('/')}`;
    await this.s3.send(
      new CopyObjectCommand({
        Bucket: bucket,
        Key: to,
        CopySource: version.versionId ? `${source}?versionId=${encodeURIComponent(version.versionId)}` : source,
        ...(version.eTag && !version.versionId ? { CopySourceIfMatch: `"${version.eTag}"` } : {}),
        MetadataDirective: 'COPY',
      }),
    );
  }

  /**
   * Deletes exactly the version given. In an unversioned bucket the object is deleted only if it still has the
   * ETag given, so a newer upload under the same key is never removed.
   */
  async deleteVersion(bucket: string, key: string, version: ObjectVersion): Promise<boolean> {
    if (!version.versionId) {
      const now = await this.head(bucket, key);
      if (!now || (version.eTag && now.eTag !== version.eTag)) return false;
    }
    await this.s3.send(
      new DeleteObjectCommand({
        Bucket: bucket,
        Key: key,
        ...(version.versionId ? { VersionId: version.versionId } : {}),
      }),
    );
    return true;
  }
}
