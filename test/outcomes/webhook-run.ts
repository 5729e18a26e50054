import { expect } from 'vitest';
import type { Call } from '#commons/voice-api/types.ts';
import { deliverEmulatorWebhooks } from '#local/stack/webhook-receiver.ts';
import { dynaliteClient } from '../helpers/dynalite-client.ts';
import { type PipelineFixture, uploadAndRun } from '../helpers/pipeline.ts';
import { xlsx } from '../helpers/sheets.ts';

/** A document client on the stack's dynalite. */
export const stackDb = (p: PipelineFixture) => dynaliteClient(p.stack.dynamo.endpoint);

/**
 * Runs one upload through the whole pipeline with the emulator's webhooks pointed at the stack's receiver, waits
 * until every delivery is handled, and answers the campaign's id and the emulator's calls of it.
 */
export async function runWithWebhooks(
  p: PipelineFixture,
  rows: (string | null)[][],
  name: string,
  settings: Record<string, unknown>,
): Promise<{ campaignId: string; calls: Call[]; reportPrefix: string }> {
  await deliverEmulatorWebhooks(p.f.emu.url, p.stack.webhooks, settings);
  const agent = await p.f.api.agents.create({ name, greeting_line: 'Hello from callsheet.' });
  const body = await xlsx([['Phone Number', 'Name', 'Custom Instruction'], ...rows]);
  const executions = await uploadAndRun(p, `incoming/${agent.id}/${name}.xlsx`, body, {
    'calling-window': 'daily 00:00-24:00',
    retries: '2',
  });
  expect(executions.map((e) => e.status)).toEqual(['SUCCEEDED']);
  await p.f.admin.advance(60); // the last events after a call ends
  await p.f.emu.core.webhooks.settled();
  await p.stack.webhooks.queue.idle();
  const state = await p.f.admin.state<{ calls: Call[]; campaigns: { id: string }[] }>();
  const campaign = state.campaigns.at(-1) as { id: string };
  return {
    campaignId: campaign.id,
    calls: state.calls.filter((c) => c.campaign_id === campaign.id),
    reportPrefix: JSON.parse(executions[0]?.input ?? '{}').plan.reportPrefix,
  };
}
