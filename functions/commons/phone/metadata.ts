import { readFileSync } from 'node:fs';
import type { MetadataJson } from 'libphonenumber-js/core';

/**
 * libphonenumber's `max` metadata, which every number is parsed and typed with. A Lambda bundle reads the package's
 * JSON file, which the deploy copies beside it and names in PHONE_METADATA (infra/bundling.ts): parsed as JSON it is
 * ready sooner than the same 155 KB compiled as part of the bundle, a cost every cold start of intake and contacts
 * paid. Anywhere else, and in a bundle without the file, it is the package's module.
 */
export const PHONE_METADATA: MetadataJson = process.env.PHONE_METADATA
  ? (JSON.parse(readFileSync(process.env.PHONE_METADATA, 'utf8')) as MetadataJson)
  : (await import('libphonenumber-js/metadata.max.json')).default;
