import { PassThrough } from 'node:stream';
import ExcelJS from 'exceljs';
import { cellText } from '../commons/spreadsheet/cell.ts';
import { openWorkbook } from '../commons/spreadsheet/sources.ts';
import { REASON_TEXT } from './contacts.ts';
import type { Part } from './parts.ts';
import { scanUpload } from './sheet/scan.ts';
import type { ValidationOutcome } from './validate-upload.ts';

/** The columns the Voice API reads from a campaign file, in its spelling. */
export const API_COLUMNS = ['Phone Number', 'Name', 'Custom Instruction'] as const;

/**
 * Every value goes in as a string cell (never a formula), so text starting with =, +, - or @ stays text in any
 * program that opens the file.
 */
const asText = (v: string | null): string => v ?? '';

async function streamedWorkbook(
  fill: (wb: ExcelJS.stream.xlsx.WorkbookWriter) => void | Promise<void>,
): Promise<Buffer> {
  const sink = new PassThrough();
  const chunks: Buffer[] = [];
  sink.on('data', (c: Buffer) => chunks.push(c));
  const wb = new ExcelJS.stream.xlsx.WorkbookWriter({ stream: sink, useSharedStrings: false, useStyles: true });
  await fill(wb);
  await wb.commit();
  return Buffer.concat(chunks);
}

/** One campaign part as an .xlsx with exactly the API's columns. */
export function partWorkbook(part: Part): Promise<Buffer> {
  return streamedWorkbook((wb) => {
    const ws = wb.addWorksheet('Contacts');
    ws.addRow([...API_COLUMNS]).commit();
    for (const c of part.contacts) ws.addRow([c.phone, asText(c.name), asText(c.customInstruction)]).commit();
    ws.commit();
  });
}

export const FATE_COLUMNS = ['callsheet result', 'normalized phone', 'part', 'time zone', 'reason'] as const;

/**
 * Every original row with its fate, for a person to open in Excel: the sheet's own columns, then whether the row
 * was accepted (its E.164 number, part and zone) or rejected (and why). The upload is read a second time, streaming,
 * so its rows never need to be held in memory all at once.
 */
export async function annotatedWorkbook(outcome: ValidationOutcome): Promise<Buffer> {
  const { scanned, upload, parts, rejections } = outcome;
  if (!scanned) throw new Error('annotatedWorkbook needs an upload whose contact sheet was read');
  const accepted = new Map<number, { phone: string; part: Part }>();
  for (const p of parts) for (const c of p.contacts) accepted.set(c.row, { phone: c.phone, part: p });
  const rejected = new Map(rejections.map((r) => [r.row, r]));
  const { width } = scanned;
  const workbook = await openWorkbook(upload.bytes, upload.fileName, upload.limits);
  return streamedWorkbook(async (wb) => {
    const ws = wb.addWorksheet('Annotated');
    const header = Array.from({ length: width }, (_, i) => scanned.header[i] ?? '');
    ws.addRow([...header, ...FATE_COLUMNS]).commit();
    await scanUpload(workbook, upload.limits, (r) => {
      const original = Array.from({ length: width }, (_, i) => cellText(r.cells[i]));
      const ok = accepted.get(r.row);
      const bad = rejected.get(r.row);
      const fate = ok
        ? ['accepted', ok.phone, String(ok.part.index), ok.part.timeZone ?? '', '']
        : [
            'rejected',
            '',
            '',
            '',
            bad ? `${bad.reason}: ${REASON_TEXT[bad.reason]}${bad.firstRow ? ` (row ${bad.firstRow})` : ''}` : '',
          ];
      ws.addRow([...original, ...fate]).commit();
    });
    ws.commit();
  });
}
