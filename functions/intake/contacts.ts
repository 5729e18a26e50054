import type { CountryCode } from 'libphonenumber-js/max';
import type { Contact } from '#commons/contact.ts';
import { invalidPhoneHint } from '#commons/phone/invalid-hint.ts';
import { normalizePhone, type PhoneCell } from '#commons/phone/phone.ts';

export type RejectReason =
  | 'missing_phone'
  | 'invalid_phone'
  | 'duplicate_phone'
  | 'suppressed'
  // A valid number nobody can say is legal to call now: no zone data, or no legal hours and no window.
  | 'no_time_zone'
  | 'no_legal_hours'
  | 'outside_legal_hours'
  // The row's own Time Zone or State/Region cell (functions/intake/stated-place.ts): not a name callsheet knows, or
  // not one the number's country has.
  | 'unknown_time_zone'
  | 'zone_contradicts_number'
  | 'unknown_region'
  | 'region_contradicts_number'
  // Over the call frequency cap of the number across all campaigns (functions/intake/caps.ts).
  | 'daily-cap'
  | 'weekly-cap';

/** One data row of the sheet, with the three columns the API knows, as read. */
export interface SheetRow {
  /** The row number a spreadsheet program shows (1-based). */
  row: number;
  phone: PhoneCell;
  name: string | null;
  customInstruction: string | null;
  /** The row's `Time Zone` and `State`/`Region`/`Province` cells, when the sheet has those columns; input only. */
  timeZone?: string | null;
  region?: string | null;
}

export type { Contact };

export interface Rejection {
  row: number;
  reason: RejectReason;
  /** What the cell held, as text, so the user can find and fix it. */
  input: string;
  /** For duplicates: the row that was kept. */
  firstRow?: number;
  /** For an invalid number: what is wrong with it, when the cell shows it (commons/phone/invalid-hint.ts). */
  hint?: string;
}

export const REASON_TEXT: Record<RejectReason, string> = {
  missing_phone: 'no phone number in this row',
  invalid_phone:
    'not a valid phone number: write it with its country code (+1 415 555 2001); a number without one is read in the default country (the "default country" setting, or --country), when one is set',
  duplicate_phone: 'the same number appears on an earlier row, which was kept',
  suppressed: 'this number is on the do-not-call (suppression) list',
  no_time_zone:
    'callsheet has no time-zone data for this number, so it cannot tell when calling it is legal; it is not called',
  no_legal_hours:
    'callsheet has no default legal calling hours for this number\'s country: set a calling window (Settings sheet "calling window" or x-amz-meta-calling-window) to call it',
  outside_legal_hours:
    "the upload's calling window has no hour within the legal calling hours of this number's country: set a window inside them",
  unknown_time_zone:
    'the Time Zone cell names no time zone callsheet knows: write an IANA zone name such as America/New_York, America/Los_Angeles or Europe/Paris, or leave the cell blank',
  zone_contradicts_number:
    "the Time Zone cell names a zone this number's country does not use: fix the zone (or the number), or leave the cell blank",
  unknown_region:
    'the State/Region cell names no state, province or region callsheet knows: write its code (FL or US-FL, ON or CA-ON) or its full name (Florida, Ontario), or leave the cell blank',
  region_contradicts_number:
    "the State/Region cell names a state, province or region of another country than this number's: fix it (or the number), or leave the cell blank",
  'daily-cap':
    "the calls booked for this number in the last 24 hours across all campaigns (each books 1 + retries when its upload is accepted, placed yet or not), with this campaign's own, would pass the cap (CALL_CAP_PER_DAY); upload it again later, or with fewer retries",
  'weekly-cap':
    "the calls booked for this number in the last 7 days across all campaigns (each books 1 + retries when its upload is accepted, placed yet or not), with this campaign's own, would pass the cap (CALL_CAP_PER_WEEK); it is not called",
};

const cellText = (c: PhoneCell): string => (c === null || c === undefined ? '' : typeof c === 'number' ? String(c) : c);

/**
 * Applies the row rules in sheet order: a row without a number, a number that is not valid, or a number seen on an
 * earlier row is rejected with its reason; the first row of each number is kept.
 */
export class ContactRules {
  private kept: Contact[] = [];
  readonly rejected: Rejection[] = [];
  /** Kept rows whose cell gave an extension, which the call will not dial. */
  readonly extensions: { row: number; extension: string }[] = [];
  private readonly firstRowOf = new Map<string, number>();

  constructor(private readonly defaultCountry: CountryCode | undefined) {}

  /** The row's contact when it is kept, else null (rejected, with its reason). */
  add(r: SheetRow): Contact | null {
    const result = normalizePhone(r.phone, this.defaultCountry);
    if (!result.ok) {
      const input = cellText(r.phone);
      const hint = result.reason === 'invalid_phone' ? invalidPhoneHint(input, this.defaultCountry) : null;
      this.rejected.push({ row: r.row, reason: result.reason, input, ...(hint ? { hint } : {}) });
      return null;
    }
    const first = this.firstRowOf.get(result.e164);
    if (first !== undefined) {
      this.rejected.push({ row: r.row, reason: 'duplicate_phone', input: cellText(r.phone), firstRow: first });
      return null;
    }
    this.firstRowOf.set(result.e164, r.row);
    if (result.extension) this.extensions.push({ row: r.row, extension: result.extension });
    const contact: Contact = {
      row: r.row,
      phone: result.e164,
      country: result.country,
      name: r.name,
      customInstruction: r.customInstruction,
      timeZone: r.timeZone ?? null,
      region: r.region ?? null,
    };
    this.kept.push(contact);
    return contact;
  }

  /** The rows kept so far, in sheet order. */
  get contacts(): readonly Contact[] {
    return this.kept;
  }

  /** Removes the numbers on the suppression list, recording each as rejected. */
  suppress(suppressed: ReadonlySet<string>): void {
    if (suppressed.size === 0) return;
    // A new array rather than splice(0, n, ...kept): spreading an unbounded array into arguments overflows the
    // stack (RangeError) somewhere above 100,000 contacts.
    const kept: Contact[] = [];
    for (const c of this.kept) {
      if (suppressed.has(c.phone)) this.rejected.push({ row: c.row, reason: 'suppressed', input: c.phone });
      else kept.push(c);
    }
    this.kept = kept;
    this.rejected.sort((a, b) => a.row - b.row);
  }
}
