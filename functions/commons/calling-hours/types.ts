/**
 * Calling-hours rules as data. Every rule names where it comes from; a rule nobody can cite is not a rule, and
 * where no law sets hours callsheet says so (basis `none`) or applies its documented conservative default
 * (basis `default`, which a deployment can switch off).
 */

/** A statute, regulation or regulator rule, cited to its section. */
export interface RuleSource {
  /** The instrument, e.g. "Florida Telephone Solicitation Act, Fla. Stat." */
  law: string;
  /** The section, e.g. "§ 501.059(8)(a)". */
  section: string;
  /** A public page with the text, when there is one. */
  url?: string;
}

/**
 * The hours one jurisdiction allows a call to start, in the recipient's local time.
 * - `law`: a statute or regulation sets these hours (or bans holidays);
 * - `none`: no calling-hours law was found for this scope; the wider scope's rule (e.g. the federal one) applies;
 * - `default`: no statute; callsheet's conservative default, which the `LEGAL_HOURS` setting can switch off;
 * - `setting`: the deployment's own hours, from the `LEGAL_HOURS` setting.
 */
export interface HoursRule {
  /** ISO 3166-1 alpha-2 (`US`), or with a subdivision (`US-FL`, `CA-QC`), as date-holidays names them. */
  scope: string;
  /** The window in callsheet's grammar (`Mon-Sat 08:00-20:00; Sun 12:00-20:00`); null when the rule sets no hours. */
  hours: string | null;
  /** True when the rule bans calls on the public holidays of its scope. */
  noHolidays: boolean;
  basis: 'law' | 'none' | 'default' | 'setting';
  source: RuleSource;
  /** What the data is unsure of, and which stricter reading was taken because of it. */
  note?: string;
}

/** A NANP area code whose numbers may ring in more than one zone. */
export interface SplitAreaCode {
  /** Every zone the area code's numbers may ring in (IANA), including those the phone data already names. */
  zones: string[];
  /** The time-zone boundary that splits it (49 CFR Part 71 for the US, provincial law for Canada). */
  source: RuleSource;
  /** Which places ring in which zone. */
  note: string;
}
