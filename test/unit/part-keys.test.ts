import { describe, expect, it } from 'vitest';
import { followUpKey, labelOfPartKey, partKey, partOfKey } from '#commons/campaign-plan.ts';
import { partOfReportKey, partReportFiles, reportKeys, reportPrefix } from '#commons/report-keys.ts';

describe('part keys and report labels', () => {
  const upload = 'leads-p2-0123456789abcdef';
  it.each([
    [partKey(upload, 1), '1'],
    [partKey(upload, 12), '12'],
    [followUpKey(partKey(upload, 3), 2, 0), '3-r2a'],
    [followUpKey(followUpKey(partKey(upload, 3), 2, 1), 3, 0), '3-r2b-r3a'],
  ])('%s is labelled %s, and the label gives the key back', (key, label) => {
    expect(labelOfPartKey(upload, key)).toBe(label);
    expect(partKey(upload, label)).toBe(key);
  });

  it.each([
    [partKey(upload, 1), { uploadId: upload, part: 1 }],
    [partKey(upload, 12), { uploadId: upload, part: 12 }],
    [followUpKey(partKey(upload, 3), 2, 0), { uploadId: upload, part: 3 }],
    [followUpKey(followUpKey(partKey(upload, 3), 2, 1), 3, 0), { uploadId: upload, part: 3 }],
    [`${partKey(upload, 3)}-x`, null],
    ['no-part-here', null],
  ])('%s names its upload and part: %o', (key, expected) => {
    expect(partOfKey(key)).toEqual(expected);
  });
});

describe("a part's report files", () => {
  const upload = 'leads-p2-0123456789abcdef';
  it.each(['1', '12', '3-r2a', '3-r2b-r3a'])('the report of part %s names its upload and label back', (label) => {
    const files = partReportFiles(reportPrefix(upload), label);
    expect(files).toEqual({
      json: `reports/${upload}/part-${label}.json`,
      html: `reports/${upload}/part-${label}.html`,
      outcomesCsv: `reports/${upload}/outcomes-part-${label}.csv`,
      outcomesXlsx: `reports/${upload}/outcomes-part-${label}.xlsx`,
      stats: `reports/${upload}/stats-part-${label}.json`,
    });
    expect(partOfReportKey(files.json)).toEqual({ upload, label });
  });

  it.each([
    reportKeys(upload).json,
    reportKeys(upload).annotated,
    `reports/${upload}/stats-part-1.json`,
    `reports/${upload}/outcomes-part-1.csv`,
    `reports/${upload}/part-1.html`,
    `reports/${upload}/nested/part-1.json`,
    `parts/${upload}/part-1.json`,
  ])('%s is not a part report', (key) => {
    expect(partOfReportKey(key)).toBeNull();
  });
});
