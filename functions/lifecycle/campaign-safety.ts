import { ConflictError, NotFoundError } from '#commons/voice-api/errors.ts';
import type { CampaignStats } from '#commons/voice-api/types.ts';

/** The two levers the contract gives over a campaign that must stop dialling. */
export interface CampaignLever {
  stats(campaignId: string): Promise<CampaignStats>;
  pause(campaignId: string): Promise<unknown>;
}

/** The agent switch: an inactive agent cannot be used for calls or campaigns (contract, States). */
export interface AgentSwitch {
  get(agentId: string): Promise<{ is_active?: boolean }>;
  toggle(agentId: string): Promise<unknown>;
}

/** Who holds an agent's brake, shared by every part that uses the agent (DynamoDB in AWS). */
export interface BrakeRegister {
  /** Adds the holder; answers whether it was not holding before. */
  hold(agentId: string, holder: string, now: Date): Promise<boolean>;
  /** Lets go and answers how many holders remain. */
  release(agentId: string, holder: string): Promise<number>;
  holders(agentId: string): Promise<number>;
}

/** Where safety actions are reported: a log line and a metric an alarm can watch. */
export interface SafetySignals {
  action(
    by: 'workflow' | 'secure-step' | 'guard' | 'sweeper',
    what: 'paused' | 'not_active' | 'braked' | 'brake_released' | 'unconfirmed',
    details: Record<string, unknown>,
  ): void;
}

export type SecureOutcome = 'paused' | 'not_active' | 'braked' | 'unconfirmed';

/**
 * What securing achieved. `pauseHeld`: the campaign itself is paused (or not active); false when only the brake
 * keeps it from dialling, which holds only while nobody switches the agent back on.
 */
export interface SecureResult {
  outcome: SecureOutcome;
  message: string;
  pauseHeld: boolean;
}

export interface SecureTarget {
  /** Null when the campaign's id is unknown (a create whose answer was lost): only the brake can help. */
  campaignId: string | null;
  agentId: string;
  /** The part, as the brake's holder. */
  holder: string;
}

const TOGGLE_TRIES = 3;

/**
 * Brings a vendor campaign to its safe state: not dialling. Pause it; a 409 or a lost answer is checked against
 * the stats; when the pause cannot be confirmed and the caller says the close is near, the agent is deactivated
 * (the brake). Never throws: the outcome says what was achieved, so every caller can decide what comes next.
 */
export class CampaignSafety {
  constructor(
    private readonly campaigns: CampaignLever,
    private readonly agents: AgentSwitch,
    private readonly brakes: BrakeRegister,
    private readonly signals: SafetySignals,
    private readonly now: () => Date,
    /**
     * The switch a release goes through: letting go of the brake makes nothing safer, so it need not (and must
     * not) spend what pauses and the brake itself are kept; the lifecycle's own share.
     */
    private readonly releaseAgents: AgentSwitch = agents,
  ) {}

  /**
   * `brakeAnyway`: brake even when the pause holds (a resume whose answer was lost could land after it). The
   * outcome is then `braked` when the brake holds, else `unconfirmed` (what was asked is not achieved; the caller
   * tries again).
   */
  async secure(
    target: SecureTarget,
    by: Parameters<SafetySignals['action']>[0],
    options: { brakeOnFailure: boolean; brakeAnyway?: boolean; reason: string },
  ): Promise<SecureResult> {
    const details = { ...target, reason: options.reason };
    let message = 'no campaign id to pause';
    let paused: Awaited<ReturnType<CampaignSafety['pause']>> | null = null;
    if (target.campaignId) {
      paused = await this.pause(target.campaignId);
      if (paused.ok) this.signals.action(by, paused.how, details);
      if (paused.ok && !options.brakeAnyway) return { outcome: paused.how, message: paused.message, pauseHeld: true };
      message = paused.message;
    }
    if (options.brakeOnFailure || options.brakeAnyway) {
      const braked = await this.engageBrake(target.agentId, target.holder);
      if (braked.ok) {
        this.signals.action(by, 'braked', paused?.ok ? details : { ...details, pauseError: message });
        return {
          outcome: 'braked',
          message: `${paused?.ok ? message : `pause unconfirmed (${message})`}; agent ${target.agentId} deactivated`,
          pauseHeld: paused?.ok === true,
        };
      }
      message = `${message}; brake: ${braked.message}`;
    }
    this.signals.action(by, 'unconfirmed', { ...details, error: message });
    return { outcome: 'unconfirmed', message, pauseHeld: false };
  }

  /**
   * Pauses the campaign and makes sure, signalling nothing: an operator's pause or cancel, and letting go of a
   * brake, ask this first. `how` says whether it is paused or was found not dialling at all (ended, gone).
   */
  async confirmPaused(
    campaignId: string,
  ): Promise<{ ok: true; how: 'paused' | 'not_active'; message: string } | { ok: false; message: string }> {
    return this.pause(campaignId);
  }

  /** Pause, and make sure: 200 is paused; a 409, 404 or lost answer is judged by the stats. */
  private async pause(
    campaignId: string,
  ): Promise<{ ok: true; how: 'paused' | 'not_active'; message: string } | { ok: false; message: string }> {
    let error: unknown;
    try {
      await this.campaigns.pause(campaignId);
      return { ok: true, how: 'paused', message: 'paused' };
    } catch (err) {
      error = err;
    }
    if (error instanceof NotFoundError) return { ok: true, how: 'not_active', message: 'the campaign is gone' };
    try {
      const stats = await this.campaigns.stats(campaignId);
      const status = String(stats.status ?? '');
      // Paused whoever's pause it was (most often this one, its answer lost): the report shows a pause here.
      if (status === 'paused')
        return { ok: true, how: 'paused', message: `pause answered ${describe(error)}; the campaign is paused` };
      if (status !== 'active' && status !== 'scheduled')
        return { ok: true, how: 'not_active', message: `the campaign is ${status}` };
      return { ok: false, message: `pause answered ${describe(error)} and the campaign is still ${status}` };
    } catch (err) {
      if (err instanceof NotFoundError) return { ok: true, how: 'not_active', message: 'the campaign is gone' };
      return { ok: false, message: `pause answered ${describe(error)}; stats answered ${describe(err)}` };
    }
  }

  /**
   * Deactivates the agent (toggle is a flip, so it is read back before and after). A brake that does not hold
   * leaves the register as it found it: a holder it added would be taken, at the part's next look, for a brake
   * held, and never tried again.
   */
  async engageBrake(agentId: string, holder: string): Promise<{ ok: boolean; message: string }> {
    let added = false;
    let message: string;
    try {
      added = await this.brakes.hold(agentId, holder, this.now());
      for (let i = 0; i < TOGGLE_TRIES; i++) {
        const agent = await this.agents.get(agentId);
        if (agent.is_active === false) return { ok: true, message: 'agent inactive' };
        await this.agents.toggle(agentId).catch(() => undefined);
      }
      const agent = await this.agents.get(agentId);
      if (agent.is_active === false) return { ok: true, message: 'agent inactive' };
      message = 'the agent is still active';
    } catch (err) {
      message = describe(err);
    }
    if (added) await this.brakes.release(agentId, holder).catch(() => undefined);
    return { ok: false, message };
  }

  /**
   * Lets go of the brake; the last holder reactivates the agent. A holder that arrived meanwhile finds the agent
   * active when it reads back and deactivates it again, so the brake is never lost.
   */
  async releaseBrake(agentId: string, holder: string): Promise<{ ok: boolean; message: string; gone?: boolean }> {
    try {
      const left = await this.brakes.release(agentId, holder);
      if (left > 0) return { ok: true, message: `${left} other part(s) still hold the brake` };
      for (let i = 0; i < TOGGLE_TRIES; i++) {
        const agent = await this.releaseAgents.get(agentId);
        if (agent.is_active !== false) break;
        await this.releaseAgents.toggle(agentId).catch(() => undefined);
      }
      const agent = await this.releaseAgents.get(agentId);
      if ((await this.brakes.holders(agentId)) > 0 && agent.is_active !== false) {
        // Braking again is a safety action: on the safety switch.
        await this.agents.toggle(agentId).catch(() => undefined);
        return { ok: true, message: 'another part took the brake meanwhile' };
      }
      if (agent.is_active === false) return { ok: false, message: 'the agent is still inactive' };
      this.signals.action('workflow', 'brake_released', { agentId, holder });
      return { ok: true, message: 'agent reactivated' };
    } catch (err) {
      // Let go in the register; an agent the API no longer has dials nobody and has nothing to switch on.
      if (err instanceof NotFoundError) return { ok: false, gone: true, message: describe(err) };
      return { ok: false, message: describe(err) };
    }
  }
}

function describe(err: unknown): string {
  if (err instanceof ConflictError) return `409 (${err.message})`;
  const e = err as { status?: number; message?: string; name?: string };
  return e?.status ? `${e.status} (${e.message})` : `${e?.name ?? 'error'}: ${e?.message ?? String(err)}`;
}
