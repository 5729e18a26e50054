import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { cp, mkdir, mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { batchWriteAll } from '#commons/aws/batch.ts';
import { documentClient } from '#commons/aws/clients.ts';
import { DEFAULT_CAP_LIMITS } from '#commons/frequency-cap.ts';
import { FrequencyCapStore } from '#commons/frequency-cap-store.ts';
import { SuppressionList } from '#commons/suppression-list.ts';
import { TABLES } from '#commons/tables.ts';
import { dataFilesIn } from '#infra/bundling.ts';
import { createTables, startDynamo } from '#local/stack/dynamo.ts';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '#local/stack/local-aws.ts';
import { type DynamoTally, startDynamoProxy } from '#test/helpers/dynamo-proxy.ts';
import { atMost, type BenchResult, median } from './client-overhead.ts';
import { buildWorker, makeSheet, sheetNumber } from './intake.ts';

const run = promisify(execFile);
const ROOT = new URL('..', import.meta.url).pathname;
const WORKER = new URL('./intake-tables-worker.ts', import.meta.url).pathname;
const ROWS = 100_000;
const LISTED = 1_000_000;
const DELAY_MS = 5;
const ROUNDS = 3;
const RSS_LIMIT_MB = 512;
/**
 * The files whose code decides how the do-not-call list is stored: the cached list is seeded again when any of
 * them changes, so a run never reads a list laid out by older code.
 */
const STORAGE = [
  'functions/commons/suppression-list.ts',
  'functions/commons/aws/number-shards.ts',
  'functions/commons/aws/batch.ts',
];
/** Seeded lists are kept here between runs (git-ignored, beside the bench's compiled workers). */
const CACHE = join(ROOT, '.build', 'bench', 'intake-tables');

/** Every 50th row's number is on the list (about 2,000 of the sheet's), so suppression really removes rows. */
const listedFromSheet = (i: number) => i % 50 === 0;
/** Every 20th row (offset 5) was reserved 2 calls an hour ago: with 2 more it passes the daily cap of 3. */
const reservedEarlier = (i: number) => i % 20 === 5;

/** The million numbers: the sheet's chosen ones, then numbers of other area codes, the same in every run. */
function listedNumbers(): string[] {
  const out = new Set<string>();
  for (let i = 0; i < ROWS; i++) if (listedFromSheet(i)) out.add(sheetNumber(i, ROWS).e164);
  const areas = ['646', '718', '202', '305', '702', '206', '503', '404', '713', '214'];
  let x = 12345;
  while (out.size < LISTED) {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    out.add(`+1${areas[x % areas.length]}${String(2_000_000 + (x % 7_999_999)).padStart(7, '0')}`);
  }
  return [...out];
}

/**
 * The earlier campaign's reservations as the version before the cap shards kept them: one `cap#<phone>` item per
 * number, in a table without the caps' index mark (a deployment upgraded but not yet reindexed).
 */
async function reservedBeforeShards(db: DynamoDBDocumentClient, table: string, phones: string[], at: Date) {
  const entries = [{ key: 'earlier-campaign', at: at.toISOString(), calls: 2 }];
  await batchWriteAll(
    db,
    table,
    phones.map((phone) => ({ PutRequest: { Item: { pk: `cap#${phone}`, kind: 'cap', phone, version: 1, entries } } })),
    'bench',
  );
}

const dbAt = (endpoint: string) =>
  documentClient({ region: LOCAL_REGION, endpoints: { dynamodb: endpoint }, credentials: LOCAL_CREDENTIALS });

/**
 * The do-not-call list of a million numbers in dynalite's LevelDB files, seeded through SuppressionList.add (as
 * `callsheet suppress add` would) once per storage layout and kept in `.build/bench/intake-tables/`; each run works
 * on a copy, so what it writes never reaches the cache. Seeding takes minutes; reading the copy, a second.
 */
async function seededList(): Promise<{ dir: string; seeded: string }> {
  const hash = createHash('sha256');
  for (const f of STORAGE) hash.update(await readFile(join(ROOT, f)));
  const dir = join(CACHE, `dnc-${LISTED}-${hash.digest('hex').slice(0, 12)}`);
  if (existsSync(join(dir, 'seeded.json'))) {
    const { ms } = JSON.parse(await readFile(join(dir, 'seeded.json'), 'utf8')) as { ms: number };
    return { dir, seeded: `cached in ${dir} (seeded in ${(ms / 1000).toFixed(0)} s)` };
  }
  await rm(CACHE, { recursive: true, force: true }); // lists of older layouts
  await mkdir(CACHE, { recursive: true });
  const partial = `${dir}.partial`;
  const dynamo = await startDynamo({ path: join(partial, 'db'), prefix: 'bench' });
  const db = dbAt(dynamo.endpoint);
  const start = performance.now();
  try {
    const list = new SuppressionList(db, dynamo.tables.suppression);
    const numbers = listedNumbers();
    // 100,000 at a time, as a large `suppress add` would be split, so the bench's own memory stays small.
    for (let i = 0; i < numbers.length; i += 100_000) await list.add(numbers.slice(i, i + 100_000), 'bench', 'bench');
  } finally {
    db.destroy();
    await dynamo.close();
  }
  const ms = performance.now() - start;
  await writeFile(join(partial, 'seeded.json'), JSON.stringify({ numbers: LISTED, ms }));
  await rename(partial, dir);
  return { dir, seeded: `seeded now in ${(ms / 1000).toFixed(0)} s, kept in ${dir}` };
}

interface Measure {
  ms: number;
  cpuMs: number;
  maxRssMB: number;
  dncMs?: number;
  dncCpuMs?: number;
  capsMs?: number;
  capsCpuMs?: number;
  rejected?: Record<string, number>;
  parts?: number;
}

const units = (n: number) => n.toLocaleString('en', { maximumFractionDigits: 1 });
const shown = (tallies: DynamoTally[], table: string) =>
  tallies
    .filter((t) => t.table === table)
    .map((t) => `${t.operation} ${t.requests} requests, ${units(t.capacity)} capacity units`)
    .join('; ') || 'no requests';

/**
 * Issue 22's first target: intake's whole path with its tables as deployed, a do-not-call list of a million numbers
 * and frequency caps on, every DynamoDB request 5 ms longer (as a round trip in AWS), against a plain exceljs read
 * of the same sheet. Each round gets fresh upload and cap tables, with 5,000 of the sheet's numbers already near
 * their daily cap, so caps too turn rows away.
 */
export async function intakeTablesBench(): Promise<BenchResult[]> {
  const work = await mkdtemp(join(tmpdir(), 'callsheet-bench-tables-'));
  try {
    const worker = await buildWorker(WORKER);
    const sheet = join(work, `contacts-${ROWS}.xlsx`);
    await makeSheet(sheet, ROWS);
    const { dir, seeded } = await seededList();
    await cp(join(dir, 'db'), join(work, 'db'), { recursive: true });
    const dynamo = await startDynamo({ path: join(work, 'db'), prefix: 'bench' });
    const proxy = await startDynamoProxy(dynamo.endpoint, DELAY_MS);
    const db = dbAt(dynamo.endpoint);
    const earlier = Array.from({ length: ROWS }, (_, i) => i)
      .filter(reservedEarlier)
      .map((i) => sheetNumber(i, ROWS).e164);
    try {
      const base: Measure[] = [];
      const bare: Measure[] = [];
      const intake: Measure[] = [];
      const upgraded: Measure[] = [];
      const reindexMs: number[] = [];
      let tallies: DynamoTally[] = [];
      let upgradedTallies: DynamoTally[] = [];
      let reindexTallies: DynamoTally[] = [];
      let oldOutcomes = '';
      let tables = dynamo.tables;
      /** Intake's whole path on `t` through the 5 ms proxy, with the DynamoDB requests it made. */
      const intakeOn = async (t: { uploads: string; suppression: string; outcomes: string }) => {
        proxy.reset();
        const measured = await measure(worker, 'intake', sheet, {
          AWS_ENDPOINT_URL_DYNAMODB: proxy.url,
          [TABLES.uploads.env]: t.uploads,
          [TABLES.suppression.env]: t.suppression,
          [TABLES.outcomes.env]: t.outcomes,
        });
        // Copies: the proxy keeps counting into the same tallies until it is reset.
        return { measured, tallies: proxy.tallies().map((x) => ({ ...x })) };
      };
      for (let round = 0; round < ROUNDS; round++) {
        base.push(await measure(worker, 'baseline', sheet, {}));
        // The same path with an empty list and no caps, so what the tables add shows apart from the machine's mood.
        const empty = await createTables(dynamo.endpoint, `bare${round}`);
        await new SuppressionList(db, empty.suppression).ensureIndexed();
        bare.push(
          await measure(worker, 'intake', sheet, {
            AWS_ENDPOINT_URL_DYNAMODB: proxy.url,
            [TABLES.uploads.env]: empty.uploads,
            [TABLES.suppression.env]: empty.suppression,
          }),
        );
        // Upgraded from the per-number items and not yet reindexed: those are read too (`caps reindex` folds them).
        const old = { ...(await createTables(dynamo.endpoint, `old${round}`)), suppression: dynamo.tables.suppression };
        await reservedBeforeShards(db, old.outcomes, earlier, new Date(Date.now() - 3600_000));
        const before = await intakeOn(old);
        upgraded.push(before.measured);
        upgradedTallies = before.tallies;
        const viaProxy = dbAt(proxy.url);
        proxy.reset();
        const folding = performance.now();
        await new FrequencyCapStore(viaProxy, old.outcomes, DEFAULT_CAP_LIMITS).reindex();
        reindexMs.push(performance.now() - folding);
        reindexTallies = proxy.tallies().map((t) => ({ ...t }));
        viaProxy.destroy();
        oldOutcomes = old.outcomes;

        tables = { ...(await createTables(dynamo.endpoint, `round${round}`)), suppression: dynamo.tables.suppression };
        const caps = new FrequencyCapStore(db, tables.outcomes, DEFAULT_CAP_LIMITS);
        await caps.ensureIndexed();
        await caps.admitAll(earlier, 'earlier-campaign', 2, new Date(Date.now() - 3600_000));
        const after = await intakeOn(tables);
        intake.push(after.measured);
        tallies = after.tallies;
      }
      return [
        ...results(base, bare, intake, tallies, tables, seeded),
        beforeReindex(base, intake, upgraded, reindexMs, {
          intake: shown(upgradedTallies, oldOutcomes),
          reindex: shown(reindexTallies, oldOutcomes),
        }),
      ];
    } finally {
      db.destroy();
      await proxy.close();
      await dynamo.close();
    }
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

async function measure(worker: string, mode: string, file: string, env: Record<string, string>): Promise<Measure> {
  // Only what the function is given when deployed: no setting of the shell running the bench leaks in.
  const { stdout } = await run(process.execPath, [worker, mode, file], {
    maxBuffer: 1 << 20,
    env: {
      PATH: process.env.PATH ?? '',
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
      ...dataFilesIn(ROOT),
      AWS_REGION: LOCAL_REGION,
      AWS_ACCESS_KEY_ID: LOCAL_CREDENTIALS.accessKeyId,
      AWS_SECRET_ACCESS_KEY: LOCAL_CREDENTIALS.secretAccessKey,
      LIFECYCLE_STATE_MACHINE_ARN: 'arn:aws:states:us-east-1:000000000000:stateMachine:bench',
      VOICE_API_URL: 'http://127.0.0.1:9',
      VOICE_API_KEY: 'bench',
      DEFAULT_COUNTRY: 'US',
      ...env,
    },
  });
  return JSON.parse(stdout.trim().split('\n').at(-1) as string) as Measure;
}

/** The same path on a table upgraded from per-number cap items and not yet reindexed, beside the indexed one. */
function beforeReindex(
  base: Measure[],
  intake: Measure[],
  upgraded: Measure[],
  reindexMs: number[],
  requests: { intake: string; reindex: string },
): BenchResult {
  const b = median(base.map((m) => m.ms));
  const ms = median(upgraded.map((m) => m.ms));
  const caps = median(upgraded.map((m) => m.capsMs ?? 0));
  const capped = upgraded.at(-1)?.rejected?.['daily-cap'] ?? 0;
  return {
    name: `intake ${ROWS.toLocaleString('en')} rows, the same path before \`caps reindex\` (cap#<phone> items read too)`,
    ratio: ms / b,
    baseline: 'plain exceljs streaming read of the same file',
    detail: `${ms.toFixed(0)} ms, median of ${upgraded.length} (indexed: ${median(intake.map((m) => m.ms)).toFixed(0)} ms); caps ${caps.toFixed(0)} ms, ${capped} daily-cap (indexed: ${intake.at(-1)?.rejected?.['daily-cap'] ?? 0}); last run ${requests.intake}; \`caps reindex\` of the ${(ROWS / 20).toLocaleString('en')} old items ${median(reindexMs).toFixed(0)} ms (${requests.reindex})`,
  };
}

function results(
  base: Measure[],
  bare: Measure[],
  intake: Measure[],
  tallies: DynamoTally[],
  tables: Record<string, string>,
  seeded: string,
): BenchResult[] {
  const b = median(base.map((m) => m.ms));
  const t = median(intake.map((m) => m.ms));
  const cpu = median(intake.map((m) => m.cpuMs)) / median(base.map((m) => m.cpuMs));
  const rss = median(intake.map((m) => m.maxRssMB));
  const last = intake.at(-1) as Measure;
  const rejected = Object.entries(last.rejected ?? {})
    .map(([reason, n]) => `${n} ${reason}`)
    .join(', ');
  const label = `intake ${ROWS.toLocaleString('en')} rows, ${LISTED.toLocaleString('en')}-number do-not-call list, caps on, ${DELAY_MS} ms a DynamoDB request`;
  const check = (name: string, ms: number[], cpuMs: number[], table: string): BenchResult => ({
    name: `${label}: ${name}`,
    ratio: median(ms) / b,
    baseline: 'plain exceljs streaming read of the same file',
    detail: `${median(ms).toFixed(0)} ms (intake's CPU ${median(cpuMs).toFixed(0)} ms), median of ${ms.length}; last run ${shown(tallies, table)}`,
  });
  return [
    {
      name: `${label}: whole path`,
      ratio: t / b,
      baseline: 'plain exceljs streaming read of the same file',
      detail: `${t.toFixed(0)} ms vs ${b.toFixed(0)} ms, median of ${intake.length}; CPU time ${cpu.toFixed(2)}×; ${last.parts} parts; rejected ${rejected}; upload claims ${shown(tallies, tables.uploads as string)}; list ${seeded}`,
      ...atMost(t / b, 1.5),
    },
    {
      name: `intake ${ROWS.toLocaleString('en')} rows, the same path with an empty list and caps off`,
      ratio: median(bare.map((m) => m.ms)) / b,
      baseline: 'plain exceljs streaming read of the same file',
      detail: `${median(bare.map((m) => m.ms)).toFixed(0)} ms, median of ${bare.length}; CPU time ${(median(bare.map((m) => m.cpuMs)) / median(base.map((m) => m.cpuMs))).toFixed(2)}×`,
    },
    {
      name: `${label}: peak RSS`,
      ratio: rss / median(base.map((m) => m.maxRssMB)),
      baseline: 'the plain read’s peak RSS',
      detail: `${rss.toFixed(0)} MB vs ${median(base.map((m) => m.maxRssMB)).toFixed(0)} MB, median of ${intake.length}; worst ${Math.max(...intake.map((m) => m.maxRssMB)).toFixed(0)} MB`,
      ...atMost(rss, RSS_LIMIT_MB, `${RSS_LIMIT_MB} MB absolute`),
    },
    check(
      'do-not-call check',
      intake.map((m) => m.dncMs ?? 0),
      intake.map((m) => m.dncCpuMs ?? 0),
      tables.suppression as string,
    ),
    check(
      'frequency caps',
      intake.map((m) => m.capsMs ?? 0),
      intake.map((m) => m.capsCpuMs ?? 0),
      tables.outcomes as string,
    ),
  ];
}
