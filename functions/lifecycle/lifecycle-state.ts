import type { CampaignStats } from '#commons/voice-api/types.ts';
import type { PartWindow } from '#commons/window-plan.ts';
import type { PollMemory } from './poll-interval.ts';

/**
 * What the workflow carries from step to step, one shape per phase (the timeline lives in DynamoDB). The
 * document routes on `next` and sleeps until `wakeAt`; StepFailure reads `failure`.
 *
 * `schema` versions the shape. A running execution keeps calling the function version it started with (the
 * document names version ARNs), but a continuation starts on the newest version with a carry written by an
 * older one, so `upgradeCarry` reads every earlier shape.
 */
export const CARRY_SCHEMA = 2;

export type Next = 'wait' | 'continue' | 'finish' | 'fail';
export type PauseReason = 'window' | 'manual' | 'cancel';

export interface Failure {
  code: string;
  message: string;
}

/** Routing fields every phase may carry. */
interface Routing {
  next?: Next;
  wakeAt?: string;
  failure?: Failure;
}

/** What every phase after the agent check knows. */
interface Known extends Routing {
  schema: typeof CARRY_SCHEMA;
  agentId: string;
  window: PartWindow;
  /** Steps taken by this execution; state transitions used by earlier executions of the same part. */
  steps: number;
  generation: number;
  transitionsBefore: number;
}

/**
 * The emergency brake: the part's agent was deactivated because a pause could not be confirmed before the
 * window closed. Released (agent reactivated) at the next opening, once nobody else holds it.
 */
export interface BrakeHeld {
  since: string;
  /** Pulled at a close for a resume in doubt: letting it go at the opening ends the doubt. */
  forDoubt?: true;
  /**
   * Pulled before a scheduled start for an operator's pause (the API pauses only an active campaign): let go as soon
   * as the started campaign is paused.
   */
  forStart?: true;
}

export interface NewCarry extends Routing {
  phase: 'new';
}

/** The agent is checked and the part's window known; the campaign is not created yet. */
export interface ReadyCarry extends Known {
  phase: 'ready';
}

/** The create answer was lost: the campaign may exist; it is looked for by its calls. */
export interface ReconcilingCarry extends Known {
  phase: 'reconciling';
  startsAt: string;
  reconcileUntil: string;
  brake: BrakeHeld | null;
}

export interface RunningCarry extends Known {
  phase: 'running';
  campaignId: string;
  /** When the campaign may start dialling (the schedule, moved to the window's opening). */
  startsAt: string;
  /** Why the campaign is (to be) paused; null while it may dial. */
  paused: PauseReason | null;
  /** A pause that was wanted and not yet confirmed by the API (its first attempt). */
  securingSince: string | null;
  brake: BrakeHeld | null;
  poll: PollMemory | null;
  stats: CampaignStats | null;
  /**
   * When a resume was sent whose answer was lost (absent: none in doubt). It may still take effect later, after
   * the window closes, where no look would see it: so the coming close pulls the brake as well as pausing, and a
   * cancel ends the part braked. It ends when that brake is let go at the next opening.
   */
  resumeInDoubt?: string;
  /**
   * Since when only the brake keeps the campaign from dialling: its pause did not hold (absent: it did, or no
   * brake). A brake lasts only while nobody switches the agent back on, so the pause is tried again through the
   * closed window until it holds (PAUSE_RETRY_MS).
   */
  pauseFailedSince?: string;
}

/** Nothing more to do: `next` is finish (completed, cancelled, held) or fail. */
export interface EndedCarry extends Known {
  phase: 'ended';
  campaignId: string | null;
  outcome: 'completed' | 'cancelled' | 'held';
  stats: CampaignStats | null;
}

export type Carry = NewCarry | ReadyCarry | ReconcilingCarry | RunningCarry | EndedCarry;

/** A carry as the schema-1 code wrote it: one bag of optionals. */
interface CarryV1 {
  phase?: 'new' | 'reconciling' | 'running';
  next?: Next;
  wakeAt?: string;
  agentId?: string;
  campaignId?: string;
  window?: PartWindow;
  startsAt?: string;
  reconcileUntil?: string;
  poll?: PollMemory;
  paused?: 'window' | 'manual' | null;
  stats?: CampaignStats;
  failure?: Failure;
  steps?: number;
  generation?: number;
  transitionsBefore?: number;
}

/**
 * Reads a carry of any schema. A schema-1 carry's window lacks what the new window code needs, so it is rebuilt
 * by the caller from the plan (`window: null`); everything else maps field by field.
 */
export function upgradeCarry(raw: unknown): { carry: Carry; windowStale: boolean } {
  const c = (raw ?? { phase: 'new' }) as Partial<Carry> & CarryV1 & { schema?: number };
  if (c.schema === CARRY_SCHEMA) return { carry: c as Carry, windowStale: false };
  const known = {
    schema: CARRY_SCHEMA,
    agentId: c.agentId ?? '',
    window: c.window as PartWindow,
    steps: c.steps ?? 0,
    generation: c.generation ?? 0,
    transitionsBefore: c.transitionsBefore ?? 0,
  } as const;
  if (c.phase === 'running' && c.campaignId) {
    return {
      windowStale: true,
      carry: {
        ...known,
        phase: 'running',
        campaignId: c.campaignId,
        startsAt: c.startsAt ?? new Date(0).toISOString(),
        paused: c.paused ?? null,
        securingSince: null,
        brake: null,
        poll: c.poll ?? null,
        stats: c.stats ?? null,
      },
    };
  }
  if (c.phase === 'reconciling') {
    return {
      windowStale: true,
      carry: {
        ...known,
        phase: 'reconciling',
        startsAt: c.startsAt ?? new Date(0).toISOString(),
        reconcileUntil: c.reconcileUntil ?? new Date(0).toISOString(),
        brake: null,
      },
    };
  }
  if (c.agentId) return { windowStale: true, carry: { ...known, phase: 'ready' } };
  return { windowStale: false, carry: { phase: 'new' } };
}
