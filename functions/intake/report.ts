import type { AppliedRule } from '#commons/legal-hours.ts';
import type { UploadSettings } from './settings.ts';
import type { ValidationReport } from './validate-upload.ts';

export const XLSX_TYPE = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

/** What intake leaves at `reports/<upload id>/report.json` for the person who uploaded the sheet. */
export interface IntakeReport {
  uploadId: string;
  status: 'launched' | 'rejected' | 'repeated';
  /** Why nothing was launched, in words the uploader can act on; null when launched. */
  error: { code: string; message: string } | null;
  upload: { bucket: string; key: string; versionId: string | null; eTag: string; size: number };
  /** Where the untouched original now is. */
  original: string | null;
  agent: { id: string; name: string } | null;
  settings: UploadSettings;
  format: ValidationReport['format'];
  rows: ValidationReport['rows'];
  rejected: ValidationReport['rejected'];
  /**
   * In words to act on: per country, why rows could not be placed (e.g. no legal hours and no window); and when the
   * parts need more of the API plan than it has (too many closing at once, or a busy hour: plan-load-notes.ts).
   */
  notes: string[];
  parts: {
    index: number;
    rows: number;
    /** Every zone the part may ring in: it is called only when its window is open in all of them. */
    zones: string[];
    timeZone: string | null;
    /** How the zones were found; says when a number range spans zones and all of them are kept. */
    zoneDecidedBy: string;
    /** The hours the part is called in (upload window ∩ every rule's hours) and whether legal hours cut it. */
    window: string;
    clippedToLegalHours: boolean;
    /** The states or provinces whose rules apply to the part's numbers (their area codes', and their rows' State cells). */
    regions: string[];
    /** Every rule that shaped the window, with its source: why any call of the part was allowed. */
    rules: AppliedRule[];
    campaignName: string;
    file: string;
    executionName: string;
  }[];
  /** Every original row with its fate, as a sheet to open in Excel. */
  annotated: string | null;
  earlierUpload: { uploadId: string; key: string; at: string } | null;
}

/**
 * Where the original goes once its report is written: `processed/` or `rejected/`, keeping the agent folder and
 * adding the upload id, so a later upload of the same name never overwrites an earlier original.
 */
export function originalDestination(key: string, id: string, where: 'processed' | 'rejected'): string {
  const relative = key.replace(/^incoming\//, '');
  const slash = relative.lastIndexOf('/');
  const dir = slash >= 0 ? `${relative.slice(0, slash)}/` : '';
  return `${where}/${dir}${id}/${relative.slice(slash + 1)}`;
}
