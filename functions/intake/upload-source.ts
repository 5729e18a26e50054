import { createHash } from 'node:crypto';
import type { ObjectStore, ObjectVersion } from '#commons/aws/object-store.ts';
import type { ByteSource } from '#commons/spreadsheet/byte-source.ts';

/**
 * An upload in S3 as the sheet readers take it: each read is a GET of exactly the version found, so a CSV streams
 * past and is never held whole. The content's SHA-256 is learnt on the way, so telling a repeated upload costs no
 * second download.
 */
export class S3Upload implements ByteSource {
  private digest: string | null = null;

  constructor(
    private readonly objects: ObjectStore,
    private readonly bucket: string,
    private readonly key: string,
    private readonly version: ObjectVersion,
    readonly size: number,
  ) {}

  async *chunks(): AsyncIterable<Uint8Array> {
    const body = await this.objects.stream(this.bucket, this.key, this.version);
    // Gone between the look and the read: tried again, when the look will find where it went.
    if (!body) throw new Error(`s3://${this.bucket}/${this.key} was moved or replaced while it was being read`);
    const hash = createHash('sha256');
    for await (const chunk of body) {
      hash.update(chunk);
      yield chunk;
    }
    this.digest ??= hash.digest('hex');
  }

  /** The content's SHA-256: from a read that went to the end, else from one made now. */
  async sha256(): Promise<string> {
    if (this.digest === null) for await (const chunk of this.chunks()) void chunk;
    return this.digest as string;
  }
}
