import type { ObjectStore } from '#commons/aws/object-store.ts';
import type { ContactOutcome } from '#commons/outcomes/call-outcome.ts';
import type { OutcomeService } from '#commons/outcomes/outcome-service.ts';
import { partReportFiles } from '#commons/report-keys.ts';
import { outcomesCsv, outcomesXlsx } from './export.ts';

export interface OutcomeReportInput {
  bucket: string;
  /** The upload's report folder, `reports/<upload id>/` (CampaignPlan.reportPrefix). */
  reportPrefix: string;
  /** The part's label: `1`, or `1-r2a` for a follow-up round (functions/commons/part-outcomes.ts). */
  part: number | string;
  campaignId: string;
  /** When the campaign started: the calls list is read from here. */
  since: Date;
}

export interface OutcomeReport {
  contacts: ContactOutcome[];
  /** Numbers that opted out during the campaign (already suppressed). */
  suppressedMidCampaign: string[];
  keys: { csv: string; xlsx: string };
}

/**
 * What the lifecycle calls when a campaign has finished: fills outcomes in from the calls list (whatever webhooks
 * missed, and failure reasons), then writes the per-contact table next to the part's report as
 * `outcomes-part-<n>.csv` and `.xlsx`. Safe to repeat: the same campaign writes the same files.
 */
export async function writeOutcomeReport(
  outcomes: OutcomeService,
  objects: ObjectStore,
  input: OutcomeReportInput,
): Promise<OutcomeReport> {
  const { contacts } = await outcomes.reconcileOutcomes(input.campaignId, input.since);
  const files = partReportFiles(input.reportPrefix, input.part);
  const keys = { csv: files.outcomesCsv, xlsx: files.outcomesXlsx };
  await objects.put(input.bucket, keys.csv, outcomesCsv(contacts), 'text/csv; charset=utf-8');
  await objects.put(
    input.bucket,
    keys.xlsx,
    await outcomesXlsx(contacts),
    'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  );
  return { contacts, suppressedMidCampaign: contacts.filter((c) => c.optOutPhrase).map((c) => c.phone), keys };
}
