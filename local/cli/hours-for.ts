import { holidayName } from '#commons/calling-hours/holidays.ts';
import { regionsOfNumber } from '#commons/calling-hours/regions.ts';
import { SPLIT_AREA_CODES } from '#commons/calling-hours/split-area-codes.ts';
import { parseWindowRules, type WindowRule, WindowSpecError } from '#commons/calling-window.ts';
import type { CampaignPlan } from '#commons/campaign-plan.ts';
import {
  type AppliedRule,
  DEFAULT_LEGAL_HOURS,
  type LegalHoursTable,
  noLegalHoursMessage,
} from '#commons/legal-hours.ts';
import { normalizePhone } from '#commons/phone/phone.ts';
import { partIntervals, partWindow } from '#commons/window-plan.ts';
import { instantOfWallTime, zoneOffsetMs } from '#commons/zoned-time.ts';
import { zonesForNumber } from '#intake/time-zones.ts';

/** When a number may be called on one local date, and every rule that says so. */
export interface HoursAnswer {
  phone: string;
  /** The number's country (ISO 3166-1), when its prefix says. */
  country: string | null;
  /** Every zone the number may ring in; a call may start only when the window is open in all of them. */
  zones: string[];
  /** The states or provinces whose rules apply (`US-FL`); empty outside the US and Canada. */
  regions: string[];
  /** The instants a call may start on that date, ISO 8601 with the offset of zones[0]. */
  allowed: { from: string; to: string }[];
  rules: AppliedRule[];
  /** Public holidays on that date that close it, by scope. */
  holidays: { scope: string; name: string }[];
  /** Why the number has more than one zone, when its area code spans zones. */
  zoneSource: { areaCode: string; source: string; note: string } | null;
}

export interface HoursQuestion {
  /** YYYY-MM-DD in the number's (first) zone. */
  on: string;
  /** An upload's calling window, intersected with the rules. */
  window?: string | null;
  table?: LegalHoursTable;
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/**
 * Numbers that share zones, country, states (and a NANP area code) get the same answer on a date: worked out once.
 * Keyed per table, since a `LEGAL_HOURS` override changes every answer.
 */
type Shared = SharedHours | { error: string };
const answers = new WeakMap<LegalHoursTable, Map<string, Shared>>();
const MAX_REMEMBERED = 10_000;

/** `2026-12-07T09:00:00-05:00`: the instant as the zone's clock shows it, with the zone's offset. */
export function isoInZone(ms: number, zone: string): string {
  const offset = zoneOffsetMs(ms, zone);
  const wall = new Date(ms + offset).toISOString().slice(0, 19);
  const sign = offset < 0 ? '-' : '+';
  const abs = Math.abs(offset) / 60_000;
  return `${wall}${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
}

/**
 * `callsheet hours`' answer. It lives on the top floor because it composes intake's phone and zone reading with the
 * lifecycle's part window: the windows in which a call to `phone` may start on a local date: the strictest of every rule that may apply
 * (country, state or province, every zone the number may ring in, public holidays where a rule bans them),
 * intersected with the upload's window when given. Worked out by the same part window the lifecycle dials by.
 */
export function hoursFor(phone: string, question: HoursQuestion): HoursAnswer | { error: string } {
  const a = hoursOf(phone, question);
  return 'error' in a ? a : { phone: a.phone, ...a.shared };
}

/** All of an answer but the phone: the same for every number of its zones, country, states and area code on a date. */
export type SharedHours = Omit<HoursAnswer, 'phone'>;

/**
 * `hoursFor`'s answer with the part it shares with other numbers kept apart: one object for all of them, so that a
 * caller can render it once.
 */
export function hoursOf(
  phone: string,
  question: HoursQuestion,
): { phone: string; shared: SharedHours } | { error: string } {
  const m = DATE.exec(question.on);
  if (!m || new Date(`${question.on}T00:00:00Z`).toISOString().slice(0, 10) !== question.on)
    return { error: `"${question.on}" is not a date (use YYYY-MM-DD, e.g. 2026-12-07)` };
  const number = normalizePhone(phone, undefined);
  if (!number.ok) return { error: `"${phone}" is not a valid phone number in international form (e.g. +12025550143)` };
  const { e164, country } = number;
  let upload: WindowRule[] | null = null;
  try {
    upload = question.window ? parseWindowRules(question.window) : null;
  } catch (err) {
    if (err instanceof WindowSpecError) return { error: `the window: ${err.message}` };
    throw err;
  }
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const noon = Date.UTC(year, month - 1, day, 12);
  const choice = zonesForNumber(e164, noon);
  if (!choice) return { error: `${e164}: callsheet has no time-zone data for this number, so it is never called` };
  const regions = regionsOfNumber(e164, country);
  const table = question.table ?? DEFAULT_LEGAL_HOURS;
  const npa = e164.startsWith('+1') ? e164.slice(2, 5) : '';
  const key = `${choice.zones.join(' ')}|${country}|${regions.join(' ')}|${npa}|${question.on}|${question.window ?? ''}`;
  let remembered = answers.get(table);
  if (!remembered) {
    remembered = new Map();
    answers.set(table, remembered);
  }
  let shared = remembered.get(key);
  if (!shared) {
    shared = answerFor(choice.zones, country, regions, npa, upload, table, year, month, day, question.on);
    if (remembered.size >= MAX_REMEMBERED) remembered.clear();
    remembered.set(key, shared);
  }
  return 'error' in shared ? { error: `${e164}: ${shared.error}` } : { phone: e164, shared };
}

function answerFor(
  zoneList: readonly string[],
  country: string | null,
  regionList: readonly string[],
  npa: string,
  upload: WindowRule[] | null,
  table: LegalHoursTable,
  year: number,
  month: number,
  day: number,
  on: string,
): Shared {
  const zones = [...zoneList];
  const regions = [...regionList];
  const zone = zones[0] as string;
  const from = instantOfWallTime({ year, month, day, hour: 0, minute: 0, second: 0 }, zone);
  const next = new Date(Date.UTC(year, month - 1, day + 1));
  const to = instantOfWallTime(
    {
      year: next.getUTCFullYear(),
      month: next.getUTCMonth() + 1,
      day: next.getUTCDate(),
      hour: 0,
      minute: 0,
      second: 0,
    },
    zone,
  );
  const plan = {
    part: { zones, timeZone: zone, country, regions },
    window: { rules: upload, holidays: [] },
  } as unknown as CampaignPlan;
  const result = partWindow(plan, table, from);
  // Here the window is this command's own flag, not an upload's setting.
  if (!result.ok)
    return {
      error: result.code === 'no_legal_hours' ? noLegalHoursMessage(country, table, '--window') : result.message,
    };
  const w = result.window;
  const split = npa ? SPLIT_AREA_CODES[npa] : undefined;
  return {
    country,
    zones,
    regions,
    allowed: partIntervals(w, from, to).map((i) => ({ from: isoInZone(i.from, zone), to: isoInZone(i.to, zone) })),
    rules: w.legal,
    holidays: w.holidayScopes.flatMap((scope) => {
      const name = holidayName(scope, on);
      return name ? [{ scope, name }] : [];
    }),
    zoneSource: split
      ? { areaCode: npa, source: `${split.source.law} ${split.source.section}`, note: split.note }
      : null,
  };
}
