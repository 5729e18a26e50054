// Just what callsheet uses of the two stand-ins that ship no types.
declare module 'dynalite' {
  import type { Server } from 'node:http';

  interface DynaliteOptions {
    path?: string;
    createTableMs?: number;
    deleteTableMs?: number;
    updateTableMs?: number;
  }
  export default function dynalite(options?: DynaliteOptions): Server;
}

declare module 's3rver' {
  import type { EventEmitter } from 'node:events';
  import type { AddressInfo } from 'node:net';

  interface S3rverOptions {
    address?: string;
    port?: number;
    silent?: boolean;
    directory: string;
    resetOnClose?: boolean;
    configureBuckets?: { name: string; configs?: string[] }[];
  }
  /** An object as s3rver's store receives it. */
  export interface S3rverObject {
    bucket: string;
    key: string;
    content: Buffer | NodeJS.ReadableStream;
    metadata: Record<string, string>;
  }
  /** The file store behind s3rver, whose writes the local stack makes whole. */
  export interface S3rverStore {
    getResourcePath(bucket: string, key: string, resource: string): string;
    putObject(object: S3rverObject): Promise<{ size: number; md5: string }>;
    putMetadata(bucket: string, key: string, metadata: Record<string, string>, md5?: string): Promise<void>;
    getObject(bucket: string, key: string, options?: { start?: number; end?: number }): Promise<unknown>;
    copyObject(
      srcBucket: string,
      srcKey: string,
      destBucket: string,
      destKey: string,
      replacementMetadata?: Record<string, string>,
    ): Promise<unknown>;
  }
  export default class S3rver extends EventEmitter {
    constructor(options: S3rverOptions);
    store: S3rverStore;
    run(): Promise<AddressInfo>;
    close(): Promise<void>;
    reset(): void;
  }
}
