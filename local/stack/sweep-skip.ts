import type { WatchedCampaign } from '#lifecycle/safety-net/call-watch.ts';

/** Whether a campaign may be dialling now, or before the start it was given (the emulator's `mayDial`). */
export type MayDial = (campaignId: string, startsAt: number | null) => boolean;

/**
 * Whether the embedded stack may skip the sweeper's next round on the simulated clock, as its last round's quiet
 * answer allows: only while no workflow has acted since, and no campaign whose calls that round watched may be
 * dialling (resumed outside callsheet, its agent switched back on, its start moved earlier). Without `mayDial`
 * (a real Voice API) a round that watched calls is never skipped. AWS runs every round.
 */
export function sweepMaySkip(
  workflowActed: boolean,
  watching: readonly WatchedCampaign[],
  mayDial: MayDial | undefined,
): boolean {
  if (workflowActed) return false;
  if (watching.length === 0) return true;
  return mayDial !== undefined && !watching.some((c) => mayDial(c.campaignId, c.startsAt));
}
