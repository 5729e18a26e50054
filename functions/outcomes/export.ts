import ExcelJS from 'exceljs';
import type { ContactOutcome } from './call-outcome.ts';

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

export async function outcomesXlsx(rows: readonly ContactOutcome[], campaignId: string): Promise<Buffer> {
  const wb = new ExcelJS.Workbook();
  const ws = wb.addWorksheet('Outcomes');
  ws.addRow(OUTCOME_COLUMNS.map((c) => c.header)).font = { bold: true };
  for (const row of rows) ws.addRow(OUTCOME_COLUMNS.map((c) => c.value(row)));
  ws.columns.forEach((col, i) => {
    col.width = i === 0 ? 16 : i >= 9 ? 40 : 14;
  });
  ws.views = [{ state: 'frozen', ySplit: 1 }];
  wb.title = `callsheet outcomes of campaign ${campaignId}`;
  return Buffer.from(await wb.xlsx.writeBuffer());
}
