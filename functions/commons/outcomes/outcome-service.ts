import type { Log } from '../log.ts';
import { optOutInTranscript, optOutOfContact } from '../opt-out.ts';
import type { SuppressionList } from '../suppression-list.ts';
import type { CallsApi } from '../voice-api/calls.ts';
import { NotFoundError } from '../voice-api/errors.ts';
import type { Call, WebhookEvent } from '../voice-api/types.ts';
import { type CallOutcome, type ContactOutcome, contactOutcomes, isFinished, outcomeOfCall } from './call-outcome.ts';
import type { CallResolver } from './call-resolver.ts';
import type { OutcomeStore } from './outcome-store.ts';

export interface OutcomeDeps {
  resolver: CallResolver;
  calls: Pick<CallsApi, 'listAll'>;
  store: OutcomeStore;
  suppression: Pick<SuppressionList, 'add'>;
  log: Log;
  now: () => Date;
}

/** A call that has not finished when its outcome event is handled; thrown so the queue delivers it again later. */
export class CallNotFinishedError extends Error {
  constructor(callId: string, status: string) {
    super(`call ${callId} is still ${status}; its outcome is recorded on a later delivery`);
    this.name = 'CallNotFinishedError';
  }
}

/**
 * Call outcomes per contact: from webhook events (queued by the receiver) or, where webhooks are not configured,
 * from the calls list at campaign end. Everything here is idempotent: an event handled twice, or an event and a
 * reconcile of the same call, write the same items.
 */
export class OutcomeService {
  constructor(private readonly deps: OutcomeDeps) {}

  /**
   * One `call.completed` / `call.failed` event. A completed call is read once (GET /calls/{id}, cached) for its
   * transcript and cost; a failed call needs no request when the event's metadata names its number and campaign.
   * A call the API does not know (404) is noted as unknown and answered `unknown-call`, not thrown: no later
   * delivery would find it either, and a throw would only walk the message into the dead letters.
   */
  async handleEvent(event: WebhookEvent): Promise<'recorded' | 'ignored' | 'unknown-call'> {
    if (event.event !== 'call.completed' && event.event !== 'call.failed') return 'ignored';
    const meta = (event.data.metadata ?? {}) as Record<string, unknown>;
    const phone = typeof meta.phone_number === 'string' && meta.phone_number ? meta.phone_number : null;
    const knowsCampaign = 'campaign_id' in meta && (typeof meta.campaign_id === 'string' || meta.campaign_id === null);
    if (event.event === 'call.failed' && phone && knowsCampaign) {
      const status = isFinished(event.data.status) ? event.data.status : 'failed';
      await this.record({
        callId: event.data.call_id,
        campaignId: meta.campaign_id as string | null,
        phone,
        contactName: typeof meta.contact_name === 'string' ? meta.contact_name : null,
        status,
        failureReason: null,
        durationSeconds: event.data.duration ?? null,
        costInr: null,
        transcriptUrl: null,
        recordingUrl: event.data.recording_url ?? null,
        summary: null,
        at: event.timestamp,
        startedAt: null,
        optOutPhrase: null,
      });
      return 'recorded';
    }
    let call: Call;
    try {
      call = await this.deps.resolver.finished(event.data.call_id);
    } catch (err) {
      if (!(err instanceof NotFoundError)) throw err;
      await this.noteUnknownCall(event, meta);
      return 'unknown-call';
    }
    if (!isFinished(call.status)) throw new CallNotFinishedError(call.id, call.status);
    await this.recordCall(call, { transcriptUrl: event.data.transcript_url, at: event.timestamp });
    return 'recorded';
  }

  /**
   * Fills in a campaign's outcomes from the calls list (GET /calls, 100 a page, from `since`): the path when
   * webhooks are not configured, and a repair after lost deliveries. Call it when the campaign has finished.
   */
  async reconcileOutcomes(
    campaignId: string,
    since: Date,
  ): Promise<{ calls: number; optedOut: string[]; contacts: ContactOutcome[] }> {
    let count = 0;
    const optedOut: string[] = [];
    let page: CallOutcome[] = [];
    // Recorded a page at a time (a 1000-contact campaign is a few dozen requests, not thousands); opt-outs are
    // suppressed before their page is recorded, as one by one.
    const flush = async () => {
      for (const o of page) if (o.optOutPhrase) await this.suppressOptOut(o);
      await this.deps.store.recordMany(page);
      page = [];
    };
    for await (const call of this.deps.calls.listAll({ start_date: since })) {
      if (call.campaign_id !== campaignId || !isFinished(call.status)) continue;
      const outcome = outcomeOfCall(call, {});
      outcome.optOutPhrase = optOutInTranscript(call.transcript);
      if (outcome.optOutPhrase) optedOut.push(outcome.phone);
      page.push(outcome);
      count++;
      if (page.length >= 100) await flush();
    }
    await flush();
    return { calls: count, optedOut, contacts: await this.contactOutcomes(campaignId) };
  }

  /** The per-contact table of a campaign (report, export). */
  async contactOutcomes(campaignId: string): Promise<ContactOutcome[]> {
    return contactOutcomes(campaignId, await this.deps.store.ofCampaign(campaignId));
  }

  /**
   * A contact event (contact sync, the contacts API): a `do_not_call` tag or an opt-out lead status suppresses
   * the number at once. Answers the reason, or null when the contact did not opt out.
   */
  async handleContact(contact: {
    phone_number: string;
    tags?: readonly string[] | null;
    lead_status?: string | null;
  }): Promise<string | null> {
    const reason = optOutOfContact(contact);
    if (reason)
      await this.deps.suppression.add([contact.phone_number], `opted out: ${reason}`, 'contact-event', this.deps.now());
    return reason;
  }

  /**
   * The event names a call this account's API does not have (another account's webhook, a test send from the
   * vendor's dashboard, a forged but validly signed id). Nothing is recorded as an outcome; the calls list at
   * the part's end still records every call the campaign really made.
   */
  private async noteUnknownCall(event: WebhookEvent, meta: Record<string, unknown>): Promise<void> {
    const campaignId = typeof meta.campaign_id === 'string' ? meta.campaign_id : null;
    await this.deps.store.recordUnknownCall(
      { callId: event.data.call_id, event: event.event, campaignId, eventAt: event.timestamp },
      this.deps.now(),
    );
    this.deps.log.warn('call event for a call the Voice API does not know: noted, not retried', {
      callId: event.data.call_id,
      event: event.event,
      campaignId,
    });
  }

  private async recordCall(call: Call, extra: { transcriptUrl?: string | null; at?: string }): Promise<CallOutcome> {
    const outcome = outcomeOfCall(call, extra);
    outcome.optOutPhrase = optOutInTranscript(call.transcript);
    await this.record(outcome);
    return outcome;
  }

  /** Suppresses first, then records: a failure between the two is redone whole on the next delivery. */
  private async record(outcome: CallOutcome): Promise<void> {
    if (outcome.optOutPhrase) await this.suppressOptOut(outcome);
    await this.deps.store.record(outcome);
  }

  private async suppressOptOut(outcome: CallOutcome): Promise<void> {
    await this.deps.suppression.add(
      [outcome.phone],
      `opted out on call ${outcome.callId}: "${outcome.optOutPhrase}"`,
      'transcript',
      this.deps.now(),
    );
    this.deps.log.info('number suppressed: opt-out spoken on a call', {
      callId: outcome.callId,
      campaignId: outcome.campaignId,
    });
  }
}
