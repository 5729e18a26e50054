import ExcelJS from 'exceljs';
import { type Cell, cellValue } from '../../functions/commons/sheet-cell.ts';
import { E164, LIMITS } from '../../functions/commons/voice-api/contract.ts';
import type { ValidationItem } from '../../functions/commons/voice-api/errors.ts';

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

/** What the bytes are, whatever the file is called. */
export function sniffSpreadsheet(bytes: Buffer): 'xlsx' | 'xls' | null {
  if (bytes.length >= 4 && bytes.readUInt32BE(0) === 0x504b0304) return 'xlsx';
  if (bytes.length >= 8 && bytes.subarray(0, 8).equals(Buffer.from('d0cf11e0a1b11ae1', 'hex'))) return 'xls';
  return null;
}

async function readXlsx(bytes: Buffer): Promise<Cell[][]> {
  const workbook = new ExcelJS.Workbook();
  await workbook.xlsx.load(bytes as unknown as ArrayBuffer);
  const sheet = workbook.worksheets[0];
  if (!sheet) return [];
  const rows: Cell[][] = [];
  sheet.eachRow({ includeEmpty: true }, (row, n) => {
    const cells: Cell[] = [];
    row.eachCell({ includeEmpty: true }, (cell, col) => {
      cells[col - 1] = cellValue(cell.value);
    });
    rows[n - 1] = cells;
  });
  return rows;
}

async function readXls(bytes: Buffer): Promise<Cell[][]> {
  // Legacy BIFF only: SheetJS is loaded just for this format.
  const XLSX = await import('@e965/xlsx');
  const workbook = XLSX.read(bytes, { type: 'buffer', cellDates: true });
  const first = workbook.SheetNames[0];
  const sheet = first === undefined ? undefined : workbook.Sheets[first];
  if (!sheet) return [];
  return XLSX.utils.sheet_to_json<Cell[]>(sheet, { header: 1, raw: true, blankrows: true, defval: null });
}

const text = (c: Cell | undefined): string => (c === null || c === undefined ? '' : String(c).trim());
const norm = (s: string): string => s.trim().replace(/\s+/g, ' ').toLowerCase();

/**
 * Reads a campaign contact sheet as the service does: first worksheet, first row is the header with
 * `Phone Number` (optional `Name`, `Custom Instruction`), 1–1000 rows, every number E.164 and unique.
 * Returns the contacts, or every problem found.
 */
export async function readCampaignFile(
  bytes: Buffer,
): Promise<{ contacts: SheetContact[] } | { problems: ValidationItem[] }> {
  if (bytes.length === 0) return { problems: [fileItem('the contact file is empty')] };
  if (bytes.length > LIMITS.campaignFileBytes) {
    return { problems: [fileItem(`the contact file is larger than ${LIMITS.campaignFileBytes} bytes`)] };
  }
  const kind = sniffSpreadsheet(bytes);
  if (!kind) return { problems: [fileItem('the contact file must be an .xlsx or .xls spreadsheet')] };
  let rows: Cell[][];
  try {
    rows = kind === 'xlsx' ? await readXlsx(bytes) : await readXls(bytes);
  } catch (err) {
    return { problems: [fileItem(`the contact file cannot be read as ${kind}: ${(err as Error).message}`)] };
  }
  const header = (rows[0] ?? []).map((c) => norm(text(c)));
  const phoneCol = header.indexOf('phone number');
  if (phoneCol < 0) return { problems: [fileItem('the first row must have a "Phone Number" column', ['header'])] };
  const nameCol = header.indexOf('name');
  const instructionCol = header.indexOf('custom instruction');

  const problems: ValidationItem[] = [];
  const contacts: SheetContact[] = [];
  const seen = new Map<string, number>();
  for (let i = 1; i < rows.length; i++) {
    const cells = rows[i] ?? [];
    if (cells.every((c) => text(c) === '')) continue;
    const row = i + 1;
    const phone = text(cells[phoneCol]).replace(/[\s()-]/g, '');
    if (!E164.test(phone)) {
      problems.push(fileItem(`"${text(cells[phoneCol])}" is not an E.164 phone number`, ['row', row, 'Phone Number']));
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
      name: nameCol >= 0 ? text(cells[nameCol]) || null : null,
      custom_instruction: instructionCol >= 0 ? text(cells[instructionCol]) || null : null,
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
