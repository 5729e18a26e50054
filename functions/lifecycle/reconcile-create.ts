import type { ObjectStore } from '../commons/aws/object-store.ts';
import type { CampaignPlan } from '../commons/campaign-plan.ts';
import type { VoiceApiClient } from '../commons/voice-api/client.ts';

/**
 * A campaign of this agent calling one of this part's numbers since the lost create is this part's: the API
 * cannot list campaigns, so the call log is the only place it shows. exceljs is loaded here, on demand: no other
 * step needs it, and it is most of the bundle's load time.
 */
export async function findCampaignByCalls(
  api: Pick<VoiceApiClient, 'calls'>,
  objects: ObjectStore,
  plan: CampaignPlan,
  since: string,
): Promise<string | null> {
  const file = await objects.get(plan.bucket, plan.part.key);
  if (!file) return null;
  const { default: ExcelJS } = await import('exceljs');
  const wb = new ExcelJS.Workbook();
  await wb.xlsx.load(file.bytes as unknown as ArrayBuffer);
  const phones = new Set<string>();
  wb.worksheets[0]?.eachRow((row, n) => {
    if (n > 1) phones.add(String(row.getCell(1).value ?? ''));
  });
  for await (const call of api.calls.listAll({ start_date: since })) {
    if (call.campaign_id && call.agent_id === plan.agentId && phones.has(call.phone_number ?? ''))
      return call.campaign_id;
  }
  return null;
}
