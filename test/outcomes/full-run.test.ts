import { describe, expect, it } from 'vitest';
import { OutcomeStore } from '#commons/outcomes/outcome-store.ts';
import type { Call } from '#commons/voice-api/types.ts';
import { parseCsv } from '#local/stack/html-report.ts';
import { readJson, usePipeline } from '../helpers/pipeline.ts';
import { phones } from '../helpers/sheets.ts';
import { runWithWebhooks, stackDb } from './webhook-run.ts';

const p = usePipeline();

describe('call outcomes from signed webhooks on the embedded stack', () => {
  it('records every call of a full run exactly as the emulator has it, per call and per contact', async () => {
    const numbers = phones(8, '+1415580');
    const { campaignId, calls, reportPrefix } = await runWithWebhooks(
      p,
      numbers.map((n, i) => [n, `Contact ${i + 1}`, null]),
      'fullrun',
      { answerRate: 0.5 },
    );
    expect(calls.length).toBeGreaterThan(numbers.length); // some contacts were retried
    expect(calls.some((c) => c.status === 'failed')).toBe(true);
    expect(calls.some((c) => c.status === 'completed')).toBe(true);

    const recorded = await new OutcomeStore(stackDb(p), p.stack.dynamo.tables.outcomes).ofCampaign(campaignId);
    expect(recorded).toHaveLength(calls.length);
    const byId = new Map(recorded.map((r) => [r.callId, r]));
    for (const call of calls) {
      const r = byId.get(call.id);
      expect(r, call.id).toBeDefined();
      expect(r).toMatchObject({ phone: call.phone_number, campaignId, status: call.status });
      if (call.status === 'completed') {
        expect(r).toMatchObject({
          durationSeconds: call.duration,
          costInr: call.cost,
          recordingUrl: call.recording_url,
          contactName: call.contact_name,
          at: call.ended_at,
        });
        expect(r?.transcriptUrl).toContain(call.id);
      }
    }

    const contacts = await p.stack.webhooks.outcomes.contactOutcomes(campaignId);
    expect(contacts.map((c) => c.phone).sort()).toEqual([...numbers].sort());
    for (const c of contacts) {
      const mine = calls.filter((k) => k.phone_number === c.phone);
      expect(c.attempts).toBe(mine.length);
      const last = mine.sort((a, b) => (a.created_at ?? '').localeCompare(b.created_at ?? '')).at(-1) as Call;
      expect(c.lastStatus).toBe(last.status);
      expect(c.lastCallId).toBe(last.id);
      const completed = mine.filter((k) => k.status === 'completed');
      expect(c.durationSeconds).toBe(completed.reduce((s, k) => s + (k.duration ?? 0), 0));
    }
    // Completed calls were each read once; failed ones needed no request (number and campaign in the event).
    const completedCount = calls.filter((c) => c.status === 'completed').length;
    const log = await p.f.admin.requests();
    const reads = (log as { method: string; path: string }[]).filter(
      (r) => r.method === 'GET' && /^\/api\/developer\/v1\/calls\/call/.test(r.path),
    );
    expect(reads).toHaveLength(completedCount);

    // The calls list fills in what the webhooks could not know (failure reasons, costs of failed calls).
    const reconciled = await p.stack.webhooks.outcomes.reconcileOutcomes(campaignId, new Date(0));
    expect(reconciled.calls).toBe(calls.length);
    const after = await new OutcomeStore(stackDb(p), p.stack.dynamo.tables.outcomes).ofCampaign(campaignId);
    for (const call of calls.filter((c) => c.status === 'failed'))
      expect(after.find((r) => r.callId === call.id)?.failureReason).toBe(call.failure_reason);

    // The lifecycle's own end of the part: its report sums the contacts and its export has one row per contact,
    // each as the emulator's records have it.
    const report = await readJson<{
      campaignId: string;
      outcomes: { contacts: number; attempts: number; byLastStatus: Record<string, number>; exports: { csv: string } };
    }>(p, `${reportPrefix}part-1.json`);
    expect(report.campaignId).toBe(campaignId);
    const lastOf = (phone: string) =>
      calls
        .filter((k) => k.phone_number === phone)
        .sort((a, b) => (a.created_at ?? '').localeCompare(b.created_at ?? ''))
        .at(-1) as Call;
    const byStatus: Record<string, number> = {};
    for (const n of numbers) byStatus[lastOf(n).status] = (byStatus[lastOf(n).status] ?? 0) + 1;
    expect(report.outcomes).toMatchObject({ contacts: numbers.length, attempts: calls.length, byLastStatus: byStatus });
    const csv = (await p.stack.objects.get(p.stack.bucket, report.outcomes.exports.csv))?.bytes.toString('utf8') ?? '';
    const rows = parseCsv(csv)
      .slice(1)
      .filter((r) => r.length > 1);
    expect(rows).toHaveLength(numbers.length);
    for (const n of numbers) {
      const last = lastOf(n);
      const cells = rows.find((r) => r[0] === n) ?? [];
      const attempts = calls.filter((k) => k.phone_number === n).length;
      expect([cells[2], cells[3], cells[4], cells[7], cells[9]], n).toEqual([
        String(attempts),
        last.status,
        last.failure_reason ?? '',
        last.started_at ?? '',
        last.id,
      ]);
    }
  });
});
