import { type CampaignPlan, partKey } from '#commons/campaign-plan.ts';
import { type AppliedRule, DEFAULT_LEGAL_HOURS, type LegalHoursTable } from '#commons/legal-hours.ts';
import { partFileKey, reportPrefix } from '#commons/report-keys.ts';
import { executionName, type UploadRef } from '#commons/upload-ref.ts';
import type { Agent } from '#commons/voice-api/types.ts';
import { partWindow } from '#commons/window-plan.ts';
import type { IntakeDefaults } from './config.ts';
import type { ZoneSource } from './time-zones.ts';
import type { ValidationOutcome } from './validate-upload.ts';

const ZONE_WORDS: Record<ZoneSource, (zones: string[]) => string> = {
  number: () => "the numbers' own area (phone-number time-zone data)",
  country: () => "the numbers' area, whose time zones all keep the same clock",
  several: (zones) =>
    `the numbers' range spans ${zones.length} time zones (${zones.join(', ')}) and no data narrows it: called only when the window is open in all of them`,
  sheet: (zones) => `the rows' Time Zone cell, which picked ${zones[0]} among the time zones the numbers' range spans`,
  'sheet-added': (zones) =>
    `the numbers' own time zones plus the one the rows' Time Zone cell names, which the numbers' data does not list (a number kept after a move): ${zones.join(', ')}, called only when the window is open in all of them`,
};

/**
 * What the intake report says of a part's hours: the window it will be called in, whether legal hours cut it, and
 * every rule that shaped it with its source, so an auditor can see why any call of the part was allowed.
 */
export interface PartHours {
  window: string;
  clippedToLegalHours: boolean;
  rules: AppliedRule[];
}

function hoursOf(plan: CampaignPlan, legal: LegalHoursTable, nowMs: number): PartHours {
  const w = partWindow(plan, legal, nowMs);
  return w.ok
    ? { window: w.window.description, clippedToLegalHours: w.window.clipped, rules: w.window.legal }
    : { window: `not callable: ${w.message}`, clippedToLegalHours: false, rules: [] };
}

/** One execution input per part; derived only from the upload, so every retry builds the same plans. */
export function planParts(
  id: string,
  ref: UploadRef,
  validation: ValidationOutcome,
  agent: Agent,
  defaults: IntakeDefaults,
  legal: LegalHoursTable = DEFAULT_LEGAL_HOURS,
  nowMs = Date.now(),
): { executionName: string; zoneDecidedBy: string; hours: PartHours; plan: CampaignPlan }[] {
  const { settings, parts } = validation;
  const baseName = settings.campaignName ?? (ref.key.split('/').pop() ?? id).replace(/\.[^.]*$/, '');
  return parts.map((part) => {
    const plan: CampaignPlan = {
      uploadId: id,
      bucket: ref.bucket,
      part: {
        index: part.index,
        of: parts.length,
        key: partFileKey(id, part.index),
        rows: part.contacts.length,
        zones: part.zones,
        timeZone: part.timeZone,
        country: part.country,
        ...(part.regions.length > 0 ? { regions: [...part.regions] } : {}),
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
      ...(settings.followUp
        ? { followUp: { policy: settings.followUp, round: 1, rootPartKey: partKey(id, part.index) } }
        : {}),
    };
    return {
      executionName: executionName(id, part.index),
      zoneDecidedBy: ZONE_WORDS[part.zoneSource](part.zones),
      hours: hoursOf(plan, legal, nowMs),
      plan,
    };
  });
}
