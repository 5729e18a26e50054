import type { Call } from '../voice-api/types.ts';

/** What happened on one call, as recorded from a webhook or the calls list. Unknown values are null. */
export interface CallOutcome {
  callId: string;
  campaignId: string | null;
  phone: string;
  contactName: string | null;
  status: 'completed' | 'failed' | 'cancelled';
  failureReason: string | null;
  durationSeconds: number | null;
  costInr: number | null;
  transcriptUrl: string | null;
  recordingUrl: string | null;
  summary: string | null;
  /** When the call ended (or, failing that, the event's time). */
  at: string;
  /** When the call was answered or began ringing (`started_at`), if known: what calling hours are judged on. */
  startedAt: string | null;
  /** The opt-out phrase the contact said on this call, if any. */
  optOutPhrase: string | null;
}

const FINISHED = ['completed', 'failed', 'cancelled'] as const;
export const isFinished = (status: string | undefined): status is CallOutcome['status'] =>
  (FINISHED as readonly string[]).includes(status ?? '');

/** A finished call in the API's full shape (GET /calls/{id} or a calls-list entry) as an outcome. */
export function outcomeOfCall(call: Call, extra: { transcriptUrl?: string | null; at?: string } = {}): CallOutcome {
  if (!isFinished(call.status)) throw new Error(`call ${call.id} has not finished (${call.status})`);
  if (!call.phone_number) throw new Error(`call ${call.id} carries no phone number`);
  return {
    callId: call.id,
    campaignId: call.campaign_id ?? null,
    phone: call.phone_number,
    contactName: call.contact_name ?? null,
    status: call.status,
    failureReason: call.failure_reason ?? null,
    durationSeconds: call.duration ?? null,
    costInr: call.cost ?? null,
    transcriptUrl: extra.transcriptUrl ?? null,
    recordingUrl: call.recording_url ?? null,
    summary: call.summary ?? null,
    at: call.ended_at ?? extra.at ?? call.created_at ?? new Date(0).toISOString(),
    startedAt: call.started_at ?? null,
    optOutPhrase: null,
  };
}

/** One contact of a campaign, summed over its calls: the per-contact table of the report and the export. */
export interface ContactOutcome {
  campaignId: string;
  phone: string;
  contactName: string | null;
  attempts: number;
  lastStatus: CallOutcome['status'];
  lastFailureReason: string | null;
  /** Talk time over every attempt. */
  durationSeconds: number;
  /** Cost over the attempts whose cost is known; null when none is. */
  costInr: number | null;
  transcriptUrl: string | null;
  recordingUrl: string | null;
  /** When the last call started, if known, and when it ended. */
  lastCallStartedAt: string | null;
  lastCallEndedAt: string;
  lastCallId: string;
  /** Set when the contact opted out on one of these calls: the number was suppressed mid-campaign. */
  optOutPhrase: string | null;
}

/** Groups a campaign's call outcomes per number, in the order the numbers were first called. */
export function contactOutcomes(campaignId: string, calls: readonly CallOutcome[]): ContactOutcome[] {
  const byPhone = new Map<string, CallOutcome[]>();
  const sorted = [...calls].filter((c) => c.campaignId === campaignId).sort((a, b) => a.at.localeCompare(b.at));
  for (const c of sorted) byPhone.set(c.phone, [...(byPhone.get(c.phone) ?? []), c]);
  return [...byPhone.entries()].map(([phone, list]) => {
    const last = list[list.length - 1] as CallOutcome;
    const completed = [...list].reverse().find((c) => c.status === 'completed');
    const costs = list.map((c) => c.costInr).filter((c): c is number => c !== null);
    return {
      campaignId,
      phone,
      contactName: list.find((c) => c.contactName)?.contactName ?? null,
      attempts: list.length,
      lastStatus: last.status,
      lastFailureReason: last.failureReason,
      durationSeconds: list.reduce((s, c) => s + (c.durationSeconds ?? 0), 0),
      costInr: costs.length > 0 ? Math.round(costs.reduce((s, c) => s + c, 0) * 100) / 100 : null,
      transcriptUrl: completed?.transcriptUrl ?? null,
      recordingUrl: completed?.recordingUrl ?? null,
      lastCallStartedAt: last.startedAt,
      lastCallEndedAt: last.at,
      lastCallId: last.callId,
      optOutPhrase: list.find((c) => c.optOutPhrase)?.optOutPhrase ?? null,
    };
  });
}
