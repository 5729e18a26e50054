import type { WindowRule } from './calling-window.ts';
import type { FollowUpPolicy } from './follow-up-policy.ts';

/**
 * Everything the campaign lifecycle needs to launch one part of an upload: the input of one state-machine
 * execution. Written by intake, read by the lifecycle; deterministic for a given upload so a repeated start
 * carries the identical input.
 */
export interface CampaignPlan {
  uploadId: string;
  bucket: string;
  part: {
    index: number;
    of: number;
    /** The part's .xlsx (exactly the API columns) in the bucket. */
    key: string;
    rows: number;
    /**
     * Every zone the part's numbers may ring in (several when their number range spans zones and no data narrows
     * it): the part is called only when its window is open in all of them. Never empty for a part intake launches.
     */
    zones: string[];
    /** zones[0], for display. */
    timeZone: string | null;
    /** The country of the part's numbers (one per part), whose legal calling hours apply. */
    country: string | null;
    /**
     * The states or provinces whose calling-hours rules apply to every number of the part as well (`US-FL`; several
     * when an area code serves more than one, every one of the country's when it is unknown). Absent in plans
     * written before rules by state: none.
     */
    regions?: string[];
  };
  agentId: string;
  campaign: {
    name: string;
    startDateTime: string | null;
    timeZone: string | null;
    retries: number;
  };
  /**
   * The upload's calling hours (null: the lifecycle applies the destination country's default) and its
   * holidays, which apply either way.
   */
  window: { rules: WindowRule[] | null; holidays: string[] };
  /** Where reports for this upload go: `reports/<upload id>/`. */
  reportPrefix: string;
  /**
   * Follow-up rounds the upload asked for (setting `follow-up`). Round 1 is the part intake launched; each later
   * round is a new campaign of the contacts its rules pick, started by the previous round's end.
   */
  followUp?: {
    policy: FollowUpPolicy;
    round: number;
    /** The part key of round 1: every round's report names it. */
    rootPartKey: string;
    /** This round's own part key (campaign record, execution name, report names); absent in round 1. */
    partKey?: string;
  };
}

/**
 * A part's lasting name: the name of its first execution (so Step Functions refuses a second start) and the key of
 * its campaign record. Upload ids are at most 57 characters, so every name stays within the 80 Step Functions allows.
 */
export const partKey = (uploadId: string, part: number | string): string => `${uploadId}-p${part}`;

/**
 * The upload and part a part's key names (`partKey`'s inverse). A follow-up round's plan keeps its root's upload
 * and part (part-end.ts), so its key (`followUpKey`) names them too.
 */
export function partOfKey(key: string): { uploadId: string; part: number } | null {
  const m = /^(.+)-p(\d+)(?:-r\d+[a-z])*$/.exec(key);
  return m ? { uploadId: m[1] as string, part: Number(m[2]) } : null;
}

/**
 * A part's label in report names (`1`, or `1-r2a` for a follow-up round): its key past `<upload>-p`. The inverse
 * is `partKey(uploadId, label)`.
 */
export const labelOfPartKey = (uploadId: string, key: string): string => key.slice(partKey(uploadId, '').length);

/**
 * The part key of a follow-up round: its parent's key, the round and the rule group (a, b, …). Derived only from
 * the parent and the plan, so a retried finish starts the same execution name and Step Functions refuses the
 * second. Three rounds add at most 12 characters: still within 80 with a continuation suffix.
 */
export const followUpKey = (parentKey: string, round: number, group: number): string =>
  `${parentKey}-r${round}${String.fromCharCode(97 + group)}`;

/** The execution that continues a part's lifecycle for the n-th time. */
export const continuationName = (key: string, generation: number): string => `${key}-g${generation}`;

/** arn:…:execution:<machine>:<name> → arn:…:stateMachine:<machine> (continuations and follow-up rounds). */
export function stateMachineOf(executionArn: string): string {
  const [arn, partition, service, region, account, , machine] = executionArn.split(':');
  return [arn, partition, service, region, account, 'stateMachine', machine].join(':');
}

/** The part an execution belongs to, from its name (first execution or continuation). */
export const partKeyOfExecution = (name: string): string => name.replace(/-g\d+$/, '');
