import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { GetObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { readAwsSettings, s3Client } from '#commons/aws/clients.ts';
import { scanAll } from '#commons/aws/scan-all.ts';
import { EnvReader } from '#commons/config.ts';
import { TABLES } from '#commons/tables.ts';
import { VoiceApiClient } from '#commons/voice-api/index.ts';
import { counted } from '#commons/words.ts';
import type { UploadOutcome, UploadRecord } from '#intake/upload-store.ts';
import { CampaignSafety } from '#lifecycle/campaign-safety.ts';
import type { CampaignRecord, CampaignStore } from '#lifecycle/campaign-store.ts';
import { localDataDir } from '../stack/data-dir.ts';
import { readRunningStack } from '../stack/running-stack.ts';
import type { OpenTable } from './table-access.ts';

/** How long an operator command waits for one Voice API answer before saying the API is slow. */
const OPERATOR_API_TIMEOUT_MS = 2_000;

/** Every part's record in the campaigns table, newest first (a scan: one item per part, plus one per campaign). */
export async function partRecords(t: Pick<OpenTable, 'db' | 'table'>): Promise<CampaignRecord[]> {
  const items = await scanAll<Record<string, unknown>>(t.db, {
    TableName: t.table,
    FilterExpression: 'begins_with(pk, :part)',
    ExpressionAttributeValues: { ':part': 'part#' },
  });
  // A record whose part ended before its launch wrote it whole still names its part by its key.
  const out = items.map((item) => ({ ...item, partKey: item.partKey ?? String(item.pk).slice(5) }) as CampaignRecord);
  return out.sort((a, b) => (b.startedAt ?? '').localeCompare(a.startedAt ?? '') || a.partKey.localeCompare(b.partKey));
}

/** An upload that launched nothing: refused, the same content as an earlier one, or never finished by intake. */
export interface UnlaunchedUpload {
  uploadId: string;
  key: string;
  status: UploadOutcome['status'] | 'unfinished';
  /** The report's reason, or why there is none; null on records written before intake kept it. */
  reason: string | null;
  /** Null while intake has not finished: it writes the report at the end. */
  reportKey: string | null;
  /** When intake finished it; null when it has not, or finished before the time was kept. */
  finishedAt: string | null;
}

/**
 * Every upload without a part (a scan of the uploads table's `upload#` items): finished without launching, or
 * claimed by an intake whose lease ran out before it finished (it crashed or timed out; the queue retries it, and
 * after its last try it waits in the dead-letter queue).
 */
export async function unlaunchedUploads(
  db: OpenTable['db'],
  table: string,
  now = Date.now(),
): Promise<UnlaunchedUpload[]> {
  const items = await scanAll<UploadRecord>(db, {
    TableName: table,
    FilterExpression:
      'begins_with(pk, :upload) AND ((#state = :done AND #outcome.#status <> :launched) OR (#state = :processing AND #lease < :now))',
    ExpressionAttributeNames: {
      '#state': 'state',
      '#outcome': 'outcome',
      '#status': 'status',
      '#lease': 'leaseUntil',
    },
    ExpressionAttributeValues: {
      ':upload': 'upload#',
      ':done': 'done',
      ':launched': 'launched',
      ':processing': 'processing',
      ':now': now,
    },
  });
  const out = items.map(
    (item): UnlaunchedUpload =>
      item.outcome
        ? {
            uploadId: item.uploadId,
            key: item.key,
            status: item.outcome.status,
            reason: item.outcome.error?.message ?? null,
            reportKey: item.outcome.reportKey,
            finishedAt: item.finishedAt ?? null,
          }
        : {
            uploadId: item.uploadId,
            key: item.key,
            status: 'unfinished',
            reason: `intake started it ${counted(item.attempts, 'time')} and did not finish: see its log; the queue tries again, then keeps it in the dead-letter queue`,
            reportKey: null,
            finishedAt: null,
          },
  );
  // Unfinished first (they need a look), then the newest; records from before the time was kept last, by key.
  const unfinished = (u: UnlaunchedUpload) => (u.status === 'unfinished' ? 1 : 0);
  const at = (u: UnlaunchedUpload) => u.finishedAt ?? '';
  return out.sort(
    (a, b) =>
      unfinished(b) - unfinished(a) || (at(a) < at(b) ? 1 : at(a) > at(b) ? -1 : 0) || a.key.localeCompare(b.key),
  );
}

/** A part by its campaign id or its part key. */
export const findPart = (records: CampaignRecord[], id: string) =>
  records.find((r) => r.campaignId === id || r.partKey === id) ?? null;

/** Where reports are read from: the deployed bucket, the running local stack's S3, or the local copies. */
export interface ReportSource {
  where: string;
  get(key: string): Promise<Buffer | null>;
  close(): void;
}

async function s3Source(client: S3Client, bucket: string, where: string): Promise<ReportSource> {
  return {
    where,
    async get(key) {
      try {
        const out = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
        return Buffer.from(await (out.Body as { transformToByteArray(): Promise<Uint8Array> }).transformToByteArray());
      } catch (err) {
        if ((err as { name?: string }).name === 'NoSuchKey') return null;
        throw err;
      }
    },
    close: () => client.destroy(),
  };
}

export async function openReports(): Promise<ReportSource> {
  const bucket = process.env.CALLSHEET_BUCKET;
  const running = await readRunningStack(localDataDir());
  if (running) {
    const client = s3Client({
      region: running.region,
      endpoints: { s3: running.endpoints.s3 },
      credentials: running.credentials,
    });
    return s3Source(client, running.bucket, `the running callsheet ${running.command}`);
  }
  if (bucket) {
    const env = new EnvReader(process.env);
    const aws = readAwsSettings(env);
    return s3Source(s3Client(aws), bucket, `s3://${bucket}`);
  }
  const dir = join(localDataDir(), 'reports');
  return {
    where: dir,
    get: (key) => readFile(join(dir, key.replace(/^reports\//, ''))).catch(() => null),
    close: () => {},
  };
}

/** Copies a part's reports (JSON, HTML, outcome exports) to a folder and answers the files written. */
export async function downloadReports(source: ReportSource, keys: string[], outDir: string): Promise<string[]> {
  const written: string[] = [];
  for (const key of keys) {
    const body = await source.get(key);
    if (!body) continue;
    const file = join(outDir, key.split('/').pop() as string);
    await mkdir(dirname(file), { recursive: true });
    await writeFile(file, body);
    written.push(file);
  }
  return written;
}

/**
 * The Voice API the campaigns run on, chosen as `openTable` chooses their table: with CAMPAIGNS_TABLE set
 * (deployed), VOICE_API_URL/KEY; else the running stack's emulator, or VOICE_API_URL/KEY; null when there is none.
 */
async function operatorApi(): Promise<{ url: string; apiKey: string; emulator: boolean } | null> {
  const deployed = Boolean(process.env[TABLES.campaigns.env]);
  const running = deployed ? null : await readRunningStack(localDataDir());
  if (running?.voiceApi) return { ...running.voiceApi, emulator: true };
  const { VOICE_API_URL: url, VOICE_API_KEY: apiKey } = process.env;
  return url && apiKey ? { url, apiKey, emulator: false } : null;
}

/** One short try per request, no retry: an operator's command answers within seconds. */
const clientOf = (api: { url: string; apiKey: string }) =>
  new VoiceApiClient({
    baseUrl: api.url,
    apiKey: api.apiKey,
    timeoutMs: OPERATOR_API_TIMEOUT_MS,
    maxRetries: 0,
    requestsPerMinute: 0,
  });

/** The API's time: the emulator's clock (it may be simulated, and its state is not asked), else this computer's. */
async function apiNow(api: { url: string; emulator: boolean }): Promise<number | null> {
  if (!api.emulator) return Date.now();
  const res = await fetch(`${api.url}/_emulator/clock`, {
    signal: AbortSignal.timeout(OPERATOR_API_TIMEOUT_MS),
  }).catch(() => null);
  const body = res?.ok ? ((await res.json().catch(() => null)) as { now?: string } | null) : null;
  return Date.parse(body?.now ?? '') || null;
}

/**
 * The Voice API the campaigns run on, for its clock only: progress is what each workflow saw at its last look, so
 * `status` spends none of the account's plan.
 */
export async function openApi(): Promise<{
  /** The API's time (the emulator's may be simulated); null when it did not answer within the operator timeout. */
  now(): Promise<number | null>;
} | null> {
  const api = await operatorApi();
  return api && { now: () => apiNow(api) };
}

/**
 * An operator's command on the campaigns' Voice API, chosen once. `at`: the instant it stamps, the API's clock (the
 * running stack's may be simulated, so a wish sits on the campaign's own timeline rather than weeks away from it),
 * this computer's when there is none or it does not answer. `safety`: what a pause, cancel or brake release is made
 * through (CampaignSafety, signalling nothing); null when there is no API to reach.
 */
export async function operatorSession(store: CampaignStore): Promise<{ at: Date; safety: CampaignSafety | null }> {
  const api = await operatorApi();
  const at = new Date((api ? await apiNow(api) : null) ?? Date.now());
  if (!api) return { at, safety: null };
  const client = clientOf(api);
  return {
    at,
    safety: new CampaignSafety(client.campaigns, client.agents, store, { action: () => undefined }, () => at),
  };
}

/** How long an operator's command waits for one API answer, in words. */
export const OPERATOR_API_WAIT = `${OPERATOR_API_TIMEOUT_MS / 1000} s`;

/** A text progress bar: [#####.....] 5/10. */
export function bar(done: number, total: number, width = 20): string {
  const filled = total > 0 ? Math.round((done / total) * width) : 0;
  return `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${done}/${total}`;
}

/**
 * A part's status as an operator sees it: an ended part's own; a running one paused (and why), or asked to change
 * and not yet acted on (`status`, `campaign list` and `campaign show` say the same).
 */
export function statusWords(r: CampaignRecord): string {
  if (r.status !== 'running' && r.status !== 'creating') return r.status;
  const last = r.timeline?.filter((t) => t.event === 'pause' || t.event === 'resume').at(-1);
  const paused = last?.event === 'pause';
  const asked = r.control?.wanted;
  // The operator's wish stays recorded after it is acted on: say it only while the part is not in that state.
  if (asked && ((asked === 'pause') !== paused || asked === 'cancel'))
    return `${paused ? `paused (${last?.reason})` : r.status}, ${asked} asked`;
  return paused ? `paused (${last?.reason})` : r.status;
}
