import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { documentClient } from '#commons/aws/clients.ts';
import type { ObjectStore } from '#commons/aws/object-store.ts';
import { partKey } from '#commons/campaign-plan.ts';
import type { Log } from '#commons/log.ts';
import { partOfReportKey, partReportFiles, reportKeys, reportPrefix } from '#commons/report-keys.ts';
import { decodeEventKey } from '#commons/upload-ref.ts';
import { type PartWindow, partIntervals } from '#commons/window-plan.ts';
import { CampaignStore } from '#lifecycle/campaign-store.ts';
import { type PartReportView, parseCsv, renderReportPage, type StatsSample } from './html-report.ts';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from './local-aws.ts';
import type { LocalStack } from './local-stack.ts';

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
  const of = partOfReportKey(partKey);
  if (!of) return null;
  const files = partReportFiles(reportPrefix(of.upload), of.label);
  const part = await read(partKey);
  if (!part) return null;
  const view = JSON.parse(part.toString('utf8')) as PartReportView;
  const intake = await read(reportKeys(of.upload).json);
  const said = intake
    ? (JSON.parse(intake.toString('utf8')) as {
        rejected?: { row: number; reason: string; input: string }[];
        notes?: string[];
      })
    : null;
  const rejected = said?.rejected ?? [];
  const csv = await read(keyOf(view.outcomes?.exports?.csv) ?? files.outcomesCsv);
  const table = csv ? parseCsv(csv.toString('utf8')).filter((r) => r.some((c) => c !== '')) : null;
  const outcomes = table && table.length > 0 ? { header: table[0] as string[], rows: table.slice(1) } : null;
  const stats = await read(files.stats);
  const samples = stats ? (JSON.parse(stats.toString('utf8')) as StatsSample[]) : undefined;
  const from = Date.parse(view.startedAt ?? '');
  const to = Date.parse(view.finishedAt ?? '');
  const windowOpen = window && from < to ? partIntervals(window, from, to) : undefined;
  return renderReportPage({
    part: view,
    rejected,
    notes: said?.notes ?? [],
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
          const part = partOfReportKey(key);
          if (!part) return;
          const files = partReportFiles(reportPrefix(part.upload), part.label);
          const series = samples?.(part.upload, part.label) ?? [];
          if (series.length > 0)
            await stack.objects.put(stack.bucket, files.stats, `${JSON.stringify(series)}\n`, 'application/json');
          const record = await campaigns.get(partKey(part.upload, part.label)).catch(() => null);
          const page = await reportPageFor(readFrom(stack.objects, stack.bucket), key, record?.watch?.window);
          if (page) await stack.objects.put(stack.bucket, files.html, page, 'text/html');
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
