import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import { afterAll, describe, expect, it } from 'vitest';
import { esbuildOptions, loadedAtStart, PHONE_METADATA } from '#infra/bundling.ts';
import { FUNCTION_ENTRIES } from '#infra/settings.ts';

const run = promisify(execFile);
const ROOT = new URL('../..', import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), 'callsheet-bundling-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The X-Ray SDK under Powertools' Tracer and what only it brings in. */
const TRACER_INPUT = /node_modules\/(aws-xray-sdk-core|semver|cls-hooked|@aws-lambda-powertools\/tracer)\//;

/**
 * Code a function imports only where it is used, so its cold start does not parse it: the live-transcript client
 * (no deployed function opens it), and reading sheets (zip, .xlsx, CSV), which the lifecycle, the guard and the
 * sweeper do only at a part's end or for a lost create, and the contacts function only for a contact sheet, not for
 * the contact events that are most of its messages.
 */
const LATER = {
  ws: /node_modules\/ws\//,
  'sheet reading': /node_modules\/yauzl\/|functions\/commons\/spreadsheet\/(sources|part-file|zip-guard)\.ts/,
};
const NOT_AT_START: Record<string, (keyof typeof LATER)[]> = {
  lifecycle: ['ws', 'sheet reading'],
  guard: ['ws', 'sheet reading'],
  sweeper: ['ws', 'sheet reading'],
  contacts: ['ws', 'sheet reading'],
  outcomes: ['ws'],
  webhooks: ['ws'],
  intake: ['ws'],
  reindex: ['ws', 'sheet reading'],
};

const hasTracer = (output: { inputs: Record<string, { bytesInOutput: number }> }) =>
  Object.entries(output.inputs).some(([path, i]) => TRACER_INPUT.test(path) && i.bytesInOutput > 0);

/**
 * `source` bundled as a function is (infra/bundling.ts) into `<dir>/<name>/`: a runner of the bundle in a fresh
 * process with only PATH and `env`, answering what it printed as JSON, and the chunks holding an input ending in
 * `input`, by path.
 */
async function probe(name: string, source: string, input: (path: string) => boolean) {
  const out = join(dir, name, 'index.mjs');
  const built = await build({
    ...esbuildOptions(join(ROOT, 'probe.ts'), out, false),
    entryPoints: undefined,
    stdin: { contents: source, resolveDir: ROOT, sourcefile: 'probe.ts', loader: 'ts' },
    absWorkingDir: ROOT,
    metafile: true,
  });
  const runs = async (env: Record<string, string | undefined>) =>
    JSON.parse(
      (await run(process.execPath, [out], { env: { PATH: process.env.PATH, ...env }, timeout: 60_000 })).stdout,
    );
  const chunks = Object.entries(built.metafile.outputs)
    .filter(([, o]) => Object.entries(o.inputs).some(([path, i]) => input(path) && i.bytesInOutput > 0))
    .map(([path]) => join(ROOT, path));
  return { runs, chunks };
}

describe('function bundles', () => {
  it('load the X-Ray SDK only through the import that TRACING makes, and rarely used code only where used', async () => {
    for (const [folder, entry] of Object.entries(FUNCTION_ENTRIES)) {
      const out = join(dir, folder, 'index.mjs');
      const built = await build({
        ...esbuildOptions(join(ROOT, 'functions', entry), out, false),
        absWorkingDir: ROOT,
        metafile: true,
      });
      const atStart = loadedAtStart(built.metafile, out, ROOT);
      expect(
        atStart.filter(hasTracer).map((o) => o.path),
        folder,
      ).toEqual([]);
      const inputsAtStart = atStart.flatMap((o) =>
        Object.entries(o.inputs)
          .filter(([, i]) => i.bytesInOutput > 0)
          .map(([path]) => path),
      );
      for (const later of NOT_AT_START[folder] ?? [])
        expect(
          inputsAtStart.filter((path) => LATER[later]?.test(path)),
          `${folder}: ${later}`,
        ).toEqual([]);
      // Still shipped, for TRACING on.
      expect(Object.values(built.metafile.outputs).some(hasTracer), folder).toBe(true);
    }
  }, 120_000);

  it('run a middy handler with tracing off without the tracer chunk, and with it on through it', async () => {
    const { runs, chunks } = await probe(
      'probe',
      `import middy from '@middy/core';
import { makeObservability, observe } from '#commons/observability.ts';
const obs = makeObservability('probe');
const answer = await observe(middy(async () => 'handled'), obs)({}, { awsRequestId: 'r', functionName: 'probe' });
process.stdout.write(JSON.stringify([obs.tracer === null ? null : typeof obs.tracer.putAnnotation, answer]));`,
      (path) => TRACER_INPUT.test(path),
    );
    const inLambda = { AWS_LAMBDA_FUNCTION_NAME: 'callsheet-probe' };
    expect(await runs(inLambda)).toEqual(['function', 'handled']);
    // With the tracer's chunks gone, tracing off still runs: nothing at start reads them.
    expect(chunks.length).toBeGreaterThan(0);
    for (const chunk of chunks) rmSync(chunk);
    expect(await runs({ ...inLambda, POWERTOOLS_TRACE_ENABLED: 'false' })).toEqual([null, 'handled']);
    await expect(runs(inLambda)).rejects.toThrow(/Cannot find module/);
  }, 60_000);

  it('read the phone metadata from the JSON file PHONE_METADATA names, not from the chunk that holds it', async () => {
    const { runs, chunks } = await probe(
      'phones',
      `import { normalizePhone } from '#commons/phone/phone.ts';
process.stdout.write(JSON.stringify(normalizePhone('(415) 555-2671', 'US')));`,
      (path) => path.endsWith('libphonenumber-js/metadata.max.json.js'),
    );
    // The metadata's own chunk, deleted: a start that read it would fail.
    expect(chunks).toHaveLength(1);
    for (const chunk of chunks) rmSync(chunk);
    expect(await runs({ PHONE_METADATA: join(ROOT, PHONE_METADATA.from) })).toMatchObject({
      ok: true,
      e164: '+14155552671',
    });
    await expect(runs({})).rejects.toThrow(/Cannot find module/);
  }, 60_000);
});
