import { createHash, randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { S3rverObject, S3rverStore } from 's3rver';

/**
 * Real S3 replaces an object whole: a GET sees the old body or the new one. s3rver truncates the file in place and
 * answers a PUT before a buffered body is even flushed, so a read racing a write (a report written by the guard while
 * a stopped workflow's last step writes it too) could see half of one, or one body's head on another's tail.
 * Each body and its metadata are written to a file of their own and renamed over the old one, and reads and writes
 * of one key take turns.
 */
export function atomicWrites(store: S3rverStore): void {
  const replace = async (path: string, write: (temp: string) => Promise<void>) => {
    await mkdir(dirname(path), { recursive: true });
    // Not ending in s3rver's `._S3rver_object`, so a listing never shows it.
    const temp = `${path}.${randomBytes(6).toString('hex')}.writing`;
    try {
      await write(temp);
      await rename(temp, path);
    } catch (err) {
      await rm(temp, { force: true });
      throw err;
    }
  };
  const put = async (object: S3rverObject) => {
    const md5 = createHash('md5');
    let size = 0;
    await replace(store.getResourcePath(object.bucket, object.key, 'object'), async (temp) => {
      if (Buffer.isBuffer(object.content)) {
        md5.update(object.content);
        size = object.content.length;
        await writeFile(temp, object.content);
      } else {
        const count = new Transform({
          transform(chunk: Buffer, _encoding, done) {
            md5.update(chunk);
            size += chunk.length;
            done(null, chunk);
          },
        });
        await pipeline(object.content, count, createWriteStream(temp));
      }
    });
    const digest = md5.digest('hex');
    await store.putMetadata(object.bucket, object.key, object.metadata, digest);
    return { size, md5: digest };
  };
  // One write or read at a time per key: the body and the metadata left behind are of the same write, and a read
  // (s3rver takes the length from the path's metadata, then opens the path) sees one write's body and length.
  const busy = new Map<string, Promise<unknown>>();
  const exclusive = <T>(path: string, run: () => Promise<T>): Promise<T> => {
    const done = (busy.get(path) ?? Promise.resolve()).then(run);
    const settled = done.catch(() => {});
    busy.set(path, settled);
    void settled.then(() => {
      if (busy.get(path) === settled) busy.delete(path);
    });
    return done;
  };
  const objectPath = (bucket: string, key: string) => store.getResourcePath(bucket, key, 'object');
  store.putObject = (object: S3rverObject) => exclusive(objectPath(object.bucket, object.key), () => put(object));
  const getObject = store.getObject.bind(store);
  // Once s3rver's read stream is open, a rename over the path leaves it reading the body it opened.
  store.getObject = (bucket, key, options) => exclusive(objectPath(bucket, key), () => getObject(bucket, key, options));
  // A copy writes its destination in place: it takes its turn there like any write.
  const copyObject = store.copyObject.bind(store);
  store.copyObject = (srcBucket, srcKey, destBucket, destKey, metadata) =>
    exclusive(objectPath(destBucket, destKey), () => copyObject(srcBucket, srcKey, destBucket, destKey, metadata));
  const putMetadata = store.putMetadata.bind(store);
  store.putMetadata = async (bucket, key, metadata, md5) => {
    // s3rver's own writes the `.md5` and metadata files in place; run it on a side key, then move both files over.
    const side = `${key}.${randomBytes(6).toString('hex')}.writing`;
    await putMetadata(bucket, side, metadata, md5);
    const files = ['metadata.json', ...(md5 ? ['object.md5'] : [])];
    for (const f of files) await rename(store.getResourcePath(bucket, side, f), store.getResourcePath(bucket, key, f));
  };
}
