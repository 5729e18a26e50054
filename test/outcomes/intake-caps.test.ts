import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FrequencyCapStore } from '#commons/frequency-cap-store.ts';
import { capUpload } from '#intake/caps.ts';
import { validateUpload } from '#intake/validate-upload.ts';
import { type LocalDynamo, startDynamo } from '#local/stack/dynamo.ts';
import { dynaliteClient } from '../helpers/dynalite-client.ts';
import { xlsx } from '../helpers/sheets.ts';

describe('frequency caps at intake (functions/intake/caps.ts) on dynalite', () => {
  let dynamo: LocalDynamo;
  let store: FrequencyCapStore;
  beforeAll(async () => {
    dynamo = await startDynamo({ prefix: 'intakecaps' });
    store = new FrequencyCapStore(dynaliteClient(dynamo.endpoint), dynamo.tables.outcomes, { perDay: 2, perWeek: 4 });
  });
  afterAll(async () => {
    await dynamo?.close();
  });

  // Two parts: US numbers and GB numbers (a window, since GB has no default legal hours).
  const sheet = () =>
    xlsx([['Phone Number'], ['+14155860000'], ['+447946000000'], ['+14155860001'], ['+447946000001']]);
  const validate = async () =>
    validateUpload(await sheet(), 'caps.xlsx', { metadata: { 'calling-window': 'Mon-Fri 09:00-17:00' } });
  const now = new Date('2026-03-02T18:00:00Z');

  it('removes numbers over their cap from their parts, renumbers the parts, and names each with its reason', async () => {
    const first = await validate();
    expect(first.parts.map((p) => p.contacts.length)).toEqual([2, 2]);
    // Earlier campaigns took the first GB number's calls for the day, and the second's for the week.
    const daysAgo = (n: number) => new Date(now.getTime() - n * 86_400_000);
    await store.admitAll(['+447946000000'], 'earlier', 2, now);
    await store.admitAll(['+447946000001'], 'monday', 2, daysAgo(3));
    await store.admitAll(['+447946000001'], 'tuesday', 2, daysAgo(2));
    const capped = await capUpload(first, store, 'upload-1', 1, now);
    expect(capped.parts.map((p) => [p.index, p.contacts.map((c) => c.phone)])).toEqual([
      [1, ['+14155860000', '+14155860001']],
    ]);
    expect(capped.report.rejected).toEqual([
      { row: 3, reason: 'daily-cap', input: '+447946000000' },
      { row: 5, reason: 'weekly-cap', input: '+447946000001' },
    ]);
    expect(capped.report.rows).toEqual({ total: 4, valid: 2, rejected: 2 });
    expect(capped.report.parts.map((p) => [p.index, p.rows])).toEqual([[1, 2]]);
    expect(capped.rejections.map((r) => r.reason)).toEqual(['daily-cap', 'weekly-cap']);

    // The same upload again (a retried intake) is admitted again without counting twice.
    const again = await capUpload(await validate(), store, 'upload-1', 1, now);
    expect(again.report.rejected).toEqual(capped.report.rejected);
    expect(again.parts.map((p) => p.contacts.length)).toEqual([2]);
  });

  it('refuses the upload as no_valid_rows when every number is over its cap', async () => {
    // upload-1 above counted one call for each US number; two more would pass 2 a day.
    const capped = await capUpload(await validate(), store, 'upload-2', 2, now);
    expect(capped.parts).toEqual([]);
    expect(capped.report.ok).toBe(false);
    expect(capped.report.error?.code).toBe('no_valid_rows');
    expect(capped.report.rejected.map((r) => r.reason)).toEqual(['daily-cap', 'daily-cap', 'daily-cap', 'weekly-cap']);
    expect(capped.report.error?.message).toContain(
      'already has as many calls booked as its daily or weekly limit allows',
    );
  });

  it('says when the retries alone pass the cap, and what to change', async () => {
    // Two retries are three calls a number: more than 2 a day, for numbers nobody has called.
    const fresh = await validateUpload(await xlsx([['Phone Number'], ['+14155869000']]), 'fresh.xlsx', {});
    const capped = await capUpload(fresh, store, 'upload-3', 3, now);
    expect(capped.report.error).toEqual({
      code: 'retries_over_cap',
      message:
        '2 retries mean up to 3 calls to each number, more than the cap of 2 calls a day (CALL_CAP_PER_DAY): ' +
        'set retries to 1 or fewer, or raise the cap. No number was called.',
    });
    expect(capped.report.rejected).toEqual([{ row: 2, reason: 'daily-cap', input: '+14155869000' }]);
  });
});
