import type { ContactOutcome } from '#commons/outcomes/call-outcome.ts';
import { csvLine, csvNumber, csvPhone, csvText } from '#commons/spreadsheet/csv-field.ts';
import { headerRow, numberCell, rowRef, textCell, XlsxWriter } from '#commons/spreadsheet/xlsx-writer.ts';

/** The per-contact table's columns, in order: header text and how to read each value. */
export const OUTCOME_COLUMNS: {
  header: string;
  value: (o: ContactOutcome) => string | number | null;
  /** Written as a phone number (csvPhone) rather than plain text. */
  phone?: true;
}[] = [
  { header: 'Phone Number', value: (o) => o.phone, phone: true },
  { header: 'Name', value: (o) => o.contactName },
  { header: 'Attempts', value: (o) => o.attempts },
  { header: 'Last Status', value: (o) => o.lastStatus },
  { header: 'Failure Reason', value: (o) => o.lastFailureReason },
  { header: 'Talk Seconds', value: (o) => o.durationSeconds },
  { header: 'Cost (INR)', value: (o) => o.costInr },
  { header: 'Last Call Started At', value: (o) => o.lastCallStartedAt },
  { header: 'Last Call Ended At', value: (o) => o.lastCallEndedAt },
  { header: 'Last Call Id', value: (o) => o.lastCallId },
  { header: 'Opted Out', value: (o) => (o.optOutPhrase ? `yes: "${o.optOutPhrase}" (suppressed mid-campaign)` : null) },
  { header: 'Transcript', value: (o) => o.transcriptUrl },
  { header: 'Recording', value: (o) => o.recordingUrl },
];

/**
 * The table as CSV for any program: every text field quoted and defused against formulas in any locale's
 * separator, numbers as numbers, the phone column kept readable (commons/spreadsheet/csv-field.ts says why).
 */
export function outcomesCsv(rows: readonly ContactOutcome[]): string {
  let csv = csvLine(OUTCOME_COLUMNS.map((c) => csvText(c.header)));
  for (const row of rows)
    csv += csvLine(
      OUTCOME_COLUMNS.map((c) => {
        const value = c.value(row);
        if (typeof value === 'number') return csvNumber(value);
        return c.phone ? csvPhone(value) : csvText(value);
      }),
    );
  return csv;
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
