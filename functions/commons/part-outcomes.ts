import type { CampaignPlan } from './campaign-plan.ts';

/** A part (or follow-up round) whose campaign has ended, as close() knows it. */
export interface PartEnd {
  plan: CampaignPlan;
  /** The part's key (a follow-up round's own). */
  partKey: string;
  /** What names the part's report and exports: `1`, or `1-r2a` for a follow-up round. */
  label: string;
  campaignId: string;
  status: 'completed' | 'cancelled' | 'failed';
  /** When the part's lifecycle started: the calls list is read from here. */
  startedAt: Date;
  endedAt: Date;
  /** This execution's ARN: follow-up rounds start on the same state machine. */
  execution: string;
}

export interface FollowUpStarted {
  round: number;
  partKey: string;
  /** The outcomes its rule calls again, e.g. `no_answer, busy`. */
  outcomes: string[];
  contacts: number;
  /** The earliest start asked for; the round's lifecycle moves it into the next legal window. */
  notBefore: string;
  sheet: string;
  report: string;
}

/** The per-contact summary a part's report carries. */
export interface PartOutcomes {
  contacts: number;
  attempts: number;
  byLastStatus: Record<string, number>;
  exports: { csv: string; xlsx: string };
  /**
   * Numbers of this campaign that are on the suppression list now: intake admitted them, so they were suppressed
   * while it ran (an opt-out on a call, a contact event, an operator). A running vendor campaign cannot be edited,
   * so they may have been dialled by it; no follow-up round calls them.
   */
  suppressedMidCampaign: string[];
  followUp: {
    round: number;
    rootPartKey: string;
    rootReport: string;
    /** Rounds this part's end started. */
    started: FollowUpStarted[];
    /** Contacts a round would have called but left out, with why (suppressed, opted-out, daily-cap, weekly-cap). */
    skipped: { phone: string; reason: string; message?: string }[];
    /** Why no further round was started, when none was. */
    none: string | null;
  } | null;
}

/** What close() calls when a campaign has ended (functions/lifecycle/part-end/part-end.ts in AWS and locally). */
export interface OutcomeReporter {
  atPartEnd(end: PartEnd): Promise<PartOutcomes>;
}
