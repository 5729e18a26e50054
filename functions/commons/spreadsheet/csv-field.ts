/**
 * Fields of a CSV that a spreadsheet program will open. Every text field is quoted (RFC 4180, doubled quotes
 * inside), and text a program could run as a formula is defused with a leading apostrophe.
 *
 * Why more than the field's first character: a program splits a line on the separator of its locale, not on ours.
 * Excel in a `;` locale reads `"x;=cmd|' /C calc'!A0;y"` as three cells and runs the middle one. So every segment
 * of a field, split on `,` `;` tab `|` and line breaks, is checked, and a segment that starts (after spaces and
 * quotes, which programs skip) with `=`, `+`, `-`, `@`, tab or CR (or their full-width forms, which some East Asian
 * setups read as the same) gets the apostrophe in front. The text is otherwise kept whole: nothing is dropped.
 */

/** A field start a spreadsheet could read as a formula: optional spaces and quotes, then a formula character. */
const RISKY_START = /^[ \u00a0"']*[=+\-@\t\r\uff1d\uff0b\uff0d\uff20]/;
/**
 * A separator followed by a segment that starts like a formula, as RISKY_START has it. The match takes the
 * separator itself, so in a run of separators (`,<tab>=`) each one is looked at in turn.
 */
const RISKY_SEGMENT = /([,;\t|\r\n])(?=[ \u00a0"']*[=+\-@\t\r\uff1d\uff0b\uff0d\uff20])/g;

/**
 * A phone number exactly as E.164 writes it: `+`, a country code not starting with 0, at most 15 digits. Such a
 * field is written as it is (quoted), although it starts with `+`, on purpose: the column is there to be read and
 * matched against other lists, and `'+15551234567` would match nothing. Nothing can hide in it: a program that
 * reads `+15551234567` as a formula reads a unary plus on a run of digits, which is that number, with no function,
 * cell reference or DDE link (those need letters, `(`, `!` or `|`). A program splitting on another separator sees
 * the number run on into `,"` and the next field: a number followed by `,"` is no formula in any locale (`,` is a
 * decimal mark, or joins references, or separates the arguments of a function that was never opened), and every
 * segment after it is defused. At worst a program shows 15551234567; the .xlsx export, which stores every text as
 * text, is the file to open in a spreadsheet. Anything else in the phone column is defused like other text.
 */
const STRICT_E164 = /^\+[1-9][0-9]{1,14}$/;

/** Text with every risky segment defused (see above). */
export function defuseFormula(text: string): string {
  const segments = text.replace(RISKY_SEGMENT, "$1'");
  return RISKY_START.test(segments) ? `'${segments}` : segments;
}

const quoted = (text: string) => `"${text.replace(/"/g, '""')}"`;

/** A text field: quoted, formulas defused; null is an empty field. */
export function csvText(value: string | null): string {
  return value === null ? '' : quoted(defuseFormula(value));
}

/** A number field, unquoted so a program reads a number (a negative one stays a number: the value is numeric). */
export function csvNumber(value: number | null): string {
  return value === null || !Number.isFinite(value) ? '' : String(value);
}

/** A phone number: a strict E.164 number as it is (quoted), anything else as defused text. */
export function csvPhone(value: string | null): string {
  if (value === null) return '';
  return STRICT_E164.test(value) ? quoted(value) : csvText(value);
}

/** One line of fields, CRLF-ended as RFC 4180 has it. */
export const csvLine = (fields: readonly string[]): string => `${fields.join(',')}\r\n`;
