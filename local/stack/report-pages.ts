import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { documentClient } from '../../functions/commons/aws/clients.ts';
import type { ObjectStore } from '../../functions/commons/aws/object-store.ts';
import { partKey } from '../../functions/commons/campaign-plan.ts';
import type { Log } from '../../functions/commons/log.ts';
import { decodeEventKey } from '../../functions/intake/upload-ref.ts';
import { CampaignStore } from '../../functions/lifecycle/campaign-store.ts';
import { type PartWindow, partIntervals } from '../../functions/lifecycle/window-plan.ts';
import {
  type PartReportView,
  parseCsv,
  renderReportPage,
  type StatsSample,
} from '../../functions/reports/html-report.ts';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from './local-aws.ts';
import type { LocalStack } from './local-stack.ts';

/** reports/<upload>/part-<label>.json: a campaign part's report (not the intake's report.json). */
export const PART_REPORT = /^reports\/([^/]+)\/part-([^/]+)\.json$/;

const keyOf = (s3Url: string | undefined) => s3Url?.replace(/^s3:\/\/[^/]+\//, '');

/** Reads one object of the bucket, or null when there is none. */
export type ReadObject = (key: string) => Promise<Buffer | null>;

/** The HTML page of one part report, from the JSON, the upload's intake report and the outcomes CSV beside it. */
export async function reportPageFor(
  read: ReadObject,
  partKey: string,
  /** The part's calling window (the campaigns table keeps it), to draw when it was open. */
  window?: PartWindow,
): Promise<string | null> {
  const m = PART_REPORT.exec(partKey);
  if (!m) return null;
  const part = await read(partKey);
  if (!part) return null;
  const view = JSON.parse(part.toString('utf8')) as PartReportView;
  const intake = await read(`reports/${m[1]}/report.json`);
  const rejected = intake
    ? ((JSON.parse(intake.toString('utf8')) as { rejected?: { row: number; reason: string; input: string }[] })
        .rejected ?? [])
    : [];
  const csv = await read(keyOf(view.outcomes?.exports?.csv) ?? `reports/${m[1]}/outcomes-part-${m[2]}.csv`);
  const table = csv ? parseCsv(csv.toString('utf8')).filter((r) => r.some((c) => c !== '')) : null;
  const outcomes = table && table.length > 0 ? { header: table[0] as string[], rows: table.slice(1) } : null;
  const stats = await read(`reports/${m[1]}/stats-part-${m[2]}.json`);
  const samples = stats ? (JSON.parse(stats.toString('utf8')) as StatsSample[]) : undefined;
  const from = Date.parse(view.startedAt ?? '');
  const to = Date.parse(view.finishedAt ?? '');
  const windowOpen = window && from < to ? partIntervals(window, from, to) : undefined;
  return renderReportPage({
    part: view,
    rejected,
    outcomes,
    ...(samples ? { samples } : {}),
    ...(windowOpen ? { windowOpen } : {}),
  });
}

/** A bucket of the local stack as a ReadObject. */
export const readFrom =
  (objects: ObjectStore, bucket: string): ReadObject =>
  async (key) =>
    (await objects.get(bucket, key))?.bytes ?? null;

/**
 * Keeps a local stack's reports readable as real files: each part report gets its HTML page next to it in the
 * bucket (reports/<upload>/part-N.html), and everything written under reports/ is copied to `mirrorDir`
 * (<data dir>/reports/<upload>/…), so paths printed to a user open in a browser or a spreadsheet.
 */
export function keepReportPages(
  stack: LocalStack,
  mirrorDir: string,
  log: Log,
  /** Stats sampled while a part ran (stats-sampler.ts), written beside its report as stats-part-N.json. */
  samples?: (uploadId: string, label: string) => StatsSample[],
): { idle(): Promise<void>; close(): Promise<void> } {
  let work: Promise<unknown> = Promise.resolve();
  const db = documentClient({
    region: LOCAL_REGION,
    endpoints: { dynamodb: stack.dynamo.endpoint },
    credentials: LOCAL_CREDENTIALS,
  });
  const campaigns = new CampaignStore(db, stack.dynamo.tables.campaigns);
  stack.s3.onEvent((event) => {
    for (const r of event.Records) {
      if (!r.eventName.startsWith('ObjectCreated:')) continue;
      const key = decodeEventKey(r.s3.object.key);
      if (!key.startsWith('reports/')) continue;
      work = work
        .then(async () => {
          const obj = await stack.objects.get(stack.bucket, key);
          if (obj) {
            const file = join(mirrorDir, key.slice('reports/'.length));
            await mkdir(dirname(file), { recursive: true });
            await writeFile(file, obj.bytes);
          }
          const part = PART_REPORT.exec(key);
          if (!part) return;
          const series = samples?.(part[1] as string, part[2] as string) ?? [];
          if (series.length > 0)
            await stack.objects.put(
              stack.bucket,
              `reports/${part[1]}/stats-part-${part[2]}.json`,
              `${JSON.stringify(series)}\n`,
              'application/json',
            );
          const record = await campaigns.get(partKey(part[1] as string, part[2] as string)).catch(() => null);
          const page = await reportPageFor(readFrom(stack.objects, stack.bucket), key, record?.watch?.window);
          if (page) await stack.objects.put(stack.bucket, key.replace(/\.json$/, '.html'), page, 'text/html');
        })
        .catch((err: Error) => log.error('report page failed', { key, error: err.message }));
    }
  });
  const idle = async () => {
    // A page written raises one more event (its copy): wait until no more work was queued.
    for (let seen = work; ; seen = work) {
      await seen;
      if (seen === work) return;
    }
  };
  return {
    idle,
    close: async () => {
      await idle();
      db.destroy();
    },
  };
}
