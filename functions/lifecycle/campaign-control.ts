import { nextOpening, type PartWindow } from '#commons/window-plan.ts';
import { type CampaignRecord, type CampaignStore, isEnded, type ManualControl } from './campaign-store.ts';

/**
 * What an operator asks of a running campaign. The wish is recorded; the workflow acts on it at its next step,
 * through the API. A manual pause outranks the calling window; a resume never opens a closed window.
 */
export class CampaignControl {
  constructor(
    private readonly store: CampaignStore,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** Records the wish; answers the part, the campaign's id (also when given the part's key) and its status. */
  async request(
    campaignId: string,
    wanted: ManualControl,
  ): Promise<{ partKey: string; campaignId: string; status: string }> {
    const partKey = await this.partOf(campaignId);
    if (!partKey) {
      // The `-` campaign lists show for a part whose campaign is not created yet, or such a part's key.
      const uncreated = campaignId === '-' ? 'a part shown with -' : `part ${campaignId}`;
      const part = campaignId === '-' ? null : await this.store.get(campaignId);
      // Held or failed before its campaign was created: none ever will be, and nothing dials for it.
      if (part && !part.campaignId && isEnded(part))
        throw new Error(
          `part ${campaignId} has ended (${part.status}) without a campaign on the Voice API: nothing dials for it`,
        );
      if (campaignId === '-' || (part && !part.campaignId))
        throw new Error(
          `${uncreated} has no campaign on the Voice API yet (it is being created): ask again once \`callsheet campaign list\` shows its campaign id`,
        );
      throw new Error(`callsheet has no campaign ${campaignId} (check the id in the part report)`);
    }
    const record = await this.store.get(partKey);
    refuseOver(campaignId, record, wanted);
    // Written only if still so: a cancel asked meanwhile (another operator) is not overwritten.
    if (!(await this.store.setControl(partKey, wanted, this.now()))) {
      refuseOver(campaignId, await this.store.get(partKey), wanted);
      throw new Error(`campaign ${campaignId} changed while this was asked: ask again`);
    }
    const { status, campaignId: id } = record as CampaignRecord;
    return { partKey, campaignId: id ?? campaignId, status };
  }

  /** The part a campaign id names, or a part key given instead (as `campaign show` takes either). */
  private async partOf(campaignIdOrPart: string): Promise<string | null> {
    const byCampaign = await this.store.partOfCampaign(campaignIdOrPart);
    if (byCampaign || campaignIdOrPart === '-') return byCampaign;
    return (await this.store.get(campaignIdOrPart))?.campaignId ? campaignIdOrPart : null;
  }
}

/** Throws when the part has ended, or when a cancel is asked for and this wish would replace it. */
function refuseOver(campaignId: string, record: CampaignRecord | null, wanted: ManualControl): void {
  if (!record || isEnded(record))
    throw new Error(`campaign ${campaignId} has already ended (${record?.status ?? 'unknown'})`);
  if (record.control?.wanted === 'cancel' && wanted !== 'cancel')
    throw new Error(
      `campaign ${campaignId} is being cancelled (asked at ${record.control.at}): a cancel is final, so it is not ${wanted === 'resume' ? 'resumed' : 'paused'}; to call its numbers after all, upload the sheet again with "repeat upload: yes" (docs/sheets.md)`,
    );
}

/** Letting go of the brake an ended part holds: the register, and the agent when a Voice API client is given. */
export interface BrakeLetGo {
  agentId: string;
  /** Whether the part held the brake (false: nothing was let go). */
  held: boolean;
  /** How many other parts still hold the brake on the agent. */
  othersHolding: number;
  /**
   * `reactivated`: the agent is active again; `still-inactive`: it was not, or could not be, switched on; `gone`: the
   * API has no such agent (deleted, or a restarted local emulator's); null: not tried.
   */
  agent: 'reactivated' | 'still-inactive' | 'gone' | null;
  message: string;
}

/** What letting go of a brake asks of the Voice API (CampaignSafety): the campaign paused first, then the brake. */
export interface BrakeLetGoApi {
  /** `how`: `not_active` when the campaign is gone or over (nothing can resume it), `paused` when it is paused. */
  confirmPaused(campaignId: string): Promise<{ ok: boolean; message: string; how?: 'paused' | 'not_active' }>;
  releaseBrake(agentId: string, holder: string): Promise<{ ok: boolean; message: string; gone?: boolean }>;
}

/**
 * An operator lets go of the brake a part holds that has ended (its workflow stopped, failed or was cancelled with a
 * resume in doubt): nobody else ever would, and while it holds, the agent stays off for every part that shares it.
 * A running part's brake is its workflow's. With `api` (the API can be reached) the campaign is paused and
 * confirmed first, since a part may have ended held by the brake alone, and the agent switched on would let it dial
 * at once, in or out of its window; the last holder then switches the agent on. Without, the register alone.
 */
export async function letGoOfBrake(
  store: CampaignStore,
  campaignIdOrPart: string,
  api: BrakeLetGoApi | null,
  now: Date = new Date(),
): Promise<BrakeLetGo> {
  const partKey = (await store.partOfCampaign(campaignIdOrPart)) ?? campaignIdOrPart;
  const record = await store.get(partKey);
  if (!record) throw new Error(`callsheet has no campaign ${campaignIdOrPart} (check the id in the part report)`);
  if (!isEnded(record))
    throw new Error(
      `campaign ${campaignIdOrPart} is still ${record.status}: its workflow lets go of its brake at the opening`,
    );
  const agentId = record.watch?.agentId;
  if (!agentId) throw new Error(`campaign ${campaignIdOrPart} has no agent on record: it never held a brake`);
  if (!(await store.isHeldBy(agentId, partKey)))
    return { agentId, held: false, othersHolding: await store.holders(agentId), agent: null, message: 'no brake held' };
  if (!api) {
    // Nothing here can show the campaign gone: a resume in doubt is waited out.
    const doubt = doubtLeft(record, now);
    if (doubt) throw new Error(`campaign ${campaignIdOrPart}: ${doubt}`);
    const left = await store.release(agentId, partKey);
    await store.appendTimeline(partKey, { at: now.toISOString(), event: 'brake released', reason: 'operator' });
    return { agentId, held: true, othersHolding: left, agent: null, message: 'let go in the register' };
  }
  const campaignId = record.campaignId ?? null;
  if (campaignId === null && (record.create?.state === 'sent' || record.create?.state === 'ambiguous'))
    throw new Error(
      `campaign ${campaignIdOrPart}: its create was sent but callsheet never learnt the campaign's id, so it cannot ` +
        `pause it; the brake stays on. Pause agent ${agentId}'s campaigns in the vendor dashboard first.`,
    );
  if (campaignId !== null) {
    const paused = await api.confirmPaused(campaignId);
    if (!paused.ok)
      throw new Error(
        `campaign ${campaignId} could not be confirmed paused (${paused.message}), so the brake stays on and it ` +
          'dials nobody. Run this again once the Voice API pauses it (a scheduled campaign cannot be paused: ' +
          'delete it in the vendor dashboard first).',
      );
    // Paused now, but a resume whose answer was lost may still be carried out, and no workflow would see it dial.
    const doubt = paused.how === 'not_active' ? null : doubtLeft(record, now);
    if (doubt) throw new Error(`campaign ${campaignId} is paused, but ${doubt}`);
    // Confirmed paused: the sweeper, which tries the pause of a part the brake alone held, has nothing left to do.
    await store.markSecured(partKey, {
      at: now.toISOString(),
      by: 'operator',
      outcome: 'paused',
      reason: 'campaign release: the campaign confirmed paused before the brake was let go',
      pauseHeld: true,
    });
  }
  const done = await api.releaseBrake(agentId, partKey);
  // One read of the register: who still holds the brake, and whether this part let go (then on its timeline, so
  // `campaign show` and `status` no longer read as braked).
  const holders = await store.holdersOf(agentId);
  if (!holders.includes(partKey))
    await store.appendTimeline(partKey, { at: now.toISOString(), event: 'brake released', reason: 'operator' });
  const left = holders.length;
  return {
    agentId,
    held: true,
    othersHolding: left,
    agent: left > 0 ? null : done.ok ? 'reactivated' : done.gone ? 'gone' : 'still-inactive',
    message: done.message,
  };
}

const DOUBT_HORIZON_MS = 14 * 86_400_000;

/**
 * When a resume sent at `sentMs` whose answer was lost is taken never to be, as the workflow takes it
 * (docs/architecture.md, "A resume in doubt"): at the opening after the close that follows it. Null when the
 * window does not open again within 14 days.
 */
export function doubtEndsAt(window: PartWindow, sentMs: number): number | null {
  const stretch = nextOpening(window, sentMs, 0, DOUBT_HORIZON_MS);
  if (!stretch) return null;
  return nextOpening(window, stretch.closesAt + 1, 0, DOUBT_HORIZON_MS)?.opensAt ?? null;
}

/**
 * Why a brake must stay while a resume whose answer was lost may still be carried out (it would have the campaign
 * dial with no workflow watching), dated by the last resume sent; null when there is no such resume or its doubt
 * has ended (`doubtEndsAt`).
 */
function doubtLeft(record: CampaignRecord, now: Date): string | null {
  const first = record.watch?.resumeInDoubt;
  if (first === undefined || !record.watch) return null;
  // One sent after the first lost one may have lost its answer too.
  const last = [first, record.lastResumeSentAt ?? first].sort().at(-1) as string;
  const ends = doubtEndsAt(record.watch.window, Date.parse(last));
  if (ends !== null && now.getTime() >= ends) return null;
  return (
    `a resume whose answer was lost (sent at ${first}${last !== first ? `, the last resume at ${last}` : ''}) may ` +
    'still be carried out by the Voice API, which would have it dial with no workflow watching; so the brake stays ' +
    'on. ' +
    (ends === null
      ? 'Its window does not open again in the next 14 days: '
      : `callsheet takes a resume not carried out by the next opening (${new Date(ends).toISOString()}) never to ` +
        'be: run this again after then, or ') +
    'cancel or delete the campaign in the vendor dashboard, then run this again with the Voice API reachable.'
  );
}
