import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { CURRENTLY_RECOMMENDED_FLAGS } from 'aws-cdk-lib/cx-api';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const ROOT = new URL('../..', import.meta.url).pathname;

/**
 * `cdk synth` runs infra/app.ts with CDK_OUTDIR and the `-c` context in the environment: the process boundary is the
 * point, as CDK would write an assembly when the process exits.
 */
describe('the CDK app as the CLI runs it', () => {
  it('writes no assembly when a setting is bad, so no empty stack is left to deploy', async () => {
    const out = await mkdtemp(join(tmpdir(), 'callsheet-cdk-out-'));
    try {
      const failed = await run(process.execPath, ['--import', 'tsx', 'infra/app.ts'], {
        cwd: ROOT,
        env: {
          ...process.env,
          CDK_OUTDIR: out,
          CDK_CONTEXT_JSON: JSON.stringify({
            'callsheet:VOICE_API_URL': 'https://voice.example.test',
            'callsheet:POLL_MAX_SECONDS': 'abc',
          }),
        },
        timeout: 120_000,
      }).then(
        () => null,
        (err: { code?: number; stderr?: string }) => err,
      );
      expect(failed?.code).toBe(1);
      expect(failed?.stderr).toContain('POLL_MAX_SECONDS="abc": a whole number');
      expect(await readdir(out)).toEqual([]);
    } finally {
      await rm(out, { recursive: true, force: true });
    }
  }, 180_000);
});

describe('cdk.json', () => {
  it('sets every feature flag the installed aws-cdk-lib recommends, so a synth finds none unconfigured', async () => {
    const { context } = JSON.parse(await readFile(join(ROOT, 'cdk.json'), 'utf8'));
    // Recommended, except the CDK's usage metadata: none is sent from callsheet's stack.
    const wanted = { ...CURRENTLY_RECOMMENDED_FLAGS, '@aws-cdk/core:enableAdditionalMetadataCollection': false };
    for (const [flag, value] of Object.entries(wanted)) expect(context[flag], flag).toEqual(value);
  });
});
