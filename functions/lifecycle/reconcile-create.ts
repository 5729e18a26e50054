import type { ObjectStore } from '../commons/aws/object-store.ts';
import type { CampaignPlan } from '../commons/campaign-plan.ts';
import { cellText } from '../commons/spreadsheet/cell.ts';
import { DEFAULT_LIMITS } from '../commons/spreadsheet/limits.ts';
import { readPackage } from '../commons/spreadsheet/xlsx-package.ts';
import { readSharedStrings } from '../commons/spreadsheet/xlsx-shared-strings.ts';
import { worksheetRows } from '../commons/spreadsheet/xlsx-worksheet.ts';
import { inspectXlsx } from '../commons/spreadsheet/zip-guard.ts';
import type { VoiceApiClient } from '../commons/voice-api/client.ts';

/**
 * The numbers of a part file (intake wrote it: one sheet, `Phone Number` in the first column). Read with intake's
 * own streaming .xlsx reader, so the lifecycle bundle carries neither exceljs nor SheetJS.
 */
async function partPhones(bytes: Buffer): Promise<Set<string>> {
  const pkg = readPackage((await inspectXlsx(bytes, DEFAULT_LIMITS)).entries);
  const part = pkg.sheets[0]?.part;
  const phones = new Set<string>();
  if (!part) return phones;
  const strings = await readSharedStrings(pkg.sharedStrings, DEFAULT_LIMITS);
  for await (const batch of worksheetRows(part, strings))
    for (const row of batch) if (row.row > 1) phones.add(cellText(row.cells[0]));
  return phones;
}

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
  const phones = await partPhones(file.bytes);
  for await (const call of api.calls.listAll({ start_date: since })) {
    if (call.campaign_id && call.agent_id === plan.agentId && phones.has(call.phone_number ?? ''))
      return call.campaign_id;
  }
  return null;
}
