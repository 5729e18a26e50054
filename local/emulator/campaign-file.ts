import { cellText, headerKey, type RawRow } from '#commons/spreadsheet/cell.ts';
import { FileProblem } from '#commons/spreadsheet/file-problem.ts';
import { DEFAULT_LIMITS, type ReadLimits } from '#commons/spreadsheet/limits.ts';
import { openWorkbook } from '#commons/spreadsheet/sources.ts';
import type { OpenedWorkbook } from '#commons/spreadsheet/workbook.ts';
import { E164, LIMITS } from '#commons/voice-api/contract.ts';
import type { ValidationItem } from '#commons/voice-api/errors.ts';

export interface SheetContact {
  row: number;
  phone_number: string;
  name: string | null;
  custom_instruction: string | null;
}

const fileItem = (msg: string, loc: (string | number)[] = []): ValidationItem => ({
  loc: ['file', ...loc],
  msg,
  type: 'value_error',
});

/** The service's own bounds on a campaign upload; everything else as intake reads files. */
const CAMPAIGN_FILE_LIMITS: ReadLimits = {
  ...DEFAULT_LIMITS,
  maxFileBytes: LIMITS.campaignFileBytes,
  maxRows: 100_000,
};

function fileProblemText(p: FileProblem): string {
  if (p.code === 'unsupported_format' || p.code === 'not_utf8')
    return 'the contact file must be an .xlsx or .xls spreadsheet';
  if (p.code === 'empty_file') return 'the contact file is empty';
  return `the contact file cannot be used: ${p.message}`;
}

/** Rows of the first worksheet (later sheets are read through, as a stream must be, and ignored). */
async function firstSheetRows(bytes: Buffer, fileName: string): Promise<RawRow[] | string> {
  let workbook: OpenedWorkbook;
  try {
    workbook = await openWorkbook(bytes, fileName, CAMPAIGN_FILE_LIMITS);
  } catch (err) {
    if (err instanceof FileProblem) return fileProblemText(err);
    throw err;
  }
  if (workbook.format === 'csv') return 'the contact file must be an .xlsx or .xls spreadsheet';
  let first: RawRow[] | null = null;
  try {
    for await (const sheet of workbook.sheets()) {
      const rows: RawRow[] = [];
      for await (const batch of sheet.batches) if (first === null) rows.push(...batch);
      first ??= rows;
    }
  } catch (err) {
    if (err instanceof FileProblem) return fileProblemText(err);
    return `the contact file cannot be read as ${workbook.format}: ${(err as Error).message}`;
  }
  return first ?? [];
}

/**
 * Reads a campaign contact sheet as the service does: first worksheet, first row is the header with
 * `Phone Number` (optional `Name`, `Custom Instruction`), 1–1000 rows, every number E.164 and unique.
 * Returns the contacts, or every problem found.
 */
export async function readCampaignFile(
  bytes: Buffer,
  fileName: string,
): Promise<{ contacts: SheetContact[] } | { problems: ValidationItem[] }> {
  const rows = await firstSheetRows(bytes, fileName);
  if (typeof rows === 'string') return { problems: [fileItem(rows)] };
  const [headerRow, ...dataRows] = rows;
  const header = headerRow?.row === 1 ? headerRow.cells.map(headerKey) : [];
  const phoneCol = header.indexOf('phone number');
  if (phoneCol < 0) return { problems: [fileItem('the first row must have a "Phone Number" column', ['header'])] };
  const nameCol = header.indexOf('name');
  const instructionCol = header.indexOf('custom instruction');

  const problems: ValidationItem[] = [];
  const contacts: SheetContact[] = [];
  const seen = new Map<string, number>();
  for (const { row, cells } of dataRows) {
    if (cells.every((c) => cellText(c) === '')) continue;
    const raw = cellText(cells[phoneCol]);
    const phone = raw.replace(/[\s()-]/g, '');
    if (!E164.test(phone)) {
      problems.push(fileItem(`"${raw}" is not an E.164 phone number`, ['row', row, 'Phone Number']));
      continue;
    }
    const first = seen.get(phone);
    if (first !== undefined) {
      problems.push(fileItem(`${phone} already appears on row ${first}`, ['row', row, 'Phone Number']));
      continue;
    }
    seen.set(phone, row);
    contacts.push({
      row,
      phone_number: phone,
      name: nameCol >= 0 ? cellText(cells[nameCol]) || null : null,
      custom_instruction: instructionCol >= 0 ? cellText(cells[instructionCol]) || null : null,
    });
  }
  if (contacts.length + problems.length > LIMITS.campaignRows) {
    return {
      problems: [
        fileItem(`the contact file has ${contacts.length + problems.length} rows; at most ${LIMITS.campaignRows}`),
      ],
    };
  }
  if (problems.length > 0) return { problems: problems.slice(0, 100) };
  if (contacts.length === 0) return { problems: [fileItem('the contact file has no contact rows')] };
  return { contacts };
}
