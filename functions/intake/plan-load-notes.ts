import type { BudgetLimits } from '#commons/api-budget/shared-budget.ts';
import { describeWindow, type WindowRule } from '#commons/calling-window.ts';
import { DEFAULT_LEGAL_HOURS, type LegalHoursTable } from '#commons/legal-hours.ts';
import { type PartStretch, type PauseTimings, planLoad, quietFrom } from '#commons/plan-load.ts';
import { heldReason, nextOpening, type PartWindow, partIntervals, partWindow } from '#commons/window-plan.ts';
import { counted } from '#commons/words.ts';
import { parseDateTimeIn } from '#commons/zoned-time.ts';
import type { ValidationOutcome } from './validate-upload.ts';

/** How far past its start an upload's closes are looked at: a week holds every day a weekly window repeats on. */
export const LOOK_AHEAD_DAYS = 7;

const DAY = 86_400_000;

/**
 * What intake knows of the API plan: its limits, when the lifecycle pauses before a close, and how far it looks
 * ahead for an opening before it holds a part (HOLD_HORIZON_DAYS, read by `readHoldHorizonMs`).
 */
export interface ApiPlan {
  limits: BudgetLimits;
  timings: PauseTimings;
  holdHorizonMs: number;
}

const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const clock = (ms: number) => {
  const iso = new Date(ms).toISOString();
  return iso.slice(17, 19) === '00' ? iso.slice(11, 16) : iso.slice(11, 19);
};
const onDay = (ms: number) => `${DAYS[new Date(ms).getUTCDay()]} ${new Date(ms).toISOString().slice(0, 10)}`;
const more = (n: number, what: string) =>
  n > 0
    ? ` The same holds at ${counted(n, `more ${what}`, `more ${what}s`)} in the first ${LOOK_AHEAD_DAYS} days.`
    : '';

/** When the upload's parts may first be called: its start when one is set and still to come, else now. */
function startOf(validation: ValidationOutcome, nowMs: number): number {
  const { start } = validation.settings;
  const at = start ? parseDateTimeIn(start.dateTime, start.timeZone) : Number.NaN;
  return Number.isFinite(at) ? Math.max(nowMs, at) : nowMs;
}

type PartWindows = { part: ValidationOutcome['parts'][number]; window: PartWindow }[];

/**
 * Each part with its calling window, as the lifecycle builds it, and the parts whose window cannot be built, with
 * why: the lifecycle fails those without dialling.
 */
function windowsOf(
  validation: ValidationOutcome,
  legal: LegalHoursTable | undefined,
  nowMs: number,
): { windows: PartWindows; unbuilt: { part: ValidationOutcome['parts'][number]; message: string }[] } {
  const { settings, parts } = validation;
  const window = { rules: settings.window ?? null, holidays: settings.holidays ?? [] };
  const windows: PartWindows = [];
  const unbuilt: { part: ValidationOutcome['parts'][number]; message: string }[] = [];
  for (const part of parts) {
    const w = partWindow(
      {
        part: { zones: part.zones, timeZone: part.timeZone, country: part.country, regions: [...part.regions] },
        window,
      },
      legal ?? DEFAULT_LEGAL_HOURS,
      nowMs,
    );
    if (w.ok) windows.push({ part, window: w.window });
    else unbuilt.push({ part, message: w.message });
  }
  return { windows, unbuilt };
}

/** Every stretch the upload's parts are called in, from `from` for LOOK_AHEAD_DAYS, closes cut by it left out. */
function stretchesOf(windows: PartWindows, from: number): PartStretch[] {
  const to = from + LOOK_AHEAD_DAYS * DAY;
  return windows.flatMap(({ part, window }) =>
    partIntervals(window, from, to)
      .filter((iv) => iv.to < to)
      .map((iv) => ({ part: part.index, opensAt: iv.from, closesAt: iv.to })),
  );
}

/**
 * A part whose window does not open in the days the lifecycle looks ahead is held, not dialled: most often numbers
 * whose prefix may ring in zones whose hours never overlap (a non-geographic +1 number spans Guam to Newfoundland),
 * or a window no longer than the quiet time before its close. Said up front, per part, as the lifecycle will find
 * it (the same margin and pause lead), so the uploader can give those rows a Time Zone cell or another window.
 */
function neverOpensNotes(held: PartWindows, from: number, plan: ApiPlan): string[] {
  return held.map(({ part, window }) => {
    const lead = `part ${part.index} (${counted(part.contacts.length, 'contact')}) will be held, not dialled: its calling window`;
    const zones =
      window.zones.length > 1
        ? `its numbers may ring in ${window.zones.length} time zones (${window.zones.join(', ')}) and are called only when every one of them is open`
        : '';
    const why = heldReason(window, from, plan.holdHorizonMs, plan.timings);
    if (why.code === 'window_too_short')
      return (
        `${lead} ${why.words} from its start${zones ? ` (${zones})` : ''}. ` +
        `Give a window longer than ${Math.ceil(quietFrom(plan.timings) / 60_000)} minutes${zones ? ', or those rows a Time Zone or State/Region cell naming where they are' : ''}.`
      );
    return (
      `${lead} ${why.words} from its start${zones ? `: ${zones}, which never happens` : ''}. ` +
      'Give those rows a Time Zone or State/Region cell naming where they are, or call them in another upload with a window that fits.'
    );
  });
}

/** The parts the lifecycle will hold, not dial: no stretch to call in within its look-ahead (the same quiet time). */
function heldOf(windows: PartWindows, from: number, plan: ApiPlan): PartWindows {
  return windows.filter(
    ({ window }) => nextOpening(window, from, quietFrom(plan.timings), plan.holdHorizonMs) === null,
  );
}

/**
 * What intake says up front when the upload's parts need more of the API plan than it has (functions/commons/
 * plan-load.ts): the first crowded close and the first busy hour, in words the uploader can act on. Not a
 * rejection: braked parts stop safely, only for everyone on the agent at once. Empty when the plan carries the work.
 */
function planLoadNotes(
  validation: ValidationOutcome,
  windows: PartWindows,
  from: number,
  plan: ApiPlan,
  nowMs: number,
): string[] {
  if (validation.parts.length === 0) return [];
  const { limits, timings } = plan;
  const load = planLoad(stretchesOf(windows, from), { at: nowMs, parts: validation.parts.length }, limits, timings);
  const notes: string[] = [];
  const close = load.crowded[0];
  if (close)
    notes.push(
      `${close.parts === 1 ? '1 part closes its' : `${close.parts} parts close their`} calling window at ${clock(close.closesAt)}Z on ${onDay(close.closesAt)}; ` +
        `the API plan (${counted(limits.perMinute, 'request')} a minute${limits.safetyReserve.perMinute > 0 ? `, ${limits.safetyReserve.perMinute} of them kept for the guard and sweeper` : ''}) ` +
        `can pause about ${close.pausable} of them between ${clock(close.pausesFrom)}Z and ${clock(close.brakeAt)}Z: ` +
        `the other ${close.parts - close.pausable} will be stopped by the agent brake, which halts every campaign on the agent.` +
        more(load.crowded.length - 1, 'close') +
        ' Split the sheet into uploads with windows that close at different times, or raise API_BUDGET_PER_MINUTE if your plan allows.',
    );
  const hour = load.busy[0];
  if (hour)
    notes.push(
      `In the hour from ${clock(hour.from)}Z on ${onDay(hour.from)} the ${validation.parts.length} parts need about ${hour.requests} API requests ` +
        `to launch, resume and pause (a pause and its confirmation each), more than the ${hour.room} the API plan ` +
        `(${limits.perHour} requests an hour) leaves after the parts' status checks: some parts will resume late, and if the hour runs out a pause gives way to the agent brake.` +
        more(load.busy.length - 1, 'hour') +
        ' Split the sheet into uploads that run at different times, or raise API_BUDGET_PER_HOUR if your plan allows.',
    );
  return notes;
}

/** A start the upload asks for that has passed is no error (a sheet may sit a while), but it is said. */
function pastStartNote(start: { dateTime: string; timeZone: string } | undefined, nowMs: number): string[] {
  if (!start || parseDateTimeIn(start.dateTime, start.timeZone) >= nowMs) return [];
  return [
    `the start date time ${start.dateTime} (${start.timeZone}) has passed: the campaigns start now, each when its calling window opens`,
  ];
}

/**
 * A range whose end comes before its start runs past midnight: right for a night shift, but `17:00-09:00` is more
 * often a daytime window written backwards, so it is said (the legal hours still cut it either way).
 */
export function overnightNote(rules: readonly WindowRule[] | undefined): string[] {
  // An end of 00:00 closes at midnight, not past it.
  const overnight = (rules ?? []).filter((r) => r.ranges.some((x) => x.end < x.start && x.end > 0));
  if (overnight.length === 0) return [];
  const text = describeWindow({ rules: overnight, holidays: [] });
  return [
    `the calling window ${text} runs past midnight into the next morning; if you meant the daytime, write the earlier time first (e.g. 09:00-17:00); the legal hours apply either way`,
  ];
}

/**
 * What intake says up front of an upload it launches, and `callsheet validate` of a sheet it would: a start that
 * has passed, a window that runs past midnight, a part whose window never opens, and a close the API plan cannot
 * pause every part before.
 */
export function upFrontNotes(
  validation: ValidationOutcome,
  legal: LegalHoursTable | undefined,
  plan: ApiPlan,
  nowMs: number,
): string[] {
  return upFront(validation, legal, plan, nowMs).notes;
}

/**
 * `upFrontNotes`, and the indexes of the parts that will not be dialled, held or without a window the lifecycle can
 * build (`validate` fails when all are).
 */
export function upFront(
  validation: ValidationOutcome,
  legal: LegalHoursTable | undefined,
  plan: ApiPlan,
  nowMs: number,
): { notes: string[]; held: number[] } {
  // Each part's window built once, for everything that reads it.
  const { windows, unbuilt } = windowsOf(validation, legal, nowMs);
  const from = startOf(validation, nowMs);
  const held = heldOf(windows, from, plan);
  return {
    notes: [
      ...pastStartNote(validation.settings.start, nowMs),
      ...overnightNote(validation.settings.window),
      ...unbuilt.map(
        ({ part, message }) =>
          `part ${part.index} (${counted(part.contacts.length, 'contact')}) will not be dialled: ${message}`,
      ),
      ...neverOpensNotes(held, from, plan),
      ...planLoadNotes(validation, windows, from, plan, nowMs),
    ],
    held: [...unbuilt, ...held].map(({ part }) => part.index).sort((a, b) => a - b),
  };
}
