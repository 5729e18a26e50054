import type { CampaignPlan } from '#commons/campaign-plan.ts';
import type { AppliedRule } from '#commons/legal-hours.ts';
import type { FollowUpStarted, PartOutcomes } from '#commons/part-outcomes.ts';
import type { CampaignStats } from '#commons/voice-api/types.ts';
import type { PartWindow } from '#commons/window-plan.ts';
import type { CampaignRecord, TimelineEntry } from './campaign-store.ts';
import type { Failure } from './lifecycle-state.ts';

/** The reason of a brake a close pulled as well as pausing: a resume whose answer was lost could still land. */
export const RESUME_IN_DOUBT = 'resume_in_doubt';

export type PartEndStatus = 'completed' | 'cancelled' | 'failed' | 'held';

/**
 * A part's report, `reports/<upload>/part-<label>.json`: written once by the lifecycle when the part ends, read by
 * `callsheet run`, `report` and the report pages, and sent as the detail of the completion event.
 */
export interface PartReport {
  uploadId: string;
  part: number;
  of: number;
  campaignId: string | null;
  campaignName: string;
  status: PartEndStatus;
  failure: Failure | null;
  secured: CampaignRecord['secured'] | null;
  stats: CampaignStats | null;
  /** The window the part was called in, and every rule that shaped it with its source. */
  window: {
    timeZone: string | null;
    zones: string[];
    hours: string;
    source: string;
    clipped: boolean;
    regions: string[];
    rules: AppliedRule[];
    holidayScopes: string[];
  } | null;
  closingMarginMinutes: number;
  pauses: { at: string; reason: string }[];
  resumes: { at: string }[];
  /** The agent switched off (`brake`, reason `resume_in_doubt` or why the pause failed) and on again. */
  brakes: { at: string; event: string; reason: string }[];
  stateTransitions: number;
  executions: number;
  startedAt: string;
  finishedAt: string;
  durationSeconds: number;
  outcomes: PartOutcomes | { error: string } | null;
  /** A follow-up round's number and its root part; the root part's report lists the rounds started after it. */
  round?: number;
  rootPartKey?: string;
  followUpRounds?: FollowUpStarted[];
}

export interface PartEnd {
  plan: CampaignPlan;
  status: PartEndStatus;
  failure: Failure | null;
  stats: CampaignStats | null;
  record: CampaignRecord | null;
  window: PartWindow | null;
  campaignId: string | null;
  closingMarginMs: number;
  /** State transitions of every execution of the part, and how many executions it took. */
  transitions: number;
  executions: number;
  startedMs: number;
  now: Date;
  outcomes: PartReport['outcomes'];
}

const iso = (ms: number) => new Date(ms).toISOString();

/** The report of a part that ended, from what the lifecycle knows at its end. */
export function buildPartReport(end: PartEnd): PartReport {
  const { plan, window, now, outcomes } = end;
  const timeline: TimelineEntry[] = end.record?.timeline ?? [];
  return {
    uploadId: plan.uploadId,
    part: plan.part.index,
    of: plan.part.of,
    campaignId: end.campaignId,
    campaignName: plan.campaign.name,
    status: end.status,
    failure: end.failure,
    secured: end.record?.secured ?? null,
    stats: end.stats,
    window: window
      ? {
          timeZone: window.zones[0] ?? null,
          zones: window.zones,
          hours: window.description,
          source: window.source,
          clipped: window.clipped,
          // Windows carried from before rules by scope have none of these.
          regions: window.regions ?? [],
          rules: window.legal ?? [],
          holidayScopes: window.holidayScopes ?? [],
        }
      : null,
    closingMarginMinutes: end.closingMarginMs / 60_000,
    pauses: timeline.filter((t) => t.event === 'pause').map((t) => ({ at: t.at, reason: t.reason })),
    resumes: timeline.filter((t) => t.event === 'resume').map((t) => ({ at: t.at })),
    brakes: timeline
      .filter((t) => t.event === 'brake' || t.event === 'brake released')
      .map((t) => ({ at: t.at, event: t.event, reason: t.reason })),
    stateTransitions: end.transitions,
    executions: end.executions,
    startedAt: iso(end.startedMs),
    finishedAt: now.toISOString(),
    durationSeconds: Math.round((now.getTime() - end.startedMs) / 1000),
    outcomes,
    ...(plan.followUp
      ? {
          round: plan.followUp.round,
          rootPartKey: plan.followUp.rootPartKey,
          // The root part's report lists every round (later rounds add themselves to it when they start).
          ...(plan.followUp.round === 1 && outcomes && 'followUp' in outcomes
            ? { followUpRounds: outcomes.followUp?.started ?? [] }
            : {}),
        }
      : {}),
  };
}
