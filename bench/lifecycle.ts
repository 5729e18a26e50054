import { PutObjectCommand } from '@aws-sdk/client-s3';
import { startEmulator } from '#local/emulator/server.ts';
import { startLocalStack } from '#local/stack/local-stack.ts';
import { contactSheet, phones, xlsx } from '#test/helpers/sheets.ts';
import { atMost, type BenchResult } from './client-overhead.ts';

interface Run {
  transitions: number;
  /** Simulated seconds between the campaign completing in the API and the workflow's report. */
  lagSeconds: number;
  durationSeconds: number;
}

/**
 * One 1000-contact campaign on the embedded stack, with a window short enough (one hour a night) that it runs
 * over three simulated days. `poll` fixes the poll interval (the baseline) or leaves it adaptive.
 */
async function campaign(poll: 'adaptive' | 'fixed-30s'): Promise<Run> {
  const apiKey = 'bench-key';
  const emu = await startEmulator({
    apiKey,
    speed: 0,
    seed: 'bench',
    startTime: Date.parse('2026-03-02T12:00:00Z'),
    settings: { rateLimitPerMinute: 0 },
  });
  const stack = await startLocalStack({
    voiceApi: { url: emu.url, apiKey },
    clock: emu.core.clock,
    mayDial: (id, startsAt) => emu.core.mayDial(id, startsAt),
    settings: poll === 'fixed-30s' ? { POLL_MIN_SECONDS: '30', POLL_MAX_SECONDS: '30' } : {},
  });
  try {
    const res = await fetch(`${emu.url}/api/developer/v1/agents`, {
      method: 'POST',
      headers: { 'X-API-Key': apiKey, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Bench' }),
    });
    const { id } = (await res.json()) as { id: string };
    const body = await xlsx(contactSheet(phones(1000, '+1415580')));
    await stack.s3Client.send(
      new PutObjectCommand({
        Bucket: stack.bucket,
        Key: `incoming/${id}/bench.xlsx`,
        Body: body,
        Metadata: { 'calling-window': 'daily 18:00-19:00' },
      }),
    );
    await stack.intakeQueue.idle();
    await stack.sfn.settled();
    const first = [...stack.sfn.executions.values()][0];
    const plan = JSON.parse(first?.input ?? '{}').plan;
    const obj = await stack.objects.get(stack.bucket, `${plan.reportPrefix}part-1.json`);
    const report = JSON.parse(obj?.bytes.toString('utf8') ?? '{}') as {
      stateTransitions: number;
      finishedAt: string;
      durationSeconds: number;
      campaignId: string;
    };
    const campaign = (await (
      await fetch(`${emu.url}/api/developer/v1/campaigns/${report.campaignId}`, { headers: { 'X-API-Key': apiKey } })
    ).json()) as { completed_at: string };
    return {
      transitions: report.stateTransitions,
      lagSeconds: (Date.parse(report.finishedAt) - Date.parse(campaign.completed_at)) / 1000,
      durationSeconds: report.durationSeconds,
    };
  } finally {
    await stack.close();
    await emu.close();
  }
}

export async function lifecycleBench(): Promise<BenchResult[]> {
  const adaptive = await campaign('adaptive');
  const fixed = await campaign('fixed-30s');
  const days = (adaptive.durationSeconds / 86_400).toFixed(1);
  const ratio = adaptive.transitions / fixed.transitions;
  return [
    {
      name: `lifecycle: state transitions for a 1000-contact campaign over ${days} simulated days, nightly window`,
      ratio,
      baseline: 'the same document polling every 30 s',
      detail: `${adaptive.transitions} vs ${fixed.transitions} transitions`,
      ...atMost(ratio, 0.1),
    },
    {
      name: 'lifecycle: lag from the API reaching zero pending to the workflow noticing',
      ratio: adaptive.lagSeconds / Math.max(1, fixed.lagSeconds),
      baseline: 'the 30 s polling loop’s lag',
      detail: `${adaptive.lagSeconds.toFixed(0)} s vs ${fixed.lagSeconds.toFixed(0)} s simulated`,
      ...atMost(adaptive.lagSeconds, 60, '60 s simulated, absolute'),
    },
  ];
}
