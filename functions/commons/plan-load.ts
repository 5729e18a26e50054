import { pollPlanOf } from './api-budget/poll-roll.ts';
import type { BudgetLimits } from './api-budget/shared-budget.ts';
import { type EnvReader, wholeNumber } from './config.ts';

const MINUTE = 60_000;
const HOUR = 3_600_000;

/** When the lifecycle pauses before a close: CLOSING_MARGIN_MINUTES, PAUSE_LEAD_SECONDS, BRAKE_LEAD_SECONDS. */
export interface PauseTimings {
  closingMarginMs: number;
  pauseLeadMs: number;
  brakeLeadMs: number;
}

/**
 * The last stretch before each close in which no call starts: the closing margin, and the pause sent that much ahead
 * of it. The lifecycle pauses by it; intake, validate and status say it as the lifecycle will act on it.
 */
export const quietFrom = (t: Pick<PauseTimings, 'closingMarginMs' | 'pauseLeadMs'>): number =>
  t.closingMarginMs + t.pauseLeadMs;

/** One stretch a part is called in: the window's own opening and close (not shortened by the margin). */
export interface PartStretch {
  part: number;
  opensAt: number;
  closesAt: number;
}

/** A close where more parts need their pause than the plan can carry before the brake lead. */
export interface CrowdedClose {
  closesAt: number;
  parts: number;
  /** How many of them the plan can pause in time; the others are braked. */
  pausable: number;
  /** When the first pause goes out, and when an unconfirmed pause pulls the brake instead. */
  pausesFrom: number;
  brakeAt: number;
}

/** A clock hour in which the parts' own requests need more than the plan leaves them after the polls. */
export interface BusyHour {
  from: number;
  requests: number;
  room: number;
}

export interface PlanLoad {
  /** What each clock minute and hour leaves the parts' pauses (minute) and pauses, resumes, launches (hour). */
  room: { perMinute: number; perHour: number };
  polls: { perMinute: number; perHour: number };
  crowded: CrowdedClose[];
  busy: BusyHour[];
}

/** Requests per part: at launch an agent check and the create; at each opening a resume; at each close a pause and,
 * when the pause is answered 409, one stats request to confirm it (counted always: the hour must hold the worst). */
export const LAUNCH_REQUESTS = 2;
export const OPENING_REQUESTS = 1;
export const CLOSE_REQUESTS = 2;

interface Pause {
  closesAt: number;
  release: number;
  deadline: number;
}

/**
 * Which pauses the per-minute plan carries. The arithmetic, in plain words: a part's pause goes out at its close
 * less the closing margin less the pause lead (16:53:00 for a 17:00 close, by default), and a pause still not
 * through at the close less the margin less the brake lead (16:54:30) gives way to the agent's brake. The plan
 * counts requests per clock minute (16:53, 16:54). Each part books its pause's minute and the next with the
 * budget (SharedApiBudget.book), so there every caller but the safety share leaves the booked pauses a token; the
 * safety reserve is counted as spent by the guard and sweeper, so each minute leaves the pauses the plan less that
 * reserve (100 − 5 = 95). A pause waits for the next minute when its own is spent. So the pauses of one close get
 * every clock minute their span touches, 95 each (190 for 16:53:00–16:54:30), and pauses of closes that overlap
 * share those minutes, the earliest brake first. The count is of this upload only: other uploads closing then take from the same minutes.
 */
function braked(pauses: Pause[], perMinute: number): Map<number, number> {
  const out = new Map<number, number>();
  const pending = [...pauses].sort((a, b) => a.release - b.release);
  const waiting: Pause[] = [];
  let next = 0;
  let minute = pending.length > 0 ? Math.floor((pending[0] as Pause).release / MINUTE) * MINUTE : 0;
  while (next < pending.length || waiting.length > 0) {
    if (waiting.length === 0) minute = Math.max(minute, Math.floor((pending[next] as Pause).release / MINUTE) * MINUTE);
    while (next < pending.length && (pending[next] as Pause).release < minute + MINUTE)
      waiting.push(pending[next++] as Pause);
    waiting.sort((a, b) => a.deadline - b.deadline);
    let room = perMinute;
    for (let i = 0; i < waiting.length; ) {
      const p = waiting[i] as Pause;
      if (Math.max(p.release, minute) >= p.deadline) {
        out.set(p.closesAt, (out.get(p.closesAt) ?? 0) + 1);
        waiting.splice(i, 1);
      } else if (room > 0) {
        room -= 1;
        waiting.splice(i, 1);
      } else i += 1;
    }
    minute += MINUTE;
  }
  return out;
}

/**
 * The load an upload's parts put on the API plan: the closes where more parts need their pause than the plan can
 * carry before the brake lead, and the clock hours where their launches (at `launchAt`), resumes (one at each
 * opening) and pauses with their confirmations (two at each close, counted in the hour the pause goes out) need
 * more than the hour leaves after the polls' share (1,000 − 375 = 625 by default). A limit of 0 (no limit) never
 * crowds. Pure: the same stretches and limits always give the same answer.
 */
export function planLoad(
  stretches: readonly PartStretch[],
  launch: { at: number; parts: number },
  limits: BudgetLimits,
  timings: PauseTimings,
): PlanLoad {
  const polls = pollPlanOf(limits);
  const room = {
    perMinute: Math.max(0, limits.perMinute - limits.safetyReserve.perMinute),
    perHour: Math.max(0, limits.perHour - polls.perHour),
  };
  const pauses: Pause[] = stretches
    .filter((s) => s.closesAt - timings.closingMarginMs > s.opensAt)
    .map((s) => {
      const margin = s.closesAt - timings.closingMarginMs;
      return { closesAt: s.closesAt, release: margin - timings.pauseLeadMs, deadline: margin - timings.brakeLeadMs };
    });

  const crowded: CrowdedClose[] = [];
  if (limits.perMinute > 0) {
    const lost = braked(pauses, room.perMinute);
    const parts = new Map<number, Pause[]>();
    for (const p of pauses) parts.set(p.closesAt, [...(parts.get(p.closesAt) ?? []), p]);
    for (const [closesAt, group] of [...parts].sort((a, b) => a[0] - b[0])) {
      const n = lost.get(closesAt) ?? 0;
      if (n === 0) continue;
      const first = group[0] as Pause;
      crowded.push({
        closesAt,
        parts: group.length,
        pausable: group.length - n,
        pausesFrom: first.release,
        brakeAt: first.deadline,
      });
    }
  }

  const busy: BusyHour[] = [];
  if (limits.perHour > 0) {
    const perHour = new Map<number, number>();
    const add = (at: number, n: number) => {
      const h = Math.floor(at / HOUR) * HOUR;
      perHour.set(h, (perHour.get(h) ?? 0) + n);
    };
    add(launch.at, launch.parts * LAUNCH_REQUESTS);
    for (const s of stretches) if (s.closesAt - timings.closingMarginMs > s.opensAt) add(s.opensAt, OPENING_REQUESTS);
    for (const p of pauses) add(p.release, CLOSE_REQUESTS);
    for (const [from, requests] of [...perHour].sort((a, b) => a[0] - b[0]))
      if (requests > room.perHour) busy.push({ from, requests, room: room.perHour });
  }
  return { room, polls, crowded, busy };
}

/** The pause timings as the lifecycle reads them (same names, defaults and bounds), for intake's estimate. */
export function readPauseTimings(env: EnvReader): PauseTimings {
  return {
    closingMarginMs: (env.checked('CLOSING_MARGIN_MINUTES', wholeNumber(1, 120)) ?? 5) * MINUTE,
    pauseLeadMs: (env.checked('PAUSE_LEAD_SECONDS', wholeNumber(0, 900)) ?? 120) * 1000,
    brakeLeadMs: (env.checked('BRAKE_LEAD_SECONDS', wholeNumber(0, 900)) ?? 30) * 1000,
  };
}
