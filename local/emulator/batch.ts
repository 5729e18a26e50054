/** The shared shape of bulk answers: one result per entry, failures next to successes. */
export interface EntryResult {
  index: number;
  phone_number: string;
  success: boolean;
  error?: string;
  [extra: string]: unknown;
}

/** The entry's phone number as sent, for reporting (empty when it had none). */
export function entryPhone(entry: unknown): string {
  const phone = (entry as { phone_number?: unknown } | null)?.phone_number;
  return typeof phone === 'string' ? phone : '';
}

export function batchAnswer(results: EntryResult[]): {
  total: number;
  succeeded: number;
  failed: number;
  results: EntryResult[];
} {
  const succeeded = results.filter((r) => r.success).length;
  return { total: results.length, succeeded, failed: results.length - succeeded, results };
}
