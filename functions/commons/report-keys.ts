/** Where an upload's reports and part files live in the bucket: one home for every such key. */

export const reportPrefix = (id: string) => `reports/${id}/`;

/**
 * A part's files beside the intake report, each named by the part's label (`1` for a part, `1-r2a` for a follow-up
 * round: labelOfPartKey): its report (the lifecycle writes it; run, report and the outcomes read it), that report's
 * page, the per-contact outcome exports, and the stats series the local stack samples.
 */
export const partReportFiles = (prefix: string, label: string | number) => ({
  json: `${prefix}part-${label}.json`,
  html: `${prefix}part-${label}.html`,
  outcomesCsv: `${prefix}outcomes-part-${label}.csv`,
  outcomesXlsx: `${prefix}outcomes-part-${label}.xlsx`,
  stats: `${prefix}stats-part-${label}.json`,
});

/** A part's report: `<prefix>part-<label>.json`. */
export const partReportKey = (prefix: string, label: string | number) => partReportFiles(prefix, label).json;

const PART_REPORT = /^reports\/([^/]+)\/part-([^/]+)\.json$/;

/** The upload and label of a part report's key (`partReportKey` under `reportPrefix`), or null for any other key. */
export function partOfReportKey(key: string): { upload: string; label: string } | null {
  const m = PART_REPORT.exec(key);
  return m ? { upload: m[1] as string, label: m[2] as string } : null;
}

export const reportKeys = (id: string) => ({
  json: `${reportPrefix(id)}report.json`,
  annotated: `${reportPrefix(id)}annotated.xlsx`,
});

/** Where a part's file (exactly the API columns) is written: not to be confused with a part's lasting key. */
export const partFileKey = (id: string, index: number) => `parts/${id}/part-${index}.xlsx`;
/**
 * The parts an upload's intake fixed, written before it starts the first (functions/intake/launch-record.ts): a retry
 * starts exactly these, never parts worked out again from a do-not-call list or caps that changed meanwhile.
 */
export const launchKey = (id: string) => `parts/${id}/launch.json`;
