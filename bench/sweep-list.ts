import { batchWriteAll } from '#commons/aws/batch.ts';
import { documentClient } from '#commons/aws/clients.ts';
import { CampaignStore } from '#lifecycle/campaign-store.ts';
import { createTables, startDynamo } from '#local/stack/dynamo.ts';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '#local/stack/local-aws.ts';
import { type DynamoTally, startDynamoProxy } from '#test/helpers/dynamo-proxy.ts';
import { campaignsTableBeforeIndex } from '#test/helpers/table-before-index.ts';
import { type BenchResult, median } from './client-overhead.ts';

const FINISHED = 10_000;
const RUNNING = 100;
/** Failed or cancelled parts, 10 of them still for the sweeper to secure. */
const ENDED_BADLY = 60;
const TOTAL = FINISHED + RUNNING + ENDED_BADLY;
const DELAY_MS = 5;
const ROUNDS = 5;

/**
 * A part's record as the lifecycle leaves it (about 1.5 KB): its watch, a timeline of a week of windows, its
 * counts. `n` picks its status: most finished, some running, a few failed or cancelled the sweeper must still secure.
 */
function record(n: number): Record<string, unknown> {
  const at = new Date(Date.UTC(2026, 10, 1) + n * 60_000).toISOString();
  const status =
    n < RUNNING
      ? 'running'
      : n < RUNNING + 5
        ? 'failed'
        : n < RUNNING + 10
          ? 'cancelled'
          : n < RUNNING + ENDED_BADLY
            ? 'failed'
            : 'completed';
  const unsettled = n >= RUNNING && n < RUNNING + 10;
  return {
    pk: `part#bench-${n}-p1`,
    partKey: `bench-${n}-p1`,
    uploadId: `bench-${n}`,
    part: 1,
    status,
    campaignId: `cmp_${n.toString(36).padStart(12, '0')}`,
    create: { attempt: 1, state: 'created', sentAt: at },
    startedAt: at,
    ...(status === 'running' ? {} : { finishedAt: at }),
    // As CampaignStore.finish writes it: the sweeper watches these parts' campaigns for a week.
    ...(status === 'failed' || status === 'cancelled' ? { endedDay: at.slice(0, 10) } : {}),
    watch: {
      execution: `arn:aws:states:us-east-1:000000000000:execution:callsheet-lifecycle:bench-${n}-p1`,
      agentId: 'agt_bench',
      campaignId: `cmp_${n}`,
      window: { zones: ['America/New_York'], hours: 'Mon-Fri 09:00-20:00; Sat 09:00-17:00', closingMarginMinutes: 5 },
      observedAt: at,
      nextLookAt: at,
      quiet: status !== 'running',
      counts: { total: 1000, completed: 990, failed: 10, pending: 0, in_progress: 0 },
    },
    timeline: Array.from({ length: 10 }, (_, i) => ({
      at,
      event: i % 2 ? 'resume' : 'pause',
      reason: 'window',
    })),
    ...(status === 'failed' || status === 'cancelled'
      ? {
          secured: {
            at,
            by: 'guard',
            outcome: unsettled && status === 'failed' ? 'unconfirmed' : 'paused',
            reason: 'the workflow timed out; its campaign is being secured',
            pauseHeld: !(unsettled && status === 'cancelled'),
          },
        }
      : {}),
  };
}

const units = (t: DynamoTally[]) =>
  t.map((x) => `${x.operation} ${x.requests} requests, ${x.capacity.toFixed(1)} capacity units`).join('; ');

/** The sweep's instant: every part of the table ended in the week before it. */
const NOW = new Date('2026-11-08T00:00:00Z');
const WEEK_AGO = new Date(NOW.getTime() - 7 * 86_400_000);

/**
 * What each sweep reads to find the parts it must check (CampaignStore.unfinished) and the ended parts whose
 * campaigns it watches (`endedAfter`, a week), in a table holding a week of finished parts, every request 5 ms longer
 * (a round trip in AWS): through the two indexes, against the scans of the whole table they replaced (still what a
 * table without them gets).
 */
export async function sweepListBench(): Promise<BenchResult[]> {
  const dynamo = await startDynamo({ prefix: 'bench' });
  const proxy = await startDynamoProxy(dynamo.endpoint, DELAY_MS);
  const direct = documentClient({
    region: LOCAL_REGION,
    endpoints: { dynamodb: dynamo.endpoint },
    credentials: LOCAL_CREDENTIALS,
  });
  const db = documentClient({
    region: LOCAL_REGION,
    endpoints: { dynamodb: proxy.url },
    credentials: LOCAL_CREDENTIALS,
  });
  try {
    const indexed = (await createTables(dynamo.endpoint, 'indexed')).campaigns;
    const scanned = await campaignsTableBeforeIndex(dynamo.endpoint, 'bench-campaigns-without-index');
    const items = Array.from({ length: TOTAL }, (_, n) => ({ PutRequest: { Item: record(n) } }));
    for (const table of [indexed, scanned]) await batchWriteAll(direct, table, items, 'bench');
    const measure = async (table: string) => {
      const store = new CampaignStore(db, table);
      const ms: number[] = [];
      let listed = 0;
      let tallies: DynamoTally[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        proxy.reset();
        const start = performance.now();
        const [unfinished, ended] = await Promise.all([
          store.unfinished({ unconfirmed: true }),
          store.endedAfter(WEEK_AGO, NOW),
        ]);
        listed = unfinished.length + ended.length;
        ms.push(performance.now() - start);
        tallies = proxy.tallies().map((t) => ({ ...t }));
      }
      return { ms: median(ms), listed, tallies };
    };
    const scan = await measure(scanned);
    const index = await measure(indexed);
    if (index.listed !== scan.listed)
      throw new Error(`the index listed ${index.listed} parts, the scan ${scan.listed}`);
    return [
      {
        name: `sweep: the parts to check and the ended ones to watch among ${TOTAL.toLocaleString('en')} in the campaigns table, ${DELAY_MS} ms a DynamoDB request`,
        ratio: index.ms / scan.ms,
        baseline: 'a scan of the whole table',
        detail:
          `${index.ms.toFixed(0)} ms vs ${scan.ms.toFixed(0)} ms, median of ${ROUNDS}; ${index.listed} parts listed (${ENDED_BADLY} of them ended in the week); ` +
          `index: ${units(index.tallies)}; scan: ${units(scan.tallies)}`,
      },
    ];
  } finally {
    direct.destroy();
    db.destroy();
    await proxy.close();
    await dynamo.close();
  }
}
