import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import { DEFAULT_LIMITS, SharedApiBudget } from '#commons/api-budget/shared-budget.ts';
import { documentClient } from '#commons/aws/clients.ts';
import { SuppressionList } from '#commons/suppression-list.ts';
import { VoiceApiClient } from '#commons/voice-api/index.ts';
import type { Clock } from '#commons/voice-api/rate-limiter.ts';
import { MAX_LINE_BYTES } from '#contacts/contact-lines.ts';
import { ContactPusher } from '#contacts/contact-pusher.ts';
import { ContactStore } from '#contacts/contact-store.ts';
import { ContactSync, type MessageResult, type QueuedEvent } from '#contacts/contact-sync.ts';
import { esbuildOptions } from '#infra/bundling.ts';
import { startEmulator } from '#local/emulator/server.ts';
import { startDynamo } from '#local/stack/dynamo.ts';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '#local/stack/local-aws.ts';
import { contactSheet, phones, xlsx } from '#test/helpers/sheets.ts';
import { atLeast, atMost, type BenchResult, median } from './client-overhead.ts';

const EVENTS = Number(process.env.BENCH_CONTACT_EVENTS ?? 20_000);
const DUPLICATE_SHARE = 0.3;
/** The largest batch Lambda's SQS event source hands one invocation (with a batching window). */
const BATCH = 10_000;
/** The budget as deployed by default. */
const LIMITS = DEFAULT_LIMITS;

/** 20,000 deliveries: 14,000 distinct events over 10,000 contacts (some changed twice), 6,000 redeliveries. */
function deliveries(): QueuedEvent[] {
  const unique = Math.round(EVENTS * (1 - DUPLICATE_SHARE));
  const contacts = Math.round(unique / 1.4);
  const events = Array.from({ length: unique }, (_, i) => {
    const n = i % contacts;
    const phone = `+1415${String(2_000_000 + n)}`;
    return i < contacts
      ? { event_id: `bench-${i}`, phone_number: phone, name: `Contact ${n}`, tags: ['bench'], note: `first note ${n}` }
      : { event_id: `bench-${i}`, phone_number: phone, city: 'Pune', lead_status: 'Warm' };
  });
  const out: QueuedEvent[] = [];
  let seed = 7;
  const rand = () => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed / 2 ** 31;
  };
  events.forEach((e, i) => {
    out.push({ messageId: `m${i}`, body: JSON.stringify(e), receiveCount: 1 });
  });
  for (let i = 0; out.length < EVENTS; i++) {
    const e = events[Math.floor(rand() * events.length)];
    out.push({ messageId: `dup${i}`, body: JSON.stringify(e), receiveCount: 1 });
  }
  return out;
}

/**
 * 20,000 contact events (30 % redeliveries) synced on dynalite to the emulator over HTTP, which enforces the
 * first tier (100 a minute, 1,000 an hour) on its simulated clock; the budget waits move that clock. During the
 * sync, a campaign's lifecycle pauses and resumes through the lifecycle share. Baseline for speed: the same
 * events stored without pushing.
 */
async function syncBench(): Promise<BenchResult[]> {
  const apiKey = 'bench-key';
  const emu = await startEmulator({
    apiKey,
    speed: 0,
    seed: 'bench',
    startTime: Date.parse('2026-03-02T09:00:30Z'),
    settings: { rateLimitPerMinute: LIMITS.perMinute, rateLimitPerHour: LIMITS.perHour },
  });
  const dynamo = await startDynamo({ prefix: 'bench' });
  const db = documentClient({
    region: LOCAL_REGION,
    endpoints: { dynamodb: dynamo.endpoint },
    credentials: LOCAL_CREDENTIALS,
  });
  try {
    const lifecycleWaits: number[] = [];
    const clock = (who: string): Clock => ({
      now: () => emu.core.clock.now(),
      sleep: async (ms) => {
        if (who === 'lifecycle') lifecycleWaits.push(ms);
        emu.core.clock.advance(ms);
      },
    });
    const lifecycle = new VoiceApiClient({
      baseUrl: emu.url,
      apiKey,
      clock: clock('lifecycle'),
      budget: new SharedApiBudget(db, dynamo.tables.apiBudget, LIMITS, clock('lifecycle')).for('lifecycle'),
    });
    const agent = await lifecycle.agents.create({ name: 'Bench' });
    const campaign = await lifecycle.campaigns.create({
      file: await xlsx(contactSheet(phones(5, '+1415590'))),
      fileName: 'bench.xlsx',
      agent_id: agent.id,
      name: 'During the sync',
    });

    // Whenever the sync waits for the budget, the lifecycle pauses and resumes its campaign right then.
    let lifecycleCalls = 0;
    const syncClock = clock('sync');
    const pausingClock: Clock = {
      now: syncClock.now,
      sleep: async (ms) => {
        await lifecycle.campaigns.pause(campaign.id);
        await lifecycle.campaigns.resume(campaign.id);
        lifecycleCalls += 2;
        await syncClock.sleep(ms);
      },
    };
    const pushing = new VoiceApiClient({
      baseUrl: emu.url,
      apiKey,
      clock: pausingClock,
      budget: new SharedApiBudget(db, dynamo.tables.apiBudget, LIMITS, pausingClock).for('shared', {
        maxWaitMs: 2 * 3_600_000,
      }),
    });

    const now = () => new Date(emu.core.clock.now());
    const all = deliveries();

    // Baseline: storing alone (a fresh table prefix, no pushes).
    // Every tenth delivery: the same mix of new events, changes and redeliveries as the whole run.
    const sample = all.filter((_, i) => i % 10 === 0);
    const baseDynamo = await startDynamo({ prefix: 'base' });
    const baseDb = documentClient({
      region: LOCAL_REGION,
      endpoints: { dynamodb: baseDynamo.endpoint },
      credentials: LOCAL_CREDENTIALS,
    });
    const baseSync = new ContactSync({
      store: new ContactStore(baseDb, baseDynamo.tables.contacts),
      pusher: { push: async (p) => new Map(p.map((x) => [x, { status: 'unchanged', requests: 0 }])) },
      deadLetters: { put: async () => undefined },
      now,
      maxReceives: 5,
      suppression: new SuppressionList(baseDb, baseDynamo.tables.suppression),
    });
    let t = performance.now();
    await baseSync.handle(sample);
    const storeOnlyRate = sample.length / ((performance.now() - t) / 1000);
    baseDb.destroy();
    await baseDynamo.close();

    const store = new ContactStore(db, dynamo.tables.contacts);
    const sync = new ContactSync({
      store,
      pusher: new ContactPusher({ store, api: pushing.contacts, now }),
      deadLetters: { put: async () => undefined },
      suppression: new SuppressionList(db, dynamo.tables.suppression),
      now,
      maxReceives: 5,
    });
    const firstSeq = emu.traffic.requests.length;
    const invocations: { pushed: number }[] = [];
    const results: MessageResult[] = [];
    t = performance.now();
    for (let i = 0; i < all.length; i += BATCH) {
      const batch = await sync.handle(all.slice(i, i + BATCH));
      results.push(...batch);
      invocations.push({ pushed: 0 });
    }
    const seconds = (performance.now() - t) / 1000;
    const rate = EVENTS / seconds;
    const failed = results.filter((r) => r.status !== 'done').length;

    // Distinct contacts pushed per invocation: each needs its share of a 100-contact request.
    const pushedPerInvocation = invocations.map((_, k) => {
      const phonesPushed = new Set<string>();
      for (let i = k * BATCH; i < Math.min(all.length, (k + 1) * BATCH); i++) {
        const r = results[i];
        if (r?.status === 'done' && r.push === 'pushed')
          phonesPushed.add((JSON.parse(all[i]?.body ?? '{}') as { phone_number: string }).phone_number);
      }
      return phonesPushed.size;
    });
    const traffic = emu.traffic.requests.slice(firstSeq).filter((r) => r.path.endsWith('/contacts/bulk'));
    const requests = traffic.length;
    const tooMany = emu.traffic.requests.slice(firstSeq).filter((r) => r.status === 429).length;
    const retries = traffic.filter((r) => r.status !== 200).length;
    const allowed = pushedPerInvocation.reduce((s, n) => s + Math.ceil(n / 100), 0) + retries;

    // Budget share: in every minute window the backlog outlasted, the requests sent ÷ the plan's minute limit.
    const api429free = emu.traffic.requests.slice(firstSeq).filter((r) => r.path.startsWith('/api/'));
    const end = Date.parse(api429free[api429free.length - 1]?.at ?? new Date(0).toISOString());
    const byMinute = new Map<number, number>();
    for (const r of api429free) {
      const m = Math.floor(Date.parse(r.at) / 60_000);
      byMinute.set(m, (byMinute.get(m) ?? 0) + 1);
    }
    const full = [...byMinute].filter(([m]) => (m + 1) * 60_000 <= end);
    const share = full.length === 0 ? 1 : full.reduce((s, [, n]) => s + n, 0) / (full.length * LIMITS.perMinute);

    return [
      {
        name: 'contacts: sync speed (20,000 events, 30 % redeliveries)',
        ratio: rate / storeOnlyRate,
        baseline: 'storing alone (every tenth delivery)',
        detail: `${rate.toFixed(0)} events/s synced vs ${storeOnlyRate.toFixed(0)}/s stored; ${seconds.toFixed(1)} s wall, ${failed} not synced`,
      },
      {
        name: 'contacts: API requests',
        ratio: requests / Math.max(1, allowed),
        baseline: 'Σ ceil(contacts pushed per invocation / 100) + retries',
        detail: `${requests} requests for ${pushedPerInvocation.join(' + ')} contacts in ${invocations.length} invocations, ${retries} retries`,
        // Judged on the counts: the ratio is shown against 1.00.
        ...atMost(requests, allowed, '1.00'),
      },
      {
        name: 'contacts: 429s received',
        ratio: tooMany,
        baseline: 'count',
        detail: `${tooMany} of ${api429free.length} API requests`,
        target: '0',
        met: tooMany === 0,
      },
      {
        name: 'contacts: budget share used while a backlog exists',
        ratio: share,
        baseline: 'of the plan (100/min)',
        detail: `${full.length} full minute(s) with a backlog`,
        ...atLeast(share, 0.9, '0.90'),
      },
      {
        name: 'contacts: lifecycle calls delayed by the sync',
        ratio: lifecycleWaits.length,
        baseline: 'count',
        detail: `${lifecycleCalls} pause/resume calls made while the sync waited for the budget`,
        target: '0',
        met: lifecycleWaits.length === 0,
      },
    ];
  } finally {
    db.destroy();
    await dynamo.close();
    await emu.close();
  }
}

const ROOT = new URL('..', import.meta.url).pathname;
const LINES_WORKER = new URL('./contact-lines-worker.ts', import.meta.url).pathname;
/** Above what the file itself takes: the reader may hold the file and one line's event, never a copy per line. */
const HOSTILE_LINE_EXTRA_MB = 32;
/** Reading the whole file, its 1,000 events checked: the hostile line must not make it slow. */
const HOSTILE_LINE_MS = 1000;

interface LinesMeasure {
  lines: number;
  rejected: number;
  ms: number;
  maxRssMB: number;
}

/**
 * `contacts push` on a hostile file: 1,000 ordinary events and one 10 MB line of 3.5 million empty objects (the
 * review's case: 755 MB to parse and check it). Each read runs in a fresh process of the bundled reader; the baseline process reads the same file and
 * counts its lines. Target: the reader's peak RSS within HOSTILE_LINE_EXTRA_MB of the baseline's.
 */
export async function hostileLinesBench(rounds = 5): Promise<BenchResult[]> {
  const dir = await mkdtemp(join(tmpdir(), 'callsheet-bench-lines-'));
  try {
    const worker = join(ROOT, '.build', 'bench', 'contact-lines-worker.mjs');
    await build(esbuildOptions(LINES_WORKER, worker, false));
    const file = join(dir, 'hostile.jsonl');
    const ordinary = Array.from({ length: 1000 }, (_, i) =>
      JSON.stringify({ event_id: `h${i}`, phone_number: `+1415${String(2_000_000 + i)}`, name: `Contact ${i}` }),
    );
    // The costly kind of line: millions of tiny values, each an object to parse and a schema error to report.
    const huge = `{"event_id":"huge","phone_number":"+14155550100","tags":[${Array(3_500_000).fill('{}').join(',')}]}`;
    await writeFile(file, `${[...ordinary.slice(0, 500), huge, ...ordinary.slice(500)].join('\n')}\n`);
    const run = promisify(execFile);
    const measure = async (mode: string) => {
      const { stdout } = await run(process.execPath, [worker, mode, file], { maxBuffer: 1 << 20 });
      return JSON.parse(stdout.trim()) as LinesMeasure;
    };
    const base: LinesMeasure[] = [];
    const lines: LinesMeasure[] = [];
    for (let i = 0; i < rounds; i++) {
      base.push(await measure('baseline'));
      lines.push(await measure('lines'));
    }
    const rss = median(lines.map((m) => m.maxRssMB));
    const baseRss = median(base.map((m) => m.maxRssMB));
    const refused = lines.every((m) => m.rejected === 1 && m.lines === 1001);
    const ms = median(lines.map((m) => m.ms));
    const baseMs = median(base.map((m) => m.ms));
    return [
      {
        name: 'contacts push: a 10 MB line among 1,000 events, peak RSS',
        ratio: rss / baseRss,
        baseline: 'a process reading the same file and counting its lines',
        detail: `${rss.toFixed(0)} MB vs ${baseRss.toFixed(0)} MB, median of ${rounds}; the line refused (over ${MAX_LINE_BYTES} bytes) in every run: ${refused}`,
        ...atMost(
          refused ? rss - baseRss : Number.POSITIVE_INFINITY,
          HOSTILE_LINE_EXTRA_MB,
          `+${HOSTILE_LINE_EXTRA_MB} MB`,
        ),
      },
      {
        name: 'contacts push: a 10 MB line among 1,000 events, time to read',
        ratio: ms / baseMs,
        baseline: 'counting the same file’s lines',
        detail: `${ms.toFixed(0)} ms vs ${baseMs.toFixed(1)} ms, median of ${rounds} (the 1,000 events checked included)`,
        ...atMost(ms, HOSTILE_LINE_MS, `${HOSTILE_LINE_MS / 1000} s absolute`),
      },
    ];
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The contacts group of `npm run bench`: a hostile JSON-lines file, then the sync. */
export async function contactsBench(): Promise<BenchResult[]> {
  return [...(await hostileLinesBench()), ...(await syncBench())];
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const r of await contactsBench()) console.log(JSON.stringify(r));
}
