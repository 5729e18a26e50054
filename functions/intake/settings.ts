import type { CountryCode } from 'libphonenumber-js/max';
import { parseHolidays, parseWindowRules, type WindowRule, WindowSpecError } from '#commons/calling-window.ts';
import { type FollowUpPolicy, parseFollowUpPolicy } from '#commons/follow-up-policy.ts';
import { isCountryCode } from '#commons/phone/phone.ts';
import { type Cell, cellText, headerKey } from '#commons/spreadsheet/cell.ts';
import { FileProblem } from '#commons/spreadsheet/file-problem.ts';
import { isValidTimeZone, LIMITS } from '#commons/voice-api/contract.ts';
import { counted } from '#commons/words.ts';
import { parseDateTimeIn } from '#commons/zoned-time.ts';

/** What an upload may say about its campaign. Anything absent takes the deployment default. */
export interface UploadSettings {
  campaignName?: string;
  /** Local wall time `YYYY-MM-DDTHH:MM:SS` (or with an offset) and the IANA zone it is read in. */
  start?: { dateTime: string; timeZone: string };
  retries?: number;
  window?: WindowRule[];
  holidays?: string[];
  defaultCountry?: CountryCode;
  /** Launch even if the same content was uploaded before. */
  repeatUpload?: boolean;
  /** Call premium-rate, shared-cost and other costly numbers too (they are rejected unless this is yes). */
  allowCostlyNumbers?: boolean;
  /** Follow-up rounds by outcome, e.g. `no_answer,busy after 2h; failed after 1d; rounds 3` (docs/architecture.md, "Call outcomes"). */
  followUp?: FollowUpPolicy;
}

type Name = keyof typeof SETTINGS;

/** Each setting: the names users may write it as (compared like headers; `_` and `-` count as spaces). */
const SETTINGS = {
  campaignName: ['campaign name', 'name'],
  startDateTime: ['start date time', 'start', 'start date', 'start time'],
  timeZone: ['time zone', 'timezone'],
  retries: ['retries'],
  window: ['calling window', 'window', 'calling hours'],
  holidays: ['holidays', 'blackout dates'],
  defaultCountry: ['default country', 'country'],
  repeatUpload: ['repeat upload', 'allow repeat'],
  allowCostlyNumbers: ['allow costly numbers', 'allow premium numbers', 'allow premium'],
  followUp: ['follow up', 'follow ups', 'follow up rounds'],
} as const;

const settingKey = (s: string) => s.replace(/[_-]+/g, ' ').replace(/\s+/g, ' ').trim().toLowerCase();
const NAME_OF = new Map<string, Name>(
  Object.entries(SETTINGS).flatMap(([name, aliases]) => aliases.map((a) => [a, name as Name])),
);
const USER_NAMES = Object.values(SETTINGS)
  .map((a) => a[0])
  .join(', ');

export const SETTINGS_CODE = 'invalid_settings';

interface RawSetting {
  value: string;
  /** Where the user wrote it, for messages: `Settings sheet row 3` or `S3 metadata x-amz-meta-retries`. */
  where: string;
  /** Written in the Settings sheet (else in metadata or a flag): a message's advice names a row, or the other. */
  inSheet: boolean;
}

function problem(where: string, message: string): FileProblem {
  return new FileProblem(SETTINGS_CODE, `${where}: ${message}`);
}

const DATE_SETTINGS: ReadonlySet<Name> = new Set(['startDateTime', 'holidays']);

/** Days from Excel's epoch (1899-12-30) to 1970-01-01; the streaming reader gives date cells as serial numbers. */
const EXCEL_EPOCH_DAYS = 25569;

/**
 * A date cell has no zone: its serial number (or exceljs's Date, whose UTC fields hold it) is the wall time the
 * user typed, read later in the setting's own time zone.
 */
function settingText(c: Cell | undefined, name: Name | undefined): string {
  let date: Date | null = c instanceof Date ? c : null;
  if (typeof c === 'number' && name !== undefined && DATE_SETTINGS.has(name) && c > 0 && c < 2_958_466)
    date = new Date(Math.round((c - EXCEL_EPOCH_DAYS) * 86_400) * 1000);
  if (date) {
    const iso = date.toISOString();
    return iso.endsWith('T00:00:00.000Z') ? iso.slice(0, 10) : iso.slice(0, 19);
  }
  return cellText(c);
}

function collect(into: Map<Name, RawSetting>, rawName: string, value: string, where: string, inSheet: boolean): void {
  const name = NAME_OF.get(settingKey(rawName));
  if (!name) throw problem(where, `"${rawName}" is not a setting callsheet knows (known: ${USER_NAMES})`);
  const before = into.get(name);
  if (before && before.value !== value)
    throw problem(where, `"${rawName}" is also given in ${before.where} with a different value; keep one`);
  if (!before) into.set(name, { value, where, inSheet });
}

function fromSheet(rows: Cell[][], into: Map<Name, RawSetting>): void {
  rows.forEach((cells, i) => {
    const name = cellText(cells[0]);
    if (i === 0 && headerKey(cells[0]) === 'setting') return; // a "Setting | Value" header row
    const known = NAME_OF.get(settingKey(name));
    const values = cells
      .slice(1)
      .map((c) => settingText(c, known))
      .filter(Boolean);
    if (name === '' && values.length === 0) return;
    const where = `Settings sheet row ${i + 1}`;
    if (name === '') throw problem(where, 'a value without a setting name in the first column');
    // Holidays may be spread over several cells; every other setting is the second column.
    const value = known === 'holidays' ? values.join(', ') : settingText(cells[1], known);
    if (value !== '') collect(into, name, value, where, true);
  });
}

/** Where a setting given outside the sheet was written, for messages; S3 object metadata unless told otherwise. */
export type SettingSource = (key: string) => string;
export const S3_METADATA: SettingSource = (key) => `S3 metadata x-amz-meta-${key}`;

function fromMetadata(metadata: Record<string, string>, into: Map<Name, RawSetting>, source: SettingSource): void {
  for (const [key, value] of Object.entries(metadata)) {
    if (value.trim() === '') continue;
    collect(into, key, value.trim(), source(key), false);
  }
}

const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?$/;
const MONTHS = 'January February March April May June July August September October November December'.split(' ');

/**
 * Why a start date-time is not a real moment, or null when it is. Dates and times are never rolled over: February
 * 30th is not March 2nd, and hour 25 is not the next morning.
 */
export function startProblem(value: string): string | null {
  const m = DATE_TIME.exec(value.trim());
  if (!m) return `"${value}" is not a date and time (use e.g. 2026-12-01T09:30:00)`;
  const [y, mo, d, h, mi, sec] = m.slice(1, 7).map((x) => Number(x ?? 0)) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const bad = (why: string) => `"${value}" is not a real date and time: ${why}`;
  if (mo < 1 || mo > 12) return bad(`there is no month ${mo}`);
  const days = new Date(Date.UTC(y, mo, 0)).getUTCDate();
  if (d < 1 || d > days) return bad(`${MONTHS[mo - 1]} ${y} has ${days} days`);
  if (h > 23) return bad(`there is no hour ${h} (hours run from 00 to 23)`);
  if (mi > 59) return bad(`there is no minute ${mi} (minutes run from 00 to 59)`);
  if (sec > 59) return bad(`there is no second ${sec} (seconds run from 00 to 59)`);
  const offset = m[7];
  if (offset && offset !== 'Z' && (Number(offset.slice(1, 3)) > 23 || Number(offset.slice(-2)) > 59))
    return bad(`${offset} is not a UTC offset`);
  return null;
}

function windowPart<T>(s: RawSetting, parse: (text: string) => T): T {
  try {
    return parse(s.value);
  } catch (err) {
    if (err instanceof WindowSpecError) throw problem(s.where, err.message);
    throw err;
  }
}

function yesNo(s: RawSetting): boolean {
  const v = s.value.toLowerCase();
  if (['yes', 'true', 'y', '1'].includes(v)) return true;
  if (['no', 'false', 'n', '0'].includes(v)) return false;
  throw problem(s.where, `write yes or no, not "${s.value}"`);
}

/**
 * How far ahead a start may be, by default. One lifecycle execution runs at most LIFECYCLE_TIMEOUT_SECONDS (30
 * days); it waits for the start, then must have launched and continued afresh (at the latest after
 * CONTINUE_AFTER_STEPS looks of at most POLL_MAX_SECONDS: 1000 × 900 s, about 10.4 days) before then.
 */
export const DEFAULT_START_HORIZON_DAYS = 14;

/** Until when a start is accepted: `days` after `now`. */
export interface StartHorizon {
  now: number;
  days: number;
}

/** Why a start is further ahead than the workflow can wait, or null. */
export function startTooFar(startMs: number, horizon: StartHorizon): string | null {
  const limit = horizon.now + horizon.days * 86_400_000;
  if (startMs <= limit) return null;
  const ahead = Math.ceil((startMs - horizon.now) / 86_400_000);
  return `the start is ${counted(ahead, 'day')} ahead, and a campaign's workflow waits at most ${counted(horizon.days, 'day')} for its start (setting START_HORIZON_DAYS): upload it again within ${counted(horizon.days, 'day')} of the start, or choose an earlier start`;
}

/**
 * Reads the settings an upload gives, from its Settings worksheet and its S3 object metadata. A setting given in
 * both places must agree. Any bad value is a file-level problem naming the setting, where it was written and why.
 * With a horizon, a start further ahead than it is refused too.
 */
export function readSettings(
  sheetRows: Cell[][] | null,
  metadata: Record<string, string> = {},
  source: SettingSource = S3_METADATA,
  horizon: StartHorizon | null = null,
): UploadSettings {
  const raw = new Map<Name, RawSetting>();
  if (sheetRows) fromSheet(sheetRows, raw);
  fromMetadata(metadata, raw, source);
  const out: UploadSettings = {};

  const name = raw.get('campaignName');
  if (name) {
    if (name.value.length > 200) throw problem(name.where, 'the campaign name is longer than 200 characters');
    out.campaignName = name.value;
  }

  const start = raw.get('startDateTime');
  const zone = raw.get('timeZone');
  if (zone && !isValidTimeZone(zone.value))
    throw problem(zone.where, `"${zone.value}" is not an IANA time zone (e.g. America/New_York, Asia/Kolkata)`);
  if (start && !zone)
    throw problem(
      start.where,
      `a start date-time is a local time, so it needs a time zone too: ${start.inSheet ? 'a Settings row "time zone" with e.g. America/New_York' : `${source('time-zone')}, e.g. America/New_York`}`,
    );
  if (start && zone) {
    const why = startProblem(start.value);
    if (why) throw problem(start.where, why);
    const at = parseDateTimeIn(start.value, zone.value);
    if (Number.isNaN(at))
      throw problem(start.where, `"${start.value}" is not a date and time (use e.g. 2026-12-01T09:30:00)`);
    const far = horizon && startTooFar(at, horizon);
    if (far) throw problem(start.where, far);
    out.start = { dateTime: start.value.replace(' ', 'T'), timeZone: zone.value };
  }

  const retries = raw.get('retries');
  if (retries) {
    const n = Number(retries.value);
    if (!/^\d+$/.test(retries.value) || n > LIMITS.campaignRetriesMax)
      throw problem(retries.where, `retries must be a whole number from 0 to ${LIMITS.campaignRetriesMax}`);
    out.retries = n;
  }

  const window = raw.get('window');
  if (window) out.window = windowPart(window, parseWindowRules);
  const holidays = raw.get('holidays');
  if (holidays) out.holidays = windowPart(holidays, parseHolidays);

  const country = raw.get('defaultCountry');
  if (country) {
    const code = country.value.toUpperCase();
    if (!isCountryCode(code))
      throw problem(country.where, `"${country.value}" is not a two-letter country code (e.g. US, IN, GB)`);
    out.defaultCountry = code;
  }

  const repeat = raw.get('repeatUpload');
  if (repeat) out.repeatUpload = yesNo(repeat);
  const costly = raw.get('allowCostlyNumbers');
  if (costly) out.allowCostlyNumbers = yesNo(costly);
  const followUp = raw.get('followUp');
  if (followUp) {
    const policy = parseFollowUpPolicy(followUp.value);
    if ('problem' in policy) throw problem(followUp.where, policy.problem);
    // A round's workflow waits for its start as the first part's does: no longer than the horizon.
    const late = horizon && policy.rules.find((r) => r.afterMinutes > horizon.days * 1440);
    if (late)
      throw problem(
        followUp.where,
        `a follow-up round waits ${counted(late.afterMinutes / 1440, 'day')} after its part ends, and a campaign's workflow waits at most ${counted(horizon.days, 'day')} for its start (setting START_HORIZON_DAYS): choose a delay of ${counted(horizon.days, 'day')} or less`,
      );
    out.followUp = policy;
  }
  return out;
}
