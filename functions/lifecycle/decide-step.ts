import type { PollPlan } from '#commons/api-budget/poll-roll.ts';
import { quietFrom } from '#commons/plan-load.ts';
import type { CampaignStats } from '#commons/voice-api/types.ts';
import { windowStateAt } from '#commons/window-plan.ts';
import type { ManualControl } from './campaign-store.ts';
import type { EndedCarry, Failure, Next, PauseReason, ReconcilingCarry, RunningCarry } from './lifecycle-state.ts';
import { nextInterval, type PollBounds, plannedBounds } from './poll-interval.ts';

/** The knobs of the decisions below (all from the lifecycle's configuration). */
export interface DecideSettings {
  /** No call may start this close to a window's close. */
  closingMarginMs: number;
  /**
   * The pause goes out this long before the margin begins, so it is confirmed before then: a call the dialer
   * starts in the instant of the pause is still outside the margin.
   */
  pauseLeadMs: number;
  /** A pause still unconfirmed this long before the closing margin begins pulls the emergency brake. */
  brakeLeadMs: number;
  /** How soon an unconfirmed pause or a failed resume is tried again. */
  secureRetryMs: number;
  poll: PollBounds;
  /** What the polls of all parts on the account may use of the API plan (null: no shared budget, no planning). */
  pollPlan?: PollPlan | null;
  continueAfterSteps: number;
}

/** What a step saw: the operator's wish (DynamoDB) and the campaign's stats (the API). */
export type StatsSeen =
  | { kind: 'ok'; stats: CampaignStats }
  | { kind: 'gone' }
  /** `retryAt`: the account's API budget has no token before then (nothing was sent). */
  | { kind: 'unavailable'; message: string; retryAt?: number };

export interface Observation {
  control: ManualControl | null;
  stats: StatsSeen;
  /** How many parts poll on the account's plan this hour (the poll roll), when this look polled. */
  pollers?: number;
}

/**
 * Whether this look must ask the stats. Not at a close for a campaign last seen dialling: it is paused whatever
 * the stats say (a finished one answers the pause with 409, which the pause's own check confirms), and when a
 * hundred parts close in the same minute a stats request before each pause would spend what the pauses need.
 */
export function needsStats(
  state: RunningCarry,
  now: number,
  s: DecideSettings,
  control: ManualControl | null = null,
): boolean {
  // Before its start only an operator can have changed anything (looked at the pause lead before it, afterStep).
  if (waitingForStart(state, now) && control === null) return false;
  return !lastSeenDialling(state) || windowStateAt(state.window, now, quietFrom(s)).open;
}

/** Its start still ahead, and scheduled when last seen (or not yet seen: created for that start). */
const waitingForStart = (state: RunningCarry, now: number) =>
  now < Date.parse(state.startsAt) && (state.stats === null || state.stats.status === 'scheduled');

/**
 * What a look that did not ask the stats saw: before the start, the campaign still scheduled (as `decideStep` reads
 * a budget that has no token before the start); at a close, nothing, as the campaign is paused first.
 */
export function statsNotAsked(state: RunningCarry, now: number): StatsSeen {
  return waitingForStart(state, now)
    ? {
        kind: 'unavailable',
        message: 'not asked: the campaign waits for its start',
        retryAt: Date.parse(state.startsAt),
      }
    : { kind: 'unavailable', message: 'not asked at the close: the campaign is paused first' };
}

/** Not paused by callsheet, and active at the last look the API answered. */
const lastSeenDialling = (state: RunningCarry) => state.paused === null && state.stats?.status === ACTIVE;

/** What the step must do through the API before it sleeps again. */
export type StepDecision =
  | { kind: 'finish'; outcome: 'completed' | 'cancelled' }
  | { kind: 'fail'; failure: Failure }
  /**
   * Make sure the campaign dials nobody new: pause it (or see that it is not active), else brake; with
   * `brakeAnyway`, brake as well (a resume in doubt could land after the pause).
   */
  | { kind: 'secure'; reason: PauseReason; brakeOnFailure: boolean; brakeAnyway?: true; forStart?: true }
  | { kind: 'resume' }
  /**
   * `pausedByOperator`: found paused (by the CLI at once, or for the window) when an operator asked for a pause:
   * from here it is the operator's, held until they resume, and recorded so.
   */
  | { kind: 'watch'; pausedByOperator?: true };

/** How the step's API action went. */
export type EffectResult =
  | { kind: 'none' }
  /** `brakeReleased`: the brake pulled for the start was let go, the campaign being paused. */
  | { kind: 'secured'; how: 'paused' | 'not_active'; brakeReleased?: true }
  /** `pauseHeld`: the campaign is paused as well; false when only the brake keeps it from dialling. */
  | { kind: 'secured'; how: 'braked'; pauseHeld: boolean }
  | { kind: 'unconfirmed'; message: string }
  | { kind: 'resumed' }
  /**
   * `inDoubt`: the resume's answer was lost and the stats did not show it taken: it may still land.
   * `brakeReleased`: the brake this part held was let go before the resume was sent.
   */
  | { kind: 'resume_failed'; message: string; inDoubt: boolean; brakeReleased: boolean };

const ACTIVE = 'active';
/**
 * How often, while the window is closed, a campaign held only by the brake has its pause tried again: the brake
 * fails the moment the agent is switched back on (in the dashboard, or by a toggle that lands late), and the safe
 * state of a campaign is paused. The sweeper's pace (SWEEP_INTERVAL_MINUTES' default).
 */
export const PAUSE_RETRY_MS = 5 * 60_000;
/** How far ahead a pause is booked: the last looks before it, which are at most an hour apart. */
const BOOK_AHEAD_MS = 3_600_000;
/** Statuses in which a campaign dials nobody new on its own (a scheduled one starts at its schedule). */
const QUIET = new Set(['paused', 'completed', 'cancelled', 'failed']);

const isCount = (v: unknown): v is number => Number.isInteger(v) && (v as number) >= 0;

/**
 * A stats answer counts only with both of its counts: one without them (a partial answer, nulls) says nothing of
 * whether the campaign is done, so it is taken as stats not available, never as finished (null plus null is 0,
 * and a part that finished on it would stop watching a campaign that still dials).
 */
export function checkedStats(seen: StatsSeen): StatsSeen {
  if (seen.kind !== 'ok') return seen;
  const { pending, in_progress } = seen.stats as { pending?: unknown; in_progress?: unknown };
  if (isCount(pending) && isCount(in_progress)) return seen;
  return {
    kind: 'unavailable',
    message: `the stats answer carried no pending and in_progress counts: ${JSON.stringify(seen.stats)?.slice(0, 200)}`,
  };
}

function isFinished(stats: CampaignStats): boolean {
  const status = String(stats.status ?? '');
  return status === 'completed' || (stats.pending + stats.in_progress === 0 && status !== 'scheduled');
}

/**
 * Whether a failed pause must pull the brake now: the margin before the close has begun, or begins within the
 * brake lead. No call may start in the margin, so the brake must hold by then.
 */
export function closingSoon(state: { window: RunningCarry['window'] }, now: number, s: DecideSettings): boolean {
  const margin = windowStateAt(state.window, now, s.closingMarginMs);
  return !margin.open || (margin.changesAt !== null && margin.changesAt - now <= s.brakeLeadMs);
}

/**
 * One look at a running campaign, as a pure function: what to do now. The rule it serves: outside the window
 * (less the closing margin) the campaign must be confirmed not dialling; when in doubt, secure it.
 */
export function decideStep(state: RunningCarry, seen: Observation, now: number, s: DecideSettings): StepDecision {
  const { stats } = seen;
  if (stats.kind === 'gone')
    return {
      kind: 'fail',
      failure: { code: 'campaign_deleted', message: `campaign ${state.campaignId} no longer exists in the Voice API` },
    };
  if (stats.kind === 'ok' && isFinished(stats.stats)) return { kind: 'finish', outcome: 'completed' };
  // Not asked for want of budget (nothing is known to be wrong) and last seen scheduled for a start still ahead:
  // it is still scheduled. A blind pause would spend the safety reserve on a 409 that other parts' pauses need.
  const stillScheduled = stats.kind === 'unavailable' && stats.retryAt !== undefined && waitingForStart(state, now);
  const status = stats.kind === 'ok' ? String(stats.stats.status ?? '') : stillScheduled ? 'scheduled' : null;
  const window = windowStateAt(state.window, now, quietFrom(s));
  const brakeOnFailure = closingSoon(state, now, s);

  if (seen.control === 'cancel') {
    // A resume in doubt could still dial the cancelled list, with nobody watching: the part ends braked, and the
    // brake stays for an operator (finishing would release it).
    if (state.resumeInDoubt !== undefined)
      return { kind: 'secure', reason: 'cancel', brakeOnFailure: true, brakeAnyway: true };
    if (status !== null && QUIET.has(status)) return { kind: 'finish', outcome: 'cancelled' };
    return { kind: 'secure', reason: 'cancel', brakeOnFailure };
  }
  const mustBeQuiet = !window.open || seen.control === 'pause';
  // A resume in doubt may land once the window has closed, unseen: the agent is switched off until it opens.
  if (!window.open && state.resumeInDoubt !== undefined && !state.brake)
    return { kind: 'secure', reason: 'window', brakeOnFailure: true, brakeAnyway: true };
  if (mustBeQuiet) {
    // A scheduled campaign starts at a window opening chosen at create time; quiet ones need nothing. Unless an
    // operator asked for a pause: the API pauses only an active campaign, so the agent is switched off before the
    // start (the brake), and the campaign is paused once it has started.
    if (status === 'scheduled')
      return seen.control === 'pause' && !state.brake && now >= startGuardAt(Date.parse(state.startsAt), s)
        ? { kind: 'secure', reason: 'manual', brakeOnFailure: true, forStart: true }
        : { kind: 'watch' };
    if (status !== null && QUIET.has(status))
      return status === 'paused' && seen.control === 'pause' && state.paused !== 'manual'
        ? { kind: 'watch', pausedByOperator: true }
        : { kind: 'watch' };
    // Held by the brake, its pause tried again: only once the stats show it dialling-capable, so a night of API
    // trouble does not spend the pauses' reserve on campaigns the brake holds.
    if (!window.open && state.brake && state.paused !== null && state.pauseFailedSince !== undefined && status === null)
      return { kind: 'watch' };
    return { kind: 'secure', reason: window.open ? 'manual' : 'window', brakeOnFailure };
  }
  // The window is open and nobody asked for a pause.
  if (state.brake) return { kind: 'resume' };
  if (status === 'paused') return { kind: 'resume' };
  return { kind: 'watch' };
}

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * When the campaign, dialling now, will be paused for the coming close, if that is within the hour: the minute the
 * API budget keeps a token for it (SharedApiBudget.book). Null when nothing is to be booked.
 */
export function pauseToBook(state: RunningCarry, now: number, s: DecideSettings): number | null {
  if (!lastSeenDialling(state)) return null;
  const window = windowStateAt(state.window, now, quietFrom(s));
  if (!window.open || window.changesAt === null || window.changesAt - now > BOOK_AHEAD_MS) return null;
  return window.changesAt;
}

/**
 * The look before a scheduled start (ms): the pause lead before it, where an operator's pause pulls the brake. The
 * first look after the create is here too (LifecycleSteps.afterCreate).
 */
export const startGuardAt = (startsAt: number, s: DecideSettings) => startsAt - s.pauseLeadMs;

/**
 * Whether a look leaves the campaign confirmed not dialling (the sweeper's `quiet`), and until when. Paused with
 * its pause confirmed, or braked while its create is looked for: quiet until someone acts. Scheduled for a later
 * start, its agent not braked: quiet only until that start, from which it dials on its own (a scheduled campaign
 * the workflow counts as paused too: the API has not paused it), however stale the stats that said so. A resume in
 * doubt may land at any time: never quiet unless the brake holds.
 */
export function quietOf(state: RunningCarry | ReconcilingCarry): { quiet: boolean; quietUntil?: string } {
  if (state.phase === 'reconciling') return { quiet: state.brake !== null };
  if (state.resumeInDoubt !== undefined && state.brake === null) return { quiet: false };
  const scheduled = state.stats?.status === 'scheduled';
  if (scheduled && state.brake === null) return { quiet: true, quietUntil: state.startsAt };
  return { quiet: scheduled || (state.paused !== null && state.securingSince === null) };
}

/** The carry after the step acted: when to look again, or that the part is over. */
export function afterStep(
  state: RunningCarry,
  seen: Observation,
  decision: StepDecision,
  effect: EffectResult,
  now: number,
  s: DecideSettings,
): RunningCarry | EndedCarry {
  const stats = seen.stats.kind === 'ok' ? seen.stats.stats : state.stats;
  if (decision.kind === 'finish') return ended(state, decision.outcome, stats, 'finish');
  if (decision.kind === 'fail') return { ...ended(state, 'completed', stats, 'fail'), failure: decision.failure };

  let next: RunningCarry = { ...state, stats };
  if (decision.kind === 'secure') {
    if (effect.kind === 'secured') {
      next = withPauseFailed(
        {
          ...next,
          paused: decision.reason,
          securingSince: null,
          brake:
            effect.how === 'braked'
              ? (state.brake ?? {
                  since: iso(now),
                  ...(decision.brakeAnyway ? { forDoubt: true as const } : {}),
                  ...(decision.forStart ? { forStart: true as const } : {}),
                })
              : effect.brakeReleased
                ? null
                : state.brake,
        },
        effect.how === 'braked' && !effect.pauseHeld ? (state.pauseFailedSince ?? iso(now)) : undefined,
      );
      if (decision.reason === 'cancel') return ended(next, 'cancelled', stats, 'finish');
    } else {
      // Not confirmed: try again soon; the brake is pulled once the close is near (see decideStep).
      return sleep({ ...next, securingSince: state.securingSince ?? iso(now) }, now + s.secureRetryMs, now, s);
    }
  } else if (decision.kind === 'resume') {
    if (effect.kind === 'resumed') {
      next = { ...next, paused: null, brake: null, poll: null, securingSince: null };
      // The brake a close pulled for a doubt is let go at the opening: the doubt ends there (a resume the API has
      // not carried out by the next opening is taken never to be: docs/architecture.md, "A resume in doubt"). Any
      // other brake (the sweeper's, in an open window) says nothing of it.
      if (state.brake?.forDoubt) next = withoutDoubt(next);
    } else {
      const failed = effect.kind === 'resume_failed' ? effect : null;
      if (failed?.brakeReleased) next = { ...next, brake: null };
      if (failed?.inDoubt) next = { ...next, resumeInDoubt: state.resumeInDoubt ?? iso(now) };
      return sleep(next, now + s.secureRetryMs, now, s);
    }
  } else if (decision.kind === 'watch' && decision.pausedByOperator) {
    next = withPauseFailed({ ...next, paused: 'manual', securingSince: null }, undefined);
  } else if (decision.kind === 'watch' && seen.stats.kind === 'ok') {
    // What the API says is the truth: a quiet campaign is paused (confirming an earlier unanswered pause).
    const status = String(seen.stats.stats.status ?? '');
    if (QUIET.has(status))
      next = withPauseFailed(
        { ...next, paused: next.paused ?? (seen.control === 'pause' ? 'manual' : 'window'), securingSince: null },
        undefined,
      );
    else if (status === ACTIVE) next = { ...next, paused: null, securingSince: null };
  }

  const window = windowStateAt(state.window, now, quietFrom(s));
  const quiet = next.paused !== null || !window.open;
  if (!window.open && window.changesAt === null)
    return {
      ...ended(next, 'completed', stats, 'fail'),
      failure: {
        code: 'window_never_opens',
        message: `the calling window (${state.window.description}) does not open again within the look-ahead; the campaign was left paused`,
      },
    };
  // Waiting for its start: looked at once more the pause lead before it, where an operator's pause pulls the brake.
  const guardAt = startGuardAt(Date.parse(state.startsAt), s);
  const startGuard = !next.brake && waitingForStart(next, now) && now < guardAt ? guardAt : Number.POSITIVE_INFINITY;
  const closeOrOpen = Math.min(window.changesAt ?? Number.POSITIVE_INFINITY, startGuard);
  const poll = plannedBounds(s.poll, seen.pollers ?? 0, s.pollPlan ?? null);
  let wake: number;
  if (quiet && !window.open) {
    wake = next.pauseFailedSince !== undefined ? Math.min(now + PAUSE_RETRY_MS, closeOrOpen) : closeOrOpen;
  } else if (seen.stats.kind !== 'ok') {
    // A budget spent until the next minute or hour: asking sooner would only find it spent again.
    const budgetBack = seen.stats.kind === 'unavailable' ? (seen.stats.retryAt ?? 0) : 0;
    wake = Math.min(Math.max(now + s.secureRetryMs * 3, budgetBack), closeOrOpen);
  } else if (String(seen.stats.stats.status ?? '') === 'scheduled') {
    wake = Math.min(Math.max(Date.parse(state.startsAt) || now, now + poll.minSeconds * 1000), closeOrOpen);
  } else if (quiet) {
    // A manual pause in an open window: look for the operator's resume now and then, and at the close.
    wake = Math.min(now + poll.maxSeconds * 1000, closeOrOpen);
  } else {
    const st = seen.stats.stats;
    const remaining = st.pending + st.in_progress;
    const done = st.total - remaining;
    const seconds = nextInterval(next.poll, now, done, remaining, st.pending, poll);
    next = { ...next, poll: { done, at: now, intervalSeconds: seconds } };
    wake = Math.min(now + seconds * 1000, closeOrOpen);
  }
  return sleep(next, wake, now, s);
}

/** The carry with `pauseFailedSince` set, or without it (undefined). */
function withPauseFailed(state: RunningCarry, since: string | undefined): RunningCarry {
  const { pauseFailedSince: _was, ...rest } = state;
  return since === undefined ? rest : { ...rest, pauseFailedSince: since };
}

function withoutDoubt(state: RunningCarry): RunningCarry {
  const { resumeInDoubt: _ended, ...rest } = state;
  return rest;
}

function sleep(state: RunningCarry, wake: number, now: number, s: DecideSettings): RunningCarry {
  const next: Next = state.steps >= s.continueAfterSteps ? 'continue' : 'wait';
  // Only a part paused by callsheet and holding a brake can be held by the brake alone: one resumed, seen active or
  // whose brake was let go is not, whichever way it got there.
  const held = state.brake !== null && state.paused !== null ? state : withPauseFailed(state, undefined);
  return { ...held, next, wakeAt: iso(Math.max(wake, now + 1000)) };
}

function ended(
  state: RunningCarry,
  outcome: EndedCarry['outcome'],
  stats: CampaignStats | null,
  next: 'finish' | 'fail',
): EndedCarry {
  return {
    schema: state.schema,
    agentId: state.agentId,
    window: state.window,
    steps: state.steps,
    generation: state.generation,
    transitionsBefore: state.transitionsBefore,
    phase: 'ended',
    campaignId: state.campaignId,
    outcome,
    stats,
    next,
  };
}

/** The create answer was lost: what to do at one look, given whether the campaign was found by its calls. */
export type ReconcileDecision =
  | { kind: 'found'; campaignId: string }
  | { kind: 'brake' }
  | { kind: 'release' }
  | { kind: 'look_again'; wakeAt: number }
  | { kind: 'give_up' };

export function decideReconcile(
  state: ReconcilingCarry,
  found: string | null,
  now: number,
  s: DecideSettings,
): ReconcileDecision {
  if (found) return { kind: 'found', campaignId: found };
  const window = windowStateAt(state.window, now, quietFrom(s));
  // A campaign that may exist cannot be paused by id: near or after the close, only the agent can be stopped.
  if (!window.open && !state.brake) return { kind: 'brake' };
  if (window.open && state.brake) return { kind: 'release' };
  if (now >= Date.parse(state.reconcileUntil)) return { kind: 'give_up' };
  const wake = Math.min(now + 2 * 60_000, window.changesAt ?? Number.POSITIVE_INFINITY);
  return { kind: 'look_again', wakeAt: Math.max(wake, now + 1000) };
}
