/** A contact intake accepted from a row of a sheet; contact sync turns accepted rows into contact events. */
export interface Contact {
  row: number;
  phone: string;
  /** ISO country of the number, as the phone metadata places it. */
  country: string | null;
  name: string | null;
  customInstruction: string | null;
  /**
   * What the row's own Time Zone and State/Region cells say, as written (null or absent: blank, or no such column).
   * They narrow, or add to, the zones and states the number's data gives (functions/intake/stated-place.ts); they
   * never reach the part file.
   */
  timeZone?: string | null;
  region?: string | null;
}
