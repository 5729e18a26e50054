import type { ObjectStore } from '#commons/aws/object-store.ts';
import type { CampaignPlan } from '#commons/campaign-plan.ts';
import type { VoiceApiClient } from '#commons/voice-api/client.ts';

/**
 * A campaign of this agent calling one of this part's numbers since the lost create is this part's: the API
 * cannot list campaigns, so the call log is the only place it shows.
 */
export async function findCampaignByCalls(
  api: Pick<VoiceApiClient, 'calls'>,
  objects: ObjectStore,
  plan: CampaignPlan,
  since: string,
): Promise<string | null> {
  const file = await objects.get(plan.bucket, plan.part.key);
  if (!file) return null;
  // Loaded here, not at cold start: only a lost create reads the part file (the .xlsx reader is ~45 KiB).
  const { readPartFile } = await import('#commons/spreadsheet/part-file.ts');
  const phones = new Set((await readPartFile(file.bytes)).map((r) => r.phone));
  for await (const call of api.calls.listAll({ start_date: since })) {
    if (call.campaign_id && call.agent_id === plan.agentId && phones.has(call.phone_number ?? ''))
      return call.campaign_id;
  }
  return null;
}
