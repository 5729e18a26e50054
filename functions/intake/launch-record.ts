import type { ObjectStore } from '#commons/aws/object-store.ts';
import { launchKey } from '#commons/report-keys.ts';
import type { planParts } from './plan-parts.ts';

export type PlannedPart = ReturnType<typeof planParts>[number];

/**
 * What one intake attempt fixed before starting any part: the parts (each with its execution name and the plan it
 * starts with, whose part file is already written) and where the original goes. A retry after some parts started
 * works from this, not from the upload read again: the do-not-call list, the caps or the agent may have changed
 * since, and parts worked out again would be numbered differently, so a part file rewritten under a running part
 * would have it dial another list.
 */
export interface LaunchRecord {
  parts: PlannedPart[];
  destination: string;
}

export async function readLaunch(objects: ObjectStore, bucket: string, id: string): Promise<LaunchRecord | null> {
  const stored = await objects.get(bucket, launchKey(id));
  return stored ? (JSON.parse(stored.bytes.toString('utf8')) as LaunchRecord) : null;
}

export async function writeLaunch(objects: ObjectStore, bucket: string, id: string, launch: LaunchRecord) {
  await objects.put(bucket, launchKey(id), JSON.stringify(launch), 'application/json');
}
