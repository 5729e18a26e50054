import { HolidaysUnknown, publicHolidays } from './calling-hours/holidays.ts';
import {
  type CallingWindow,
  describeWindow,
  type Interval,
  intersectIntervals,
  intersectRules,
  openIntervals,
  sameHours,
  stateOfIntervals,
  WINDOW_HORIZON_MS,
  type WindowRule,
} from './calling-window.ts';
import type { CampaignPlan } from './campaign-plan.ts';
import { type EnvReader, wholeNumber } from './config.ts';
import {
  type AppliedRule,
  appliedRule,
  holidayScopesOf,
  type LegalHoursTable,
  legalWindowOf,
  noLegalHoursMessage,
  rulesThatApply,
} from './legal-hours.ts';
import { type PauseTimings, quietFrom } from './plan-load.ts';
import { isTimeZone } from './zoned-time.ts';

export type { LegalHoursTable } from './legal-hours.ts';

/**
 * When a part may be called: the same local hours in every zone its numbers may ring in, open only where all of
 * them are open. Plain JSON, so the workflow carries it from step to step.
 */
export interface PartWindow extends CallingWindow {
  /** Every zone the part's numbers may be in; a call may start only when the window is open in all of them. */
  zones: string[];
  description: string;
  /** `upload` when the upload set the hours (clipped or not), `legal hours` when the rules' hours apply. */
  source: string;
  /** True when the upload's hours went beyond the legal hours and were cut to them. */
  clipped: boolean;
  /** zones[0], for display and for a scheduled start's `time_zone`. */
  timeZone: string;
  country: string | null;
  /** The states or provinces the part's numbers may belong to (`US-FL`), whose rules apply too. */
  regions: string[];
  /** Every rule that shaped the hours, with its source; empty when the country has none and the upload set hours. */
  legal: AppliedRule[];
  /** Scopes whose public holidays are closed (from date-holidays), already in `holidays`. */
  holidayScopes: string[];
  // `rules` (inherited): the hours that apply in every zone, the upload's window ∩ every rule's hours;
  // `holidays` (inherited): the upload's holidays and the public holidays of `holidayScopes`, local dates closed in
  // every zone, from the day before the window was made for WINDOW_HORIZON_MS.
}

export type PartWindowResult = { ok: true; window: PartWindow } | { ok: false; code: string; message: string };

const DAY_MS = 86_400_000;

/** How far `windowStateAt` looks for a change; beyond it, "nothing changes" (null). */
export const STATE_HORIZON_MS = 35 * DAY_MS;
/**
 * How far ahead the lifecycle looks for a window's opening before it holds a part, not dialled (HOLD_HORIZON_DAYS'
 * default); intake says up front of a part whose window does not open that far ahead.
 */
export const DEFAULT_HOLD_HORIZON_DAYS = 14;

/** HOLD_HORIZON_DAYS in ms, as the lifecycle reads it and intake foresees it (1 to 60 days, 14 when unset). */
export function readHoldHorizonMs(env: EnvReader): number {
  return (env.checked('HOLD_HORIZON_DAYS', wholeNumber(1, 60)) ?? DEFAULT_HOLD_HORIZON_DAYS) * DAY_MS;
}

/** How far past its horizon `nextOpening` looks for the close of an opening found within it. */
const CLOSE_LOOKAHEAD_MS = 8 * DAY_MS;

const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** The upload's holidays and the public holidays of every scope whose rule bans them, around `nowMs`. */
function closedDays(upload: readonly string[], scopes: readonly string[], nowMs: number): string[] {
  if (scopes.length === 0) return [...upload];
  const from = day(nowMs - 2 * DAY_MS);
  const to = day(nowMs + WINDOW_HORIZON_MS + 2 * DAY_MS);
  const all = new Set(upload);
  for (const scope of scopes) for (const d of publicHolidays(scope, from, to)) all.add(d);
  return [...all].sort();
}

const listRules = (rules: readonly AppliedRule[]) =>
  rules.map((r) => `${r.scope} ${r.hours ?? 'no hours of its own'} (${r.source})`).join('; ');

/**
 * The window a part is called in: the upload's hours intersected with the hours of every rule that applies to the
 * part's numbers (country, then each state or province they may belong to), applied in each of the part's
 * candidate zones, closed on the public holidays of every rule that bans them. Refused (with a reason the uploader
 * can act on) when the part has no zone, when its country has no legal hours and the upload set none, or when they
 * share no hour. `nowMs` fixes which public holidays are listed (from the day before, for WINDOW_HORIZON_MS).
 */
export function partWindow(
  plan: {
    part: Pick<CampaignPlan['part'], 'zones' | 'timeZone' | 'country' | 'regions'>;
    window: CampaignPlan['window'];
  },
  legalTable: LegalHoursTable,
  nowMs: number,
): PartWindowResult {
  const part = plan.part as Pick<CampaignPlan['part'], 'timeZone' | 'country'> & {
    zones?: string[];
    regions?: string[];
  };
  // Plans written before parts carried `zones` name one zone; before `regions`, none.
  const zones = part.zones ?? (part.timeZone ? [part.timeZone] : []);
  const regions = part.regions ?? [];
  if (zones.length === 0)
    return {
      ok: false,
      code: 'no_time_zone',
      message: 'the part names no time zone, so no calling hour can be known to be legal; nobody in it is called',
    };
  const unknown = zones.find((z) => !isTimeZone(z));
  if (unknown)
    return { ok: false, code: 'unknown_time_zone', message: `"${unknown}" is not a time zone this runtime knows` };

  const country = part.country;
  const applying = rulesThatApply(legalTable, country, regions) ?? [];
  const legal = legalWindowOf(applying);
  const upload = plan.window.rules;
  if (!upload && !legal)
    return { ok: false, code: 'no_legal_hours', message: noLegalHoursMessage(country, legalTable) };

  const rules = upload && legal ? intersectRules(upload, legal) : ((upload ?? legal) as WindowRule[]);
  const clipped = upload !== null && legal !== null && !sameHours(rules, upload);
  const applied = applying.map(appliedRule);
  const who = [country, ...regions].filter(Boolean).join(', ');
  // "Legal" only when a law sets every hour that applies; a conservative default or a setting is not the law.
  const hoursOf = applied.every((r) => r.basis === 'law' || r.hours === null) ? 'legal hours' : 'calling hours';
  if (rules.length === 0)
    return {
      ok: false,
      code: 'window_outside_legal_hours',
      message: `the calling window (${describeWindow({ rules: upload ?? [], holidays: [] })}) has no hour within the ${hoursOf} for ${who} (${listRules(applied)}); set a window inside them`,
    };

  const holidayScopes = holidayScopesOf(applying);
  let holidays: string[];
  try {
    holidays = closedDays(plan.window.holidays, holidayScopes, nowMs);
  } catch (err) {
    // A day that may be a holiday nobody can name is never treated as open.
    if (err instanceof HolidaysUnknown) return { ok: false, code: 'holidays_unknown', message: err.message };
    throw err;
  }
  let description = describeWindow({ rules, holidays: plan.window.holidays });
  if (zones.length > 1) description += `, in each of ${zones.join(', ')} (open only where all are)`;
  if (holidayScopes.length > 0) description += `; closed on public holidays (${holidayScopes.join(', ')})`;
  if (clipped)
    description += `; the upload's ${describeWindow({ rules: upload ?? [], holidays: [] })} cut to the ${hoursOf} of ${who} (${describeWindow({ rules: legal ?? [], holidays: [] })})`;
  else if (!upload) description += `; ${hoursOf} of ${who}`;
  return {
    ok: true,
    window: {
      zones,
      timeZone: zones[0] as string,
      rules,
      holidays,
      country,
      regions,
      description,
      source: upload ? 'upload' : 'legal hours',
      clipped,
      legal: applied,
      holidayScopes,
    },
  };
}

/** The instants in [from, to) at which the window is open in every one of its zones. */
export function partIntervals(w: PartWindow, from: number, to: number): Interval[] {
  let out: Interval[] | null = null;
  for (const zone of w.zones) {
    const open = openIntervals(w, zone, from, to);
    out = out === null ? open : intersectIntervals(out, open);
  }
  return out ?? [];
}

/**
 * open: a call may START now — inside an open interval of the intersection over zones (and over upload ∩ legal),
 * shortened by closingMarginMs at each close; changesAt: the next instant that changes (the margin-adjusted close
 * when open, the next opening when closed), null when nothing changes within the horizon (`STATE_HORIZON_MS`).
 * A stretch shorter than the margin never opens.
 */
export function windowStateAt(
  w: PartWindow,
  nowMs: number,
  closingMarginMs: number,
): { open: boolean; changesAt: number | null } {
  const until = nowMs + STATE_HORIZON_MS;
  return stateOfIntervals(partIntervals(w, nowMs, until), nowMs, until, closingMarginMs);
}

/**
 * The next stretch in which calls may start, within horizonMs; null when none (held, not dialled). `opensAt` is
 * `nowMs` when open now and never later than `nowMs + horizonMs`; `closesAt` is the margin-adjusted close, or, for a
 * stretch still open 8 days past the horizon, that point.
 */
export function nextOpening(
  w: PartWindow,
  nowMs: number,
  closingMarginMs: number,
  horizonMs: number,
): { opensAt: number; closesAt: number } | null {
  const until = nowMs + horizonMs + CLOSE_LOOKAHEAD_MS;
  for (const iv of partIntervals(w, nowMs, until)) {
    const opensAt = Math.max(iv.from, nowMs);
    if (opensAt > nowMs + horizonMs) return null;
    const closesAt = iv.to >= until ? until : iv.to - closingMarginMs;
    if (closesAt > opensAt) return { opensAt, closesAt };
  }
  return null;
}

/**
 * Why `nextOpening` with `quietMs` found no stretch: `closed`, the window does not open within `horizonMs`; or
 * `too_short`, it opens, but never for longer than the quiet time before each close in which no call may start
 * (the closing margin and the pause lead), with the longest stretch it is open. Only stretches that open after
 * `nowMs` are measured, whole: a stretch open at `nowMs` may be a long one with only minutes left of it.
 */
export function noOpeningReason(
  w: PartWindow,
  nowMs: number,
  horizonMs: number,
): { kind: 'closed' } | { kind: 'too_short'; longestMs: number } {
  const later = partIntervals(w, nowMs, nowMs + horizonMs + CLOSE_LOOKAHEAD_MS).filter(
    (iv) => iv.from > nowMs && iv.from <= nowMs + horizonMs,
  );
  const longestMs = Math.max(0, ...later.map((iv) => iv.to - iv.from));
  return longestMs > 0 ? { kind: 'too_short', longestMs } : { kind: 'closed' };
}

const span = (ms: number) => (ms % 60_000 === 0 ? `${ms / 60_000} min` : `${Math.round(ms / 1000)} s`);

/**
 * The words for a window too short to call in: how long it is open at most, and the quiet time before each close,
 * made of the closing margin and the pause lead (CLOSING_MARGIN_MINUTES, PAUSE_LEAD_SECONDS).
 */
export function tooShortWords(longestMs: number, t: Pick<PauseTimings, 'closingMarginMs' | 'pauseLeadMs'>): string {
  return (
    `is open at most ${span(longestMs)} at a time, and no call may start in the last ${span(quietFrom(t))} ` +
    `before each close (the ${span(t.closingMarginMs)} closing margin and the ${span(t.pauseLeadMs)} the pause is sent ahead of it)`
  );
}

/**
 * Why a part with no opening within `horizonMs` of `fromMs` is held: its failure code, and the words that follow
 * "the calling window", ending "in the N days" for the caller to say from when. The one wording of intake's
 * up-front note and the lifecycle's failure, so both say what the other will.
 */
export function heldReason(
  w: PartWindow,
  fromMs: number,
  horizonMs: number,
  timings: Pick<PauseTimings, 'closingMarginMs' | 'pauseLeadMs'>,
): { code: 'window_too_short' | 'window_never_opens'; words: string } {
  const days = Math.round(horizonMs / DAY_MS);
  const why = noOpeningReason(w, fromMs, horizonMs);
  return why.kind === 'too_short'
    ? { code: 'window_too_short', words: `${tooShortWords(why.longestMs, timings)}, in the ${days} days` }
    : { code: 'window_never_opens', words: `does not open in the ${days} days` };
}
