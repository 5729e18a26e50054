import { type CapLimits, capWindows } from '#commons/frequency-cap.ts';
import type { CapLookup } from '#commons/frequency-cap-store.ts';
import type { Rejection } from './contacts.ts';
import { reportParts, type ValidationOutcome } from './validate-upload.ts';

/**
 * Frequency caps at intake, after every other rule (suppression, costly numbers, placement) and before any part is
 * written: each number of the parts reserves the calls its campaign may place (1 + retries) under the upload's
 * key, in the rolling day and week it counts in across all campaigns (functions/commons/frequency-cap.ts). A
 * number over its cap leaves its part and is rejected with the reason (`daily-cap` / `weekly-cap`). The key is
 * the upload's own, so a retried intake is admitted again without counting twice.
 */
export async function capUpload(
  validation: ValidationOutcome,
  caps: Pick<CapLookup, 'turnedAway' | 'limits'>,
  key: string,
  calls: number,
  now: Date,
): Promise<ValidationOutcome> {
  const phones: string[] = [];
  for (const p of validation.parts) for (const c of p.contacts) phones.push(c.phone);
  if (phones.length === 0) return validation;
  const skipped = await caps.turnedAway(phones, key, calls, now);
  if (skipped.length === 0) return validation;
  const over = new Map(skipped.map((s) => [s.phone, s.reason as 'daily-cap' | 'weekly-cap']));
  // One pass over the parts' 100,000 contacts or so: each kept, or rejected with its cap.
  const capped: Rejection[] = [];
  const parts: ValidationOutcome['parts'] = [];
  for (const p of validation.parts) {
    const kept: typeof p.contacts = [];
    for (const c of p.contacts) {
      const reason = over.get(c.phone);
      if (reason) capped.push({ row: c.row, reason, input: c.phone });
      else kept.push(c);
    }
    if (kept.length > 0) parts.push({ ...p, contacts: kept, index: parts.length + 1 });
  }
  const { report } = validation;
  const byRow = <T extends { row: number }>(list: T[]) => list.sort((a, b) => a.row - b.row);
  return {
    ...validation,
    parts,
    rejections: byRow([...validation.rejections, ...capped]),
    report: {
      ...report,
      ok: parts.length > 0,
      error: parts.length > 0 ? report.error : allCapped(calls, caps.limits),
      rows: {
        ...report.rows,
        valid: report.rows.valid - capped.length,
        rejected: report.rows.rejected + capped.length,
      },
      contacts: report.contacts.filter((c) => !over.has(c.phone)),
      rejected: byRow([...report.rejected, ...capped.map((c) => ({ row: c.row, reason: c.reason, input: c.input }))]),
      parts: reportParts(parts),
    },
  };
}

/**
 * Why every number was turned away. When one campaign's own calls (1 + retries) pass a cap, no number could ever be
 * admitted, whatever it was called before: say so, and what to change (`retries_over_cap`).
 */
function allCapped(calls: number, limits: CapLimits): { code: string; message: string } {
  const over = retriesOverCap(calls, limits);
  if (over) return { ...over, message: `${over.message} No number was called.` };
  return {
    code: 'no_valid_rows',
    message:
      'Every number that could be called already has as many calls booked as its daily or weekly limit allows (a campaign books 1 + retries when its upload is accepted); see the rejected rows.',
  };
}

/**
 * When one campaign's own calls (1 + retries) pass a cap, whatever the numbers were called before: the upload's
 * settings and the caps conflict, so `validate` can say it without the call counts intake reads.
 */
export function retriesOverCap(calls: number, limits: CapLimits): { code: string; message: string } | null {
  const over = capWindows(limits).find((w) => calls > w.cap);
  if (!over) return null;
  return {
    code: 'retries_over_cap',
    message:
      `${calls - 1} retries mean up to ${calls} calls to each number, more than the cap of ${over.cap} calls a ` +
      `${over.per} (${over.setting}): set retries to ${over.cap - 1} or fewer, or raise the cap.`,
  };
}
