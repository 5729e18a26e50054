import { parseWindowRules, type WindowRule, WindowSpecError } from './calling-window.ts';

/**
 * The hours in which a country's law lets a marketing or automated call be placed, in the recipient's local time.
 * Only hours callsheet can cite are here; a country without an entry needs a calling window on the upload (or a
 * deployment override), otherwise its rows are rejected. These are defaults, not legal advice: a state, province or
 * sector may be stricter (several US states allow 08:00–20:00 only), and the operator stays responsible for that.
 */
export interface LegalHours {
  /** ISO 3166-1 alpha-2. */
  country: string;
  /** The hours, as a calling-window spec (local time of the number's zone). */
  spec: string;
  rules: WindowRule[];
  /** The law or rule the hours come from, or the deployment setting that replaced them. */
  source: string;
  /** What the hours cannot express (public holidays are not known to callsheet: list them as holidays). */
  note?: string;
}

export type LegalHoursTable = Readonly<Record<string, LegalHours>>;

const PUBLIC_HOLIDAYS =
  'calls are not allowed on public holidays either: callsheet does not know them, so list them in the upload as holidays';

const ENTRIES: Omit<LegalHours, 'rules'>[] = [
  {
    country: 'US',
    spec: 'daily 08:00-21:00',
    source: 'TCPA, 47 CFR 64.1200(c)(1): no telephone solicitation before 8 a.m. or after 9 p.m. local time',
    note: 'some states are stricter (e.g. Florida, 08:00-20:00): set a calling window for numbers there',
  },
  {
    country: 'CA',
    // The issue asked for at least 08:00-21:00; the CRTC's telemarketing hours are stricter, so they apply.
    spec: 'Mon-Fri 09:00-21:30; Sat,Sun 10:00-18:00',
    source:
      'CRTC Unsolicited Telecommunications Rules, Part III (Telemarketing Rules): weekdays 09:00-21:30, weekends 10:00-18:00',
  },
  {
    country: 'IN',
    spec: 'daily 09:00-21:00',
    source: 'TRAI Telecom Commercial Communications Customer Preference Regulations (TCCCPR) 2018: 09:00-21:00',
  },
  {
    country: 'FR',
    spec: 'Mon-Fri 10:00-13:00,14:00-20:00',
    source:
      'Code de la consommation and décret n° 2022-1313 du 13 octobre 2022: weekdays 10:00-13:00 and 14:00-20:00, never on weekends',
    note: PUBLIC_HOLIDAYS,
  },
  {
    country: 'AU',
    spec: 'Mon-Fri 09:00-20:00; Sat 09:00-17:00',
    source:
      'Telecommunications (Telemarketing and Research Calls) Industry Standard 2017: weekdays 09:00-20:00, Saturday 09:00-17:00, no Sunday',
    note: PUBLIC_HOLIDAYS,
  },
  {
    country: 'ES',
    spec: 'Mon-Fri 09:00-21:00',
    source:
      'Real Decreto Legislativo 1/2007 (TRLGDCU) art. 96.2, as amended by Ley 3/2014: 09:00-21:00, never on weekends',
    note: PUBLIC_HOLIDAYS,
  },
];

/** The built-in table; `LEGAL_HOURS` may replace entries or add countries. */
export const DEFAULT_LEGAL_HOURS: LegalHoursTable = Object.freeze(
  Object.fromEntries(ENTRIES.map((e) => [e.country, { ...e, rules: parseWindowRules(e.spec) }])),
);

const COUNTRY = /^[A-Z]{2}$/;

/** An unusable `LEGAL_HOURS` value; the message says what is wrong. */
export class LegalHoursError extends Error {}

/**
 * Reads the `LEGAL_HOURS` deployment setting, JSON from country to window spec
 * (`{"GB": "Mon-Fri 09:00-20:00", "US": "daily 09:00-20:00"}`), over the built-in table. Throws `LegalHoursError`.
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
  const table: Record<string, LegalHours> = { ...DEFAULT_LEGAL_HOURS };
  for (const [key, spec] of Object.entries(parsed)) {
    const country = key.toUpperCase();
    if (!COUNTRY.test(country)) throw new LegalHoursError(`"${key}" is not a two-letter country code`);
    if (typeof spec !== 'string')
      throw new LegalHoursError(`the hours for ${country} must be a text such as "Mon-Fri 09:00-20:00"`);
    try {
      table[country] = { country, spec, rules: parseWindowRules(spec), source: 'deployment setting LEGAL_HOURS' };
    } catch (err) {
      if (err instanceof WindowSpecError) throw new LegalHoursError(`the hours for ${country}: ${err.message}`);
      throw err;
    }
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

/** The legal hours of a country, or null when callsheet has none (an explicit window is then required). */
export const legalHoursOf = (table: LegalHoursTable, country: string | null): LegalHours | null =>
  (country && table[country]) || null;

/** Why rows of a country without legal hours are refused, in words the uploader can act on. */
export const noLegalHoursMessage = (country: string | null): string =>
  country
    ? `set a calling window for ${country} numbers: callsheet has no default legal hours for ${country} (Settings sheet "calling window" or x-amz-meta-calling-window, e.g. "Mon-Fri 09:00-20:00")`
    : 'set a calling window: callsheet cannot tell which country these numbers belong to, so it has no legal hours for them';
