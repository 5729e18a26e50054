import { createHash } from 'node:crypto';
import type { CountryCode } from 'libphonenumber-js/max';
import type { ContactUpsertedV1 } from '#commons/contact-events.ts';
import { type Cell, cellText, headerKey } from '#commons/spreadsheet/cell.ts';
import { FileProblem } from '#commons/spreadsheet/file-problem.ts';
import { DEFAULT_LIMITS } from '#commons/spreadsheet/limits.ts';
import { checkContactEvent } from './contact-event.ts';

/** Column headers of a contact sheet (any case and spacing) and the event field each fills. */
export const SHEET_COLUMNS: Record<string, keyof ContactUpsertedV1> = {
  'phone number': 'phone_number',
  name: 'name',
  email: 'email',
  city: 'city',
  location: 'location',
  source: 'source',
  'lead status': 'lead_status',
  'custom instruction': 'custom_instruction',
  tags: 'tags',
  note: 'note',
};

const HEADER_ROWS = 20;

/** A sheet's row has no "country" of its own: its numbers take the default country of the push or the stack. */
const SHEET_COUNTRY_ADVICE =
  'write it as +<country code><number>, or set a default country: --country US for `callsheet contacts push`, DEFAULT_COUNTRY where deployed';

export interface SheetRejection {
  row: number;
  reason: string;
}

export interface ContactSheet {
  format: string;
  sheet: string;
  rows: { total: number; accepted: number; rejected: number };
  rejected: SheetRejection[];
  /** One event per accepted row, ids from the file's content and the row (the same file twice changes nothing). */
  events: ContactUpsertedV1[];
}

/** A sheet that cannot be read at all: the reason, in words a user can act on. */
export class ContactSheetProblem extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'ContactSheetProblem';
  }
}

/** Tags in one cell: separated by commas or semicolons. */
const splitTags = (s: string) =>
  s
    .split(/[,;]/)
    .map((t) => t.trim())
    .filter((t) => t !== '');

/**
 * Reads a contact sheet (.xlsx, .xls, .csv) with the commons readers: the first worksheet with a "Phone Number"
 * header in its first 20 rows; each data row becomes a `Contact Upserted` event checked like any other.
 */
export async function readContactSheet(
  bytes: Buffer,
  fileName: string,
  defaultCountry?: CountryCode,
): Promise<ContactSheet> {
  const digest = createHash('sha256').update(bytes).digest('hex').slice(0, 20);
  // The sheet reader (zip, .xlsx and CSV, ~50 KiB) is loaded with the first sheet, not at every cold start: most
  // of this function's messages are contact events, which need none of it.
  const { openWorkbook } = await import('#commons/spreadsheet/sources.ts');
  let workbook: Awaited<ReturnType<typeof openWorkbook>>;
  try {
    workbook = await openWorkbook(bytes, fileName, DEFAULT_LIMITS);
  } catch (err) {
    if (err instanceof FileProblem) throw new ContactSheetProblem(err.code, err.message);
    throw err;
  }
  for await (const sheet of workbook.sheets()) {
    let columns: Map<number, keyof ContactUpsertedV1> | null = null;
    const out: ContactSheet = {
      format: workbook.format,
      sheet: sheet.name,
      rows: { total: 0, accepted: 0, rejected: 0 },
      rejected: [],
      events: [],
    };
    let gaveUp = false;
    for await (const batch of sheet.batches) {
      for (const { row, cells } of batch) {
        if (!columns) {
          if (row > HEADER_ROWS) {
            gaveUp = true;
            break;
          }
          const keys = cells.map(headerKey);
          if (!keys.includes('phone number')) continue;
          columns = new Map();
          keys.forEach((k, i) => {
            const field = SHEET_COLUMNS[k];
            if (field) columns?.set(i, field);
          });
          continue;
        }
        if (cells.every((c) => cellText(c) === '')) continue;
        out.rows.total++;
        const event = rowEvent(`sheet:${digest}:${row}`, columns, cells);
        let check = checkContactEvent(event, defaultCountry, undefined, SHEET_COUNTRY_ADVICE);
        const phoneCell = cells[[...columns].find(([, f]) => f === 'phone_number')?.[0] ?? -1];
        // Spreadsheet programs drop the leading + of a number typed as +919820012345 (as intake reads it).
        if (!check.ok && typeof phoneCell === 'number' && check.reason.startsWith('phone_number'))
          check = checkContactEvent(
            { ...event, phone_number: `+${event.phone_number}` },
            defaultCountry,
            undefined,
            SHEET_COUNTRY_ADVICE,
          );
        if (check.ok) {
          out.rows.accepted++;
          out.events.push({ ...event, phone_number: check.change.phone });
        } else {
          out.rows.rejected++;
          out.rejected.push({ row, reason: check.reason });
        }
      }
      if (gaveUp) break;
    }
    if (columns) return out;
  }
  throw new ContactSheetProblem(
    'no_phone_column',
    `${workbook.format === 'csv' ? 'The file has no' : 'No worksheet has a'} "Phone Number" column header in its first ${HEADER_ROWS} rows. Add one above the numbers; the other columns are ${Object.keys(SHEET_COLUMNS).slice(1).join(', ')}.`,
  );
}

function rowEvent(eventId: string, columns: Map<number, keyof ContactUpsertedV1>, cells: Cell[]): ContactUpsertedV1 {
  const event: ContactUpsertedV1 = { event_id: eventId, phone_number: '' };
  for (const [i, field] of columns) {
    const text = cellText(cells[i]);
    if (text === '') continue;
    if (field === 'tags') event.tags = splitTags(text);
    else (event as unknown as Record<string, string>)[field] = text;
  }
  return event;
}
