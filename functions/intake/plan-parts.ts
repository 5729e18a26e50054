import type { CampaignPlan } from '../commons/campaign-plan.ts';
import type { Agent } from '../commons/voice-api/types.ts';
import type { IntakeDefaults } from './intake-service.ts';
import type { Part } from './parts.ts';
import { partKey, reportPrefix } from './report.ts';
import type { ZoneSource } from './time-zones.ts';
import { executionName, type UploadRef } from './upload-ref.ts';
import type { ValidationOutcome } from './validate-upload.ts';

const ZONE_WORDS: Record<ZoneSource, string> = {
  number: "the numbers' own area (phone-number time-zone data)",
  country: "the numbers' country, which keeps one clock",
  setting: "the upload's time zone setting (the numbers span several zones)",
  default: "the deployment's default time zone (the numbers span several zones)",
};

function mostCommonCountry(part: Part): string | null {
  const counts = new Map<string, number>();
  for (const c of part.contacts) if (c.country) counts.set(c.country, (counts.get(c.country) ?? 0) + 1);
  let best: string | null = null;
  for (const [country, n] of counts) if (best === null || n > (counts.get(best) ?? 0)) best = country;
  return best;
}

/** One execution input per part; derived only from the upload, so every retry builds the same plans. */
export function planParts(
  id: string,
  ref: UploadRef,
  validation: ValidationOutcome,
  agent: Agent,
  defaults: IntakeDefaults,
): { executionName: string; zoneDecidedBy: string; plan: CampaignPlan }[] {
  const { settings, parts } = validation;
  const baseName = settings.campaignName ?? (ref.key.split('/').pop() ?? id).replace(/\.[^.]*$/, '');
  return parts.map((part) => ({
    executionName: executionName(id, part.index),
    zoneDecidedBy: part.zoneSource ? ZONE_WORDS[part.zoneSource] : 'not decided: no zone data and no default',
    plan: {
      uploadId: id,
      bucket: ref.bucket,
      part: {
        index: part.index,
        of: parts.length,
        key: partKey(id, part.index),
        rows: part.contacts.length,
        zones: part.timeZone ? [part.timeZone] : [],
        timeZone: part.timeZone,
        country: mostCommonCountry(part),
      },
      agentId: agent.id,
      campaign: {
        name: parts.length > 1 ? `${baseName} (part ${part.index} of ${parts.length})` : baseName,
        startDateTime: settings.start?.dateTime ?? null,
        timeZone: settings.start?.timeZone ?? null,
        retries: settings.retries ?? defaults.retries,
      },
      window: { rules: settings.window ?? null, holidays: settings.holidays ?? [] },
      reportPrefix: reportPrefix(id),
    },
  }));
}
