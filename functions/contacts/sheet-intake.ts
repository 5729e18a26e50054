import type { CountryCode } from 'libphonenumber-js/max';
import type { ObjectStore } from '#commons/aws/object-store.ts';
import type { ContactUpserted, EventSink } from '#commons/contact-events.ts';
import { DEFAULT_LIMITS, fileTooLarge } from '#commons/spreadsheet/limits.ts';
import { type UploadRef, uploadId } from '#commons/upload-ref.ts';
import { readContactLines } from './contact-lines.ts';
import { type ContactSheet, ContactSheetProblem, readContactSheet, type SheetRejection } from './contact-sheet.ts';

/** Contact sheets are dropped here; their reports go to reports/contacts/. */
export const CONTACT_SHEETS = 'contacts/';
export const contactReportKey = (id: string) => `reports/contacts/${id}.json`;

/** Files of JSON lines, one `Contact Upserted` event per line; the rest are read as sheets. */
export const isContactLines = (fileName: string) => /\.(jsonl|ndjson)$/i.test(fileName);

/** JSON lines read for the same report as a sheet: a rejected line's number is its `row`. */
function linesAsSheet(
  bytes: Buffer,
  defaultCountry?: CountryCode,
): Omit<ContactSheet, 'events'> & { events: ContactUpserted[] } {
  const { events, rejected } = readContactLines(bytes, defaultCountry);
  return {
    format: 'jsonl',
    sheet: '',
    rows: { total: events.length + rejected.length, accepted: events.length, rejected: rejected.length },
    rejected: rejected.map((r) => ({ row: r.line, reason: r.reason })),
    events,
  };
}

export interface ContactSheetReport {
  uploadId: string;
  upload: { bucket: string; key: string; versionId: string | null; eTag: string };
  status: 'queued' | 'rejected';
  error: { code: string; message: string } | null;
  format: string | null;
  sheet: string | null;
  rows: { total: number; accepted: number; rejected: number };
  /** Every row that did not become an event, with the reason. */
  rejected: SheetRejection[];
}

/**
 * One contact sheet or file of JSON lines (`.jsonl`): every row or line becomes a `Contact Upserted` event on the
 * contact queue (a row's id from the file's content and the row, a line's its own, so a redelivery or the same file
 * again changes nothing), and a report says what happened to each. The file itself is left as it was.
 */
export class ContactSheetIntake {
  constructor(private readonly deps: { objects: ObjectStore; events: EventSink; defaultCountry?: CountryCode }) {}

  async process(ref: UploadRef): Promise<ContactSheetReport | null> {
    if (!ref.key.startsWith(CONTACT_SHEETS) || ref.key.endsWith('/')) return null;
    const id = uploadId(ref);
    const upload = { bucket: ref.bucket, key: ref.key, versionId: ref.versionId, eTag: ref.eTag };
    const base = {
      uploadId: id,
      upload,
      format: null,
      sheet: null,
      rows: { total: 0, accepted: 0, rejected: 0 },
      rejected: [],
    };
    let report: ContactSheetReport;
    const version = { versionId: ref.versionId, eTag: ref.eTag };
    // The size from the event, or from the object itself, before anything is downloaded: a sheet too large to read
    // gets its report instead of filling the function's memory.
    const size = ref.size > 0 ? ref.size : ((await this.deps.objects.head(ref.bucket, ref.key, version))?.size ?? 0);
    const tooLarge = size > DEFAULT_LIMITS.maxFileBytes ? fileTooLarge(size, DEFAULT_LIMITS) : null;
    const object = tooLarge ? null : await this.deps.objects.get(ref.bucket, ref.key, version);
    if (tooLarge) {
      report = { ...base, status: 'rejected', error: { code: tooLarge.code, message: tooLarge.message } };
    } else if (!object) {
      report = {
        ...base,
        status: 'rejected',
        error: {
          code: 'upload_missing',
          message: 'The sheet was deleted or replaced before it could be read. Upload it again.',
        },
      };
    } else {
      try {
        const name = ref.key.split('/').pop() ?? ref.key;
        const sheet = isContactLines(name)
          ? linesAsSheet(object.bytes, this.deps.defaultCountry)
          : await readContactSheet(object.bytes, name, this.deps.defaultCountry);
        await this.deps.events.send(sheet.events);
        report = {
          ...base,
          status: 'queued',
          error: null,
          format: sheet.format,
          sheet: sheet.sheet,
          rows: sheet.rows,
          rejected: sheet.rejected,
        };
      } catch (err) {
        if (!(err instanceof ContactSheetProblem)) throw err;
        report = { ...base, status: 'rejected', error: { code: err.code, message: err.message } };
      }
    }
    await this.deps.objects.put(
      ref.bucket,
      contactReportKey(id),
      `${JSON.stringify(report, null, 2)}\n`,
      'application/json',
    );
    return report;
  }
}
