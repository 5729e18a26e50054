import { CA_PROVINCE_RULES } from './calling-hours/ca-provinces.ts';
import { COUNTRY_RULES } from './calling-hours/countries.ts';
import type { HoursRule } from './calling-hours/types.ts';
import { US_STATE_RULES } from './calling-hours/us-states.ts';
import { intersectRules, parseWindowRules, type WindowRule, WindowSpecError } from './calling-window.ts';

export type { HoursRule } from './calling-hours/types.ts';

/**
 * Calling-hours rules by scope: countries (`US`) and their subdivisions (`US-FL`, `CA-QC`), each with its source.
 * These are defaults with citations, not legal advice; `LEGAL_HOURS` lets a deployment replace or add entries.
 */
export type LegalHoursTable = Readonly<Record<string, HoursRule>>;

/** The built-in table: countries, US states and DC, Canadian provinces and territories. */
export const DEFAULT_LEGAL_HOURS: LegalHoursTable = Object.freeze({
  ...COUNTRY_RULES,
  ...US_STATE_RULES,
  ...CA_PROVINCE_RULES,
});

const SCOPE = /^[A-Z]{2}(-[A-Z0-9]{1,3})?$/;

/** An unusable `LEGAL_HOURS` value; the message says what is wrong. */
export class LegalHoursError extends Error {}

/** "law section", as reports and `callsheet hours` print a rule's source. */
export const citation = (rule: HoursRule): string => `${rule.source.law} ${rule.source.section}`.trim();

/** A rule as reports, part windows and `callsheet hours` carry it: plain JSON, its source as one citation. */
export interface AppliedRule {
  scope: string;
  hours: string | null;
  noHolidays: boolean;
  basis: HoursRule['basis'];
  source: string;
  note?: string;
}

export const appliedRule = (rule: HoursRule): AppliedRule => ({
  scope: rule.scope,
  hours: rule.hours,
  noHolidays: rule.noHolidays,
  basis: rule.basis,
  source: citation(rule),
  ...(rule.note ? { note: rule.note } : {}),
});

/**
 * Reads the `LEGAL_HOURS` deployment setting, JSON from scope (`GB`, `US-FL`) to hours or `"off"`, over the
 * built-in table: `{"GB": "Mon-Fri 09:00-20:00", "DE": "off"}`. Hours replace the entry's hours; a holiday ban
 * that comes from law stays, one that is part of a conservative default goes with it. `"off"` removes an entry that is only callsheet's conservative default (numbers there then need the
 * upload's window); hours that come from law cannot be switched off, only replaced. Throws `LegalHoursError`.
 */
export function parseLegalHours(value: string): LegalHoursTable {
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    throw new LegalHoursError('not JSON: use an object from country code to hours, e.g. {"GB": "Mon-Fri 09:00-20:00"}');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw new LegalHoursError('not a JSON object from country code to hours, e.g. {"GB": "Mon-Fri 09:00-20:00"}');
  const table: Record<string, HoursRule> = { ...DEFAULT_LEGAL_HOURS };
  for (const [key, spec] of Object.entries(parsed)) {
    const scope = key.toUpperCase();
    if (!SCOPE.test(scope))
      throw new LegalHoursError(`"${key}" is not a two-letter country code or a subdivision such as US-FL`);
    if (typeof spec !== 'string')
      throw new LegalHoursError(`the hours for ${scope} must be a text such as "Mon-Fri 09:00-20:00", or "off"`);
    const built = DEFAULT_LEGAL_HOURS[scope];
    if (spec.trim().toLowerCase() === 'off') {
      if (built && built.basis !== 'default')
        throw new LegalHoursError(
          `the hours for ${scope} come from law (${citation(built)}) and cannot be switched off; give other hours instead`,
        );
      delete table[scope];
      continue;
    }
    try {
      parseWindowRules(spec);
    } catch (err) {
      if (err instanceof WindowSpecError) throw new LegalHoursError(`the hours for ${scope}: ${err.message}`);
      throw err;
    }
    table[scope] = {
      scope,
      hours: spec,
      // A law's holiday ban stays; a conservative default is replaced whole, ban and all.
      noHolidays: built?.basis === 'law' ? built.noHolidays : false,
      basis: 'setting',
      source: { law: 'deployment setting LEGAL_HOURS', section: '' },
      ...(built ? { note: `replaces the built-in ${built.hours ?? 'rule'} (${citation(built)})` } : {}),
    };
  }
  return Object.freeze(table);
}

/** `parseLegalHours` in the form `EnvReader.checked` takes: the table, or `{ problem }` so start-up fails with it. */
export function readLegalHours(value: string): LegalHoursTable | { problem: string } {
  try {
    return parseLegalHours(value);
  } catch (err) {
    if (err instanceof LegalHoursError) return { problem: err.message };
    throw err;
  }
}

/** The country's own rule, or null when callsheet has none (an explicit window is then required). */
export const legalHoursOf = (table: LegalHoursTable, country: string | null): HoursRule | null =>
  (country && table[country]) || null;

/**
 * Every rule that may apply to a number: its country's, then each subdivision it may belong to. Null when the
 * country has no rule: nobody can say when calling there is legal without the upload's own window.
 */
export function rulesThatApply(
  table: LegalHoursTable,
  country: string | null,
  regions: readonly string[] = [],
): HoursRule[] | null {
  const own = legalHoursOf(table, country);
  if (!own) return null;
  const out = [own];
  for (const r of regions) {
    const rule = table[r];
    if (rule && !out.includes(rule)) out.push(rule);
  }
  return out;
}

const parsedHours = new Map<string, WindowRule[]>();

/** A rule's hours as window rules (parsed once per text); null when it sets none. */
export function hoursOfRule(rule: HoursRule): WindowRule[] | null {
  if (rule.hours === null) return null;
  let rules = parsedHours.get(rule.hours);
  if (!rules) {
    rules = parseWindowRules(rule.hours);
    parsedHours.set(rule.hours, rules);
  }
  return rules;
}

/** The hours every one of the rules allows (their intersection); null when none of them sets hours. */
export function legalWindowOf(rules: readonly HoursRule[]): WindowRule[] | null {
  let out: WindowRule[] | null = null;
  for (const rule of rules) {
    const hours = hoursOfRule(rule);
    if (hours) out = out === null ? hours : intersectRules(out, hours);
  }
  return out;
}

/** The scopes whose public holidays are closed, in the order the rules came. */
export const holidayScopesOf = (rules: readonly HoursRule[]): string[] =>
  rules.filter((r) => r.noHolidays).map((r) => r.scope);

/** Where an upload sets its calling window. */
const UPLOAD_WINDOW = 'Settings sheet "calling window" or x-amz-meta-calling-window';

/**
 * Why rows of a country without legal hours are refused, in words the uploader can act on; `table` is the one in
 * force, so hours the LEGAL_HOURS setting switched off are said to be that, not missing. `setWith` names where the
 * asker sets a window (an upload's settings, or a command's flag).
 */
export const noLegalHoursMessage = (
  country: string | null,
  table: LegalHoursTable = DEFAULT_LEGAL_HOURS,
  setWith = UPLOAD_WINDOW,
): string => {
  if (!country)
    return 'set a calling window: callsheet cannot tell which country these numbers belong to, so it has no legal hours for them';
  const why =
    DEFAULT_LEGAL_HOURS[country] && !table[country]
      ? `the LEGAL_HOURS setting switches off callsheet's default hours for ${country}`
      : `callsheet has no default legal hours for ${country}`;
  return `set a calling window for ${country} numbers: ${why} (${setWith}, e.g. "Mon-Fri 09:00-20:00")`;
};
