import type { CallsApi } from '#commons/voice-api/calls.ts';
import type { Call } from '#commons/voice-api/types.ts';
import type { CampaignRecord, EndedPart, Secured } from '../campaign-store.ts';

/** What the sweeper reads of the account's calls: the list, newest first, a page at a time. */
export type CallLog = Pick<CallsApi, 'listAll'>;

/**
 * A part whose campaign must not be dialling, and the span in which a call of it is stray: after `since` and before
 * `until`. Either held paused for a closed window by its workflow: from its pausing look (`quietSince`) to the
 * sweep's own start, never closer than `CALL_WATCH_SKEW_MS` to the window's next opening (a resume or a scheduled
 * start there is the workflow's, on a vendor clock that may run ahead). Or ended without completing (`ended`, its
 * status), its campaign left paused with contacts not yet called: from its end (`endedSince`) to the sweep's start,
 * whatever the hour, for `ENDED_WATCH_DAYS`.
 */
export interface WatchedPart {
  partKey: string;
  campaignId: string;
  since: number;
  until: number;
  /** The scheduled start callsheet gave the campaign, when it has not started yet. */
  startsAt: number | null;
  /** How the part ended, for one that did; one held for the night comes with its record as the sweep read it. */
  ended?: CampaignRecord['status'];
  record?: CampaignRecord;
}

/** A watched part's campaign as the sweep answers it, with the scheduled start callsheet gave it, if any. */
export interface WatchedCampaign {
  campaignId: string;
  startsAt: number | null;
}

/** A watched part whose campaign placed a call it must not have. */
export interface StrayCall {
  part: WatchedPart;
  callId: string;
  /** When the call started (or was created, when the API gives no start). */
  at: string;
}

/**
 * How many calls a sweep reads at most (three pages of 100). The list is newest first, so a campaign that goes on
 * dialling shows among the newest calls even when the account places more than this between sweeps.
 */
export const CALL_WATCH_LIMIT = 300;
/**
 * A call this close to the look that paused the campaign, or to the next opening, is not stray: the look's time is
 * taken before its pause is sent (which may take two tries and a wait for the budget), and the vendor's clock may
 * disagree with AWS's.
 */
export const CALL_WATCH_SKEW_MS = 120_000;
/**
 * How long the campaign of a part that ended without completing is watched. Its vendor campaign stays paused (its
 * call logs serve the report), so a resume in the vendor's dashboard would dial its remaining contacts at any hour,
 * with no workflow to pause it at the close. A week of sweeps reads the calls list each round; after that, nobody
 * watches it (docs/operations.md says to cancel such a campaign in the dashboard too).
 */
export const ENDED_WATCH_DAYS = 7;

/**
 * `CALL_WATCH_SKEW_MS` after `stopped` (when the campaign was paused), or after the safety net's last securing when
 * later (a call it already acted on is not acted on twice).
 */
function strayAfter(stopped: string | undefined, secured: Secured | undefined): number {
  return Math.max(Date.parse(stopped ?? '') || 0, Date.parse(secured?.at ?? '') || 0) + CALL_WATCH_SKEW_MS;
}

/** Since when a part held for the night must not have dialled: from the workflow's last look, which paused it. */
export const quietSince = (record: CampaignRecord): number => strayAfter(record.watch?.observedAt, record.secured);

/** Since when a part that ended must not have dialled: from its end (the workflow, or the guard, paused it first). */
export const endedSince = (part: Pick<EndedPart, 'finishedAt' | 'secured'>): number =>
  strayAfter(part.finishedAt, part.secured);

/**
 * The parts among `watched` whose campaign placed a call after its `since` and before its `until`: the campaign was
 * resumed, or started, behind callsheet's back. One per part, its latest call.
 */
export function strayCalls(watched: WatchedPart[], calls: Call[]): StrayCall[] {
  const stray: StrayCall[] = [];
  for (const part of watched) {
    const { campaignId, since, until } = part;
    let latest: { id: string; at: number } | null = null;
    for (const call of calls) {
      if (call.campaign_id !== campaignId) continue;
      const at = Date.parse(call.started_at ?? call.created_at ?? '');
      if (!(at > since && at < until) || (latest && latest.at >= at)) continue;
      latest = { id: call.id, at };
    }
    if (latest) stray.push({ part, callId: latest.id, at: new Date(latest.at).toISOString() });
  }
  return stray;
}

/** The calls created since `since`, newest first, at most `CALL_WATCH_LIMIT` (no page is asked for past them). */
export async function recentCalls(log: CallLog, since: Date): Promise<Call[]> {
  const calls: Call[] = [];
  for await (const call of log.listAll({ start_date: since })) {
    calls.push(call);
    if (calls.length >= CALL_WATCH_LIMIT) break;
  }
  return calls;
}
