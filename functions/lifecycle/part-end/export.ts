import type { ContactOutcome } from '#commons/outcomes/call-outcome.ts';
import { headerRow, numberCell, rowRef, textCell, XlsxWriter } from '#commons/spreadsheet/xlsx-writer.ts';

/** The per-contact table's columns, in order: header text and how to read each value. */
export const OUTCOME_COLUMNS: { header: string; value: (o: ContactOutcome) => string | number | null }[] = [
  { header: 'Phone Number', value: (o) => o.phone },
  { header: 'Name', value: (o) => o.contactName },
  { header: 'Attempts', value: (o) => o.attempts },
  { header: 'Last Status', value: (o) => o.lastStatus },
  { header: 'Failure Reason', value: (o) => o.lastFailureReason },
  { header: 'Talk Seconds', value: (o) => o.durationSeconds },
  { header: 'Cost (INR)', value: (o) => o.costInr },
  { header: 'Last Call At', value: (o) => o.lastCallAt },
  { header: 'Last Call Id', value: (o) => o.lastCallId },
  { header: 'Opted Out', value: (o) => (o.optOutPhrase ? `yes: "${o.optOutPhrase}" (suppressed mid-campaign)` : null) },
  { header: 'Transcript', value: (o) => o.transcriptUrl },
  { header: 'Recording', value: (o) => o.recordingUrl },
];

/**
 * A spreadsheet opening a CSV runs cells that start with these as formulas; text that came from a call (names,
 * phrases, links) gets a leading apostrophe so it stays text. Phone numbers are validated E.164 and left alone.
 */
const FORMULA_START = /^[=+\-@\t\r]/;

function csvCell(value: string | number | null, isPhone: boolean): string {
  if (value === null) return '';
  let text = String(value);
  if (typeof value === 'string' && !isPhone && FORMULA_START.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export function outcomesCsv(rows: readonly ContactOutcome[]): string {
  const lines = [OUTCOME_COLUMNS.map((c) => csvCell(c.header, false)).join(',')];
  for (const row of rows) lines.push(OUTCOME_COLUMNS.map((c, i) => csvCell(c.value(row), i === 0)).join(','));
  return `${lines.join('\r\n')}\r\n`;
}

/**
 * The table as a workbook: bold header kept in view, numbers as numbers, every text an inline string (never a
 * formula), on one tab named Outcomes.
 */
export async function outcomesXlsx(rows: readonly ContactOutcome[]): Promise<Buffer> {
  const xlsx = new XlsxWriter();
  const sheet = xlsx.sheet('Outcomes', {
    frozenRows: 1,
    columnWidths: OUTCOME_COLUMNS.map((_, i) => (i === 0 ? 16 : i >= 9 ? 40 : 14)),
  });
  sheet.write(
    headerRow(
      1,
      OUTCOME_COLUMNS.map((c) => c.header),
    ),
  );
  let n = 1;
  for (const row of rows) {
    const ref = rowRef(++n);
    let xml = `<row r="${n}">`;
    for (const [i, column] of OUTCOME_COLUMNS.entries()) {
      const value = column.value(row);
      if (typeof value === 'number') xml += numberCell(i, n, value);
      else if (value !== null) xml += textCell(i, ref, value);
    }
    sheet.write(`${xml}</row>`);
    if (sheet.full) await sheet.flush();
  }
  await xlsx.add(sheet);
  return xlsx.finish();
}
