import type { CountryCode } from 'libphonenumber-js/max';
import type { LegalHoursTable } from '#commons/legal-hours.ts';
import { type CostlyType, costlyNumberType } from '#commons/phone/phone.ts';
import { type ByteSource, SourceReadError } from '#commons/spreadsheet/byte-source.ts';
import { cellText } from '#commons/spreadsheet/cell.ts';
import { FileProblem } from '#commons/spreadsheet/file-problem.ts';
import { DEFAULT_LIMITS, type ReadLimits } from '#commons/spreadsheet/limits.ts';
import { openWorkbook } from '#commons/spreadsheet/sources.ts';
import type { SheetFormat } from '#commons/spreadsheet/workbook.ts';
import { type Contact, ContactRules, type Rejection } from './contacts.ts';
import { OriginalRows } from './original-rows.ts';
import type { Part } from './parts.ts';
import { placeContacts } from './placement.ts';
import { readSettings, S3_METADATA, type SettingSource, type StartHorizon, type UploadSettings } from './settings.ts';
import { type ScannedUpload, scanUpload } from './sheet/scan.ts';
import type { ZoneChoice } from './time-zones.ts';

export interface ValidateOptions {
  /** For numbers without a country code, unless the upload's settings name another country. */
  defaultCountry?: CountryCode;
  /** The upload's S3 object metadata, read for settings alongside its Settings worksheet. */
  metadata?: Record<string, string>;
  /** Where `metadata` came from, for messages (S3 object metadata unless told otherwise, e.g. command-line flags). */
  metadataSource?: SettingSource;
  /** Legal calling hours by country (deployment setting `LEGAL_HOURS`); the built-in table when absent. */
  legalHours?: LegalHoursTable;
  /** Answers which of these numbers are on the suppression list. */
  suppressed?: (phones: string[]) => Promise<ReadonlySet<string>>;
  /**
   * Told each number kept as soon as its row is read, so lookups about it (the do-not-call list, caps) can start
   * while the rest of the file is still being read.
   */
  lookAhead?: (phone: string) => void;
  limits?: ReadLimits;
  /** Refuses a start further ahead than the workflow can wait (START_HORIZON_DAYS); no limit when absent. */
  startHorizon?: StartHorizon;
}

/** What `callsheet validate --json` prints, and what intake reports. */
export interface ValidationReport {
  ok: boolean;
  error: { code: string; message: string } | null;
  format: SheetFormat | null;
  rows: { total: number; valid: number; rejected: number };
  contacts: { row: number; phone: string; name: string | null; customInstruction: string | null }[];
  rejected: { row: number; reason: Rejection['reason'] | 'costly_number'; input: string; hint?: string }[];
  parts: {
    index: number;
    rows: number;
    zones: string[];
    timeZone: string;
    zoneSource: ZoneChoice['source'];
    country: string | null;
  }[];
  /** Per country, why its rows could not be placed (no legal hours and no window…), in words to act on. */
  notes: string[];
}

export interface ValidationOutcome {
  report: ValidationReport;
  /** The file that was read. */
  upload: UploadFile;
  scanned: ScannedUpload | null;
  /** The contact sheet's rows as read, for the annotated copy (so the upload is read once); null when unread. */
  originals: OriginalRows | null;
  /** What the upload itself asked for; empty when the file could not be read. */
  settings: UploadSettings;
  parts: Part[];
  rejections: Rejection[];
}

export interface UploadFile {
  /** In memory, or read as it streams (an S3 object: a CSV is never held whole). */
  source: Buffer | ByteSource;
  fileName: string;
  limits: ReadLimits;
}

const textOrNull = (s: string): string | null => (s === '' ? null : s);

/**
 * The report quotes at most this much of a rejected cell (the original and the annotated copy keep it whole): quoted
 * whole, and escaped as JSON, a sheet of long rejected cells made a report several times the size of the file.
 */
export const QUOTED_INPUT_CHARS = 64;

function quoted(input: string): string {
  if (input.length <= QUOTED_INPUT_CHARS) return input;
  const cut = input.slice(0, QUOTED_INPUT_CHARS - 1);
  // Never half a surrogate pair.
  return `${/[\uD800-\uDBFF]$/.test(cut) ? cut.slice(0, -1) : cut}…`;
}

function failed(upload: UploadFile, code: string, message: string, format: SheetFormat | null): ValidationOutcome {
  return {
    upload,
    report: {
      ok: false,
      error: { code, message },
      format,
      rows: { total: 0, valid: 0, rejected: 0 },
      contacts: [],
      rejected: [],
      parts: [],
      notes: [],
    },
    scanned: null,
    originals: null,
    settings: {},
    parts: [],
    rejections: [],
  };
}

/** The default country as far as it is known before the file is read: the upload's metadata, else the option. */
function countryBeforeReading(options: ValidateOptions): CountryCode | undefined {
  try {
    return readSettings(null, options.metadata, options.metadataSource).defaultCountry ?? options.defaultCountry;
  } catch {
    // Bad metadata is reported once the Settings sheet has been read with it.
    return options.defaultCountry;
  }
}

async function readContacts(
  upload: UploadFile,
  country: CountryCode | undefined,
  lookAhead: ((phone: string) => void) | undefined,
): Promise<{ scanned: ScannedUpload; rules: ContactRules; originals: OriginalRows }> {
  const rules = new ContactRules(country);
  const originals = new OriginalRows();
  const workbook = await openWorkbook(upload.source, upload.fileName, upload.limits);
  const scanned = await scanUpload(workbook, upload.limits, (r, columns) => {
    const phone = r.cells[columns.phone];
    originals.add(r);
    const kept = rules.add({
      row: r.row,
      phone: typeof phone === 'number' ? phone : cellText(phone),
      name: columns.name === null ? null : textOrNull(cellText(r.cells[columns.name])),
      customInstruction:
        columns.customInstruction === null ? null : textOrNull(cellText(r.cells[columns.customInstruction])),
      timeZone: columns.timeZone === null ? null : textOrNull(cellText(r.cells[columns.timeZone])),
      region: columns.region === null ? null : textOrNull(cellText(r.cells[columns.region])),
    });
    if (kept && lookAhead) lookAhead(kept.phone);
  });
  return { scanned, rules, originals };
}

/**
 * Reads an upload and applies every intake rule: the phone column to E.164, duplicates and suppressed numbers out,
 * each rejected row with its reason, the rest split into parts of at most 1000 grouped by time zone.
 * File-level problems come back as `ok: false` with a message the uploader can act on; nothing throws for bad input.
 */
export async function validateUpload(
  source: Buffer | ByteSource,
  fileName: string,
  options: ValidateOptions = {},
): Promise<ValidationOutcome> {
  const upload: UploadFile = { source, fileName, limits: options.limits ?? DEFAULT_LIMITS };
  let scanned: ScannedUpload;
  let settings: UploadSettings;
  let rules: ContactRules;
  let originals: OriginalRows;
  try {
    // Rows are normalized as they stream past, in the country known before reading; only a Settings sheet that
    // names another country costs a second read.
    let country = countryBeforeReading(options);
    ({ scanned, rules, originals } = await readContacts(upload, country, options.lookAhead));
    settings = readSettings(
      scanned.settings,
      options.metadata,
      options.metadataSource ?? S3_METADATA,
      options.startHorizon ?? null,
    );
    if ((settings.defaultCountry ?? options.defaultCountry) !== country) {
      country = settings.defaultCountry ?? options.defaultCountry;
      ({ scanned, rules, originals } = await readContacts(upload, country, options.lookAhead));
    }
  } catch (err) {
    if (err instanceof FileProblem) return failed(upload, err.code, err.message, null);
    // The upload could not be fetched (the network, S3): not the file's fault, so it is tried again, never refused.
    if (err instanceof SourceReadError) throw err;
    // Reading is pure work on the bytes: an error here will recur on every retry, so the file is refused with a
    // report rather than left to dead-letter unexplained.
    return failed(
      upload,
      'unreadable',
      `callsheet could not read this file (${(err as Error).name}: ${(err as Error).message}). Save it again from your spreadsheet program as .xlsx or .csv and upload the new copy; if that fails too, send the file to support.`,
      null,
    );
  }

  if (options.suppressed && rules.contacts.length > 0)
    rules.suppress(await options.suppressed(rules.contacts.map((c) => c.phone)));

  const costly = settings.allowCostlyNumbers ? [] : costlyContacts(rules.contacts);
  const costlyRows = new Set(costly.map((c) => c.row));
  const callable = costly.length === 0 ? rules.contacts : rules.contacts.filter((c) => !costlyRows.has(c.row));
  // Parts by country and candidate zones; a number nobody can say is legal to call now is refused, never guessed.
  const placement = placeContacts(callable, settings.window ?? null, options.legalHours);
  const unplacedRows = new Set(placement.rejected.map((r) => r.row));
  const placed = unplacedRows.size === 0 ? callable : callable.filter((c) => !unplacedRows.has(c.row));
  const parts = placement.parts;
  const rejections = mergeByRow<Rejection>(rules.rejected, placement.rejected);
  const rejected = mergeByRow<ValidationReport['rejected'][number]>(
    rejections.map((r) => ({
      row: r.row,
      reason: r.reason,
      input: quoted(r.input),
      ...(r.hint ? { hint: r.hint } : {}),
    })),
    costly.map((c) => ({ row: c.row, reason: 'costly_number' as const, input: c.input })),
  );

  const report: ValidationReport = {
    ok: parts.length > 0,
    error:
      parts.length > 0
        ? null
        : {
            code: 'no_valid_rows',
            message:
              scanned.rowCount === 0
                ? 'The sheet has no rows under its header row: there is nobody to call.'
                : 'No row has a phone number that can be called; see the rejected rows for why.',
          },
    format: scanned.format,
    rows: { total: scanned.rowCount, valid: placed.length, rejected: rejected.length },
    contacts: placed.map((c) => ({
      row: c.row,
      phone: c.phone,
      name: c.name,
      customInstruction: c.customInstruction,
    })),
    rejected,
    parts: reportParts(parts),
    notes: [...placement.problems, ...extensionNote(rules.extensions, placed)],
  };
  return { report, upload, scanned, originals, settings, parts, rejections };
}

/** Says which kept rows lose an extension: the call reaches the number's main line, not the person's desk. */
function extensionNote(
  extensions: readonly { row: number; extension: string }[],
  placed: readonly Contact[],
): string[] {
  if (extensions.length === 0) return [];
  const kept = new Set(placed.map((c) => c.row));
  const lost = extensions.filter((e) => kept.has(e.row));
  if (lost.length === 0) return [];
  const shown = lost.slice(0, 5).map((e) => `row ${e.row} (extension ${e.extension})`);
  const more = lost.length > shown.length ? ` and ${lost.length - shown.length} more` : '';
  return [
    `${lost.length === 1 ? '1 number gives' : `${lost.length} numbers give`} an extension, which a call cannot dial: ${shown.join(', ')}${more}; each is called at its main number, so give a direct number to reach the person`,
  ];
}

/** The report's view of the parts. */
export const reportParts = (parts: readonly Part[]): ValidationReport['parts'] =>
  parts.map((p) => ({
    index: p.index,
    rows: p.contacts.length,
    zones: p.zones,
    timeZone: p.timeZone,
    zoneSource: p.zoneSource,
    country: p.country,
  }));

/** Contacts whose numbers cost more than an ordinary call, in row order. */
function costlyContacts(contacts: readonly Contact[]): { row: number; input: string; type: CostlyType }[] {
  const out: { row: number; input: string; type: CostlyType }[] = [];
  for (const c of contacts) {
    const type = costlyNumberType(c.phone, c.country);
    if (type) out.push({ row: c.row, input: c.phone, type });
  }
  return out;
}

/** Two lists each in row order, as one in row order. */
function mergeByRow<T extends { row: number }>(a: T[], b: T[]): T[] {
  if (b.length === 0) return a;
  return [...a, ...b].sort((x, y) => x.row - y.row);
}
