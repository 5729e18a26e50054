import { describe, expect, it } from 'vitest';
import type { Call } from '../../functions/commons/voice-api/types.ts';
import { OutcomeStore } from '../../functions/outcomes/outcome-store.ts';
import { usePipeline } from '../helpers/pipeline.ts';
import { phones } from '../helpers/sheets.ts';
import { runWithWebhooks, stackDb } from './webhook-run.ts';

const p = usePipeline();

describe('call outcomes from signed webhooks on the embedded stack', () => {
  it('records every call of a full run exactly as the emulator has it, per call and per contact', async () => {
    const numbers = phones(8, '+1415580');
    const { campaignId, calls } = await runWithWebhooks(
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
  });
});
