import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { parseWindowRules } from '#commons/calling-window.ts';
import { DEFAULT_LEGAL_HOURS } from '#commons/legal-hours.ts';
import { partWindow } from '#commons/window-plan.ts';
import { CampaignStore } from '#lifecycle/campaign-store.ts';
import { type LocalDynamo, startDynamo } from '#local/stack/dynamo.ts';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '#local/stack/local-aws.ts';
import { runInProcess } from '../helpers/cli.ts';
import { dynaliteClient } from '../helpers/dynalite-client.ts';

// Real stand-ins on a loaded 2-core machine: generous limits; no test measures time.
vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 });

let dynamo: LocalDynamo;
let dir: string;
beforeAll(async () => {
  dynamo = await startDynamo({ prefix: `s${Math.random().toString(36).slice(2, 8)}` });
  dir = await mkdtemp(join(tmpdir(), 'callsheet-status-'));
});
afterAll(async () => {
  await dynamo.close();
  await rm(dir, { recursive: true, force: true });
});

/** An operator's shell on the deployed table (dynalite's), with no Voice API to ask. */
const deployed = () => ({
  CALLSHEET_DATA_DIR: dir,
  CAMPAIGNS_TABLE: dynamo.tables.campaigns,
  AWS_REGION: LOCAL_REGION,
  AWS_ACCESS_KEY_ID: LOCAL_CREDENTIALS.accessKeyId,
  AWS_SECRET_ACCESS_KEY: LOCAL_CREDENTIALS.secretAccessKey,
  AWS_ENDPOINT_URL_DYNAMODB: dynamo.endpoint,
  VOICE_API_URL: '',
  VOICE_API_KEY: '',
});

/** `callsheet status` on a deployed campaigns table (here dynalite's), as an operator runs it. */
describe('status on a deployed campaigns table', () => {
  it('shows each running part of a braked agent as dialling nobody, and an ended part still holding the brake', async () => {
    const store = new CampaignStore(dynaliteClient(dynamo.endpoint), dynamo.tables.campaigns);
    const made = partWindow(
      {
        part: { zones: ['America/New_York'], timeZone: 'America/New_York', country: 'US', regions: [] },
        window: { rules: parseWindowRules('Mon-Fri 10:00-12:00'), holidays: [] },
      },
      DEFAULT_LEGAL_HOURS,
      Date.now(),
    );
    if (!made.ok) throw new Error(made.message);
    const now = new Date();
    for (const part of [1, 2]) {
      const key = `u1-p${part}`;
      await store.beginCreate(key, 'u1', part, now);
      await store.created(key, `cmp_${part}`);
      await store.observe(key, {
        execution: `arn:aws:states:us-east-1:123456789012:execution:callsheet-lifecycle:${key}`,
        agentId: 'agt_1',
        campaignId: `cmp_${part}`,
        window: made.window,
        observedAt: now.toISOString(),
        nextLookAt: now.toISOString(),
        quiet: false,
      });
    }
    const env = deployed();
    const brakedBy = async () => {
      const out = await runInProcess(['status', '--json'], env);
      expect(out.stderr).toBe('');
      return (JSON.parse(out.stdout).parts as { partKey: string; brakedBy?: string[] }[]).map((p) => [
        p.partKey,
        p.brakedBy ?? null,
      ]);
    };
    expect(await brakedBy()).toEqual([
      ['u1-p1', null],
      ['u1-p2', null],
    ]);
    await store.hold('agt_1', 'u1-p1', now);
    expect(await brakedBy()).toEqual([
      ['u1-p1', ['u1-p1']],
      ['u1-p2', ['u1-p1']],
    ]);
    const text = await runInProcess(['status'], env);
    expect(text.stdout).toContain('its agent is braked, so it dials nobody: the brake is held by u1-p1');
    // The part holding the brake ends (cancelled while its campaign waited for its start): no workflow lets go.
    await store.finish('u1-p1', 'cancelled', now);
    const ended = await runInProcess(['status', '--json'], env);
    expect(
      (JSON.parse(ended.stdout).parts as { partKey: string; holdsBrake?: boolean }[]).map((p) => [
        p.partKey,
        p.holdsBrake ?? false,
      ]),
    ).toEqual([
      ['u1-p1', true],
      ['u1-p2', false],
    ]);
    expect((await runInProcess(['status'], env)).stdout).toContain(
      "it ended holding its agent's brake: no campaign on that agent dials until `callsheet campaign release cmp_1` lets go",
    );
  });
});

describe('campaign cancel on a deployed campaigns table', () => {
  it('records the cancel and says the vendor campaign stays paused, watched a week, to be cancelled in the dashboard too', async () => {
    const store = new CampaignStore(dynaliteClient(dynamo.endpoint), dynamo.tables.campaigns);
    await store.beginCreate('u2-p1', 'u2', 1, new Date());
    await store.created('u2-p1', 'cmp_cancel');
    const out = await runInProcess(['campaign', 'cancel', 'cmp_cancel'], deployed());
    expect(out.stdout).toContain('cancel requested for campaign cmp_cancel (part u2-p1)');
    expect(out.stdout).toContain('for a week after the part ends the sweeper pauses it again if it dials');
    expect(out.stdout).toContain("Cancel it in the vendor's dashboard too if nobody should ever resume it there");
    expect((await store.get('u2-p1'))?.control?.wanted).toBe('cancel');
  });
});

/** A data directory whose stack stopped without ending its parts (killed, or its terminal closed). */
describe('status and release on a data directory no stack runs on', () => {
  it('say that a running part lost its workflow, and what ends it', async () => {
    const data = await mkdtemp(join(tmpdir(), 'callsheet-orphan-'));
    try {
      const local = await startDynamo({ path: join(data, 'dynamodb') });
      try {
        const store = new CampaignStore(dynaliteClient(local.endpoint), local.tables.campaigns);
        await store.beginCreate('u2-p1', 'u2', 1, new Date());
        await store.created('u2-p1', 'cmp_orphan');
      } finally {
        await local.close();
      }
      const env = { CALLSHEET_DATA_DIR: data, VOICE_API_URL: '', VOICE_API_KEY: '' };
      const status = await runInProcess(['status'], env);
      expect(status.stdout).toContain('(no callsheet stack runs on this data directory: a part shown running lost');
      // Its closing label reads the pause settings of this shell: a bad one is a usage mistake, named.
      const bad = await runInProcess(['status'], { ...env, CLOSING_MARGIN_MINUTES: '0' });
      expect([bad.code, bad.stderr]).toEqual([
        2,
        expect.stringContaining('CLOSING_MARGIN_MINUTES="0": a whole number from 1 to 120'),
      ]);
      const release = await runInProcess(['campaign', 'release', 'cmp_orphan'], env);
      expect(release.code).toBe(1);
      expect(release.stderr).toContain(
        'campaign cmp_orphan is still recorded as running, but no callsheet stack runs on the local stack',
      );
      expect(release.stderr).toContain('Start `callsheet local` (or `callsheet run`) on this data directory');
    } finally {
      await rm(data, { recursive: true, force: true });
    }
  });
});
