/**
 * Cold module load of each deployed function's bundle, built exactly as the stack builds it (infra/bundling.ts),
 * with TRACING off (the default), against its floor: a bundle of only the AWS SDK clients that function uses (found
 * in its own bundle's inputs) with the Powertools logger, metrics and middy every function carries (and the batch
 * processor where it consumes SQS), built the same way. Each load is `await import()` of the bundle in a fresh Node
 * process, timed inside it, so process start-up is not counted; the function's top-level await (reading its
 * settings, building its clients) is. Also reports the bytes each loads at start (its entry file and the chunks
 * that imports statically; not the chunks behind an `await import()`), the clients alone, and the bundle with
 * TRACING on.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import { dataFilesIn, esbuildOptions, loadedAtStart } from '#infra/bundling.ts';
import { FUNCTION_ENTRIES, type FunctionFolder, namesReadBy } from '#infra/settings.ts';
import { atMost, type BenchResult, median } from './client-overhead.ts';

const run = promisify(execFile);
const ROOT = new URL('..', import.meta.url).pathname;
/** The functions the stack deploys (infra/*.ts), each bundled from its entry (FUNCTION_ENTRIES). */
const DEPLOYED: FunctionFolder[] = [
  'intake',
  'lifecycle',
  'guard',
  'sweeper',
  'contacts',
  'webhooks',
  'outcomes',
  'reindex',
];
const LOADS = 9;

/** The client class each SDK package is used through; the baseline constructs one of each, as a function does. */
const CLIENTS: Record<string, { name: string; make: string }> = {
  '@aws-sdk/client-s3': { name: 'S3Client', make: 'new S3Client({})' },
  '@aws-sdk/client-dynamodb': { name: 'DynamoDBClient', make: 'new DynamoDBClient({})' },
  '@aws-sdk/lib-dynamodb': {
    name: 'DynamoDBDocumentClient',
    make: 'DynamoDBDocumentClient.from(new DynamoDBClient({}))',
  },
  '@aws-sdk/client-sfn': { name: 'SFNClient', make: 'new SFNClient({})' },
  '@aws-sdk/client-eventbridge': { name: 'EventBridgeClient', make: 'new EventBridgeClient({})' },
  '@aws-sdk/client-secrets-manager': { name: 'SecretsManagerClient', make: 'new SecretsManagerClient({})' },
  '@aws-sdk/client-sqs': { name: 'SQSClient', make: 'new SQSClient({})' },
};

/** An environment the function starts with: every name its reader reads, the key from the environment. */
function startEnv(folder: FunctionFolder, tracing: boolean): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    // As in Lambda, so observability loads the tracer as a deployed function does (TRACING on, the default).
    AWS_LAMBDA_FUNCTION_NAME: `callsheet-${folder}`,
    AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs22.x',
    POWERTOOLS_TRACE_ENABLED: tracing ? 'true' : 'false',
    AWS_REGION: 'eu-west-1',
    AWS_ACCESS_KEY_ID: 'bench',
    AWS_SECRET_ACCESS_KEY: 'bench',
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  };
  for (const name of namesReadBy(folder))
    if (/(_TABLE|_ARN|_QUEUE_URL|_DLQ_URL|_BUS_NAME)$/.test(name)) env[name] = 'bench';
  env.VOICE_API_URL = 'http://127.0.0.1:9';
  env.VOICE_API_KEY = 'bench-key';
  env.VOICE_API_WEBHOOK_SECRET = 'bench-secret';
  // The data files beside the bundle, each read only by the functions the stack ships it to.
  Object.assign(env, dataFilesIn(ROOT));
  // The reindex's wait, which the stack computes (infra/reindex.ts).
  env.REINDEX_DRAIN_SECONDS = '300';
  delete env.VOICE_API_SECRET_ARN;
  return env;
}

/**
 * Milliseconds to import `file` in a fresh process with `env`: wall time, and the process's CPU time over the same
 * span (steadier than wall time on a busy machine, so shown beside it; the target is judged on wall time).
 */
async function loadMs(file: string, env: NodeJS.ProcessEnv): Promise<{ wall: number; cpu: number }> {
  const script = `const c = process.cpuUsage(); const t = performance.now(); await import(${JSON.stringify(pathToFileURL(file).href)}); const wall = performance.now() - t; const d = process.cpuUsage(c); process.stdout.write(JSON.stringify({ wall, cpu: (d.user + d.system) / 1000 }));`;
  try {
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], { env, timeout: 60_000 });
    return JSON.parse(stdout) as { wall: number; cpu: number };
  } catch (err) {
    // A minified bundle's error prints a line of code first; the message is at the end.
    const tail = String((err as { stderr?: string }).stderr ?? err).slice(-600);
    throw new Error(`loading ${file} failed: …${tail}`);
  }
}

const kib = (bytes: number) => `${Math.round(bytes / 1024)} KiB`;

/** Writes `<base>/index.ts` from `lines` and bundles it to `<base>/index.mjs` as the stack bundles a function. */
async function buildEntry(base: string, lines: string[]): Promise<{ file: string; bytes: number }> {
  mkdirSync(base, { recursive: true });
  writeFileSync(join(base, 'index.ts'), lines.join('\n'));
  const file = join(base, 'index.mjs');
  const built = await build({
    ...esbuildOptions(join(base, 'index.ts'), file, false),
    absWorkingDir: ROOT,
    nodePaths: [join(ROOT, 'node_modules')],
    metafile: true,
  });
  return { file, bytes: loadedAtStart(built.metafile, file, ROOT).reduce((sum, o) => sum + o.bytes, 0) };
}

export async function bundlesBench(): Promise<BenchResult[]> {
  const dir = join(tmpdir(), `callsheet-bundles-${process.pid}`);
  mkdirSync(dir, { recursive: true });
  const results: BenchResult[] = [];
  try {
    for (const folder of DEPLOYED) {
      const out = join(dir, folder, 'index.mjs');
      const built = await build({
        ...esbuildOptions(join(ROOT, 'functions', FUNCTION_ENTRIES[folder]), out, false),
        absWorkingDir: ROOT,
        metafile: true,
      });
      const loaded = loadedAtStart(built.metafile, out, ROOT);
      // Inputs that put bytes into what loads at start (esbuild drops the clients a function never constructs).
      const kept = loaded.flatMap((o) =>
        Object.entries(o.inputs)
          .filter(([, i]) => i.bytesInOutput > 0)
          .map(([path]) => path),
      );
      const used = Object.keys(CLIENTS).filter((pkg) => kept.some((input) => input.includes(`node_modules/${pkg}/`)));
      const sdkLines = [
        ...used.map((pkg) => `import { ${CLIENTS[pkg]?.name} } from '${pkg}';`),
        // The document client is built on the DynamoDB client.
        ...(used.includes('@aws-sdk/lib-dynamodb') && !used.includes('@aws-sdk/client-dynamodb')
          ? ["import { DynamoDBClient } from '@aws-sdk/client-dynamodb';"]
          : []),
        `export const clients = [${used.map((pkg) => CLIENTS[pkg]?.make).join(', ')}];`,
      ];
      const { file: baseline } = await buildEntry(join(dir, folder, 'sdk-only'), sdkLines);
      // The floor a function needs as deployed (TRACING is opt-in): its clients, the Powertools logger and
      // metrics, and middy. The target compares the bundle with tracing off against it.
      // An SQS consumer's floor also has the Powertools batch processor it reports partial failures with.
      const batch = kept.some((input) => input.includes('node_modules/@aws-lambda-powertools/batch/'));
      const { file: floor, bytes: floorSize } = await buildEntry(join(dir, folder, 'sdk-observed'), [
        ...sdkLines,
        "import { Logger } from '@aws-lambda-powertools/logger';",
        "import { Metrics } from '@aws-lambda-powertools/metrics';",
        "import middy from '@middy/core';",
        ...(batch ? ["import { BatchProcessor, EventType } from '@aws-lambda-powertools/batch';"] : []),
        `export const observed = [new Logger(), new Metrics({ namespace: 'bench' }), middy(async () => 0)${batch ? ', new BatchProcessor(EventType.SQS)' : ''}];`,
      ]);

      const traced = startEnv(folder, true);
      const untraced = startEnv(folder, false);
      const fn: { wall: number; cpu: number }[] = [];
      const sdk: { wall: number; cpu: number }[] = [];
      const off: { wall: number; cpu: number }[] = [];
      const floorMs: { wall: number; cpu: number }[] = [];
      for (let i = 0; i < LOADS; i++) {
        sdk.push(await loadMs(baseline, untraced));
        floorMs.push(await loadMs(floor, untraced));
        off.push(await loadMs(out, untraced));
        fn.push(await loadMs(out, traced));
      }
      const wall = (xs: { wall: number }[]) => median(xs.map((x) => x.wall));
      const cpu = (xs: { cpu: number }[]) => median(xs.map((x) => x.cpu));
      const ratio = wall(off) / wall(floorMs);
      const size = loaded.reduce((sum, o) => sum + o.bytes, 0);
      results.push({
        name: `cold module load, ${folder} bundle, TRACING off`,
        ratio,
        baseline: `its floor: its AWS SDK clients (${used.map((p) => p.replace(/^@aws-sdk\/(client-)?/, '')).join(', ') || 'none'}) with Powertools logger, metrics${batch ? ', batch' : ''} and middy`,
        detail: `${wall(off).toFixed(0)} ms vs ${wall(floorMs).toFixed(0)} ms, median of ${LOADS}; CPU ${cpu(off).toFixed(0)} ms vs ${cpu(floorMs).toFixed(0)} ms (${(cpu(off) / cpu(floorMs)).toFixed(2)}×); the clients alone ${wall(sdk).toFixed(0)} ms; with TRACING on ${wall(fn).toFixed(0)} ms; ${kib(size)} vs ${kib(floorSize)} loaded at start`,
        ...atMost(ratio, 1.2),
      });
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return results;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  for (const r of await bundlesBench())
    console.log(
      `${r.name}: ${r.ratio.toFixed(2)}× ${r.baseline} (${r.detail}); target ${r.target}${r.met ? '' : ' MISS'}`,
    );
}
