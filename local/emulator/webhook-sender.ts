import { SIGNATURE_HEADER } from '#commons/voice-api/contract.ts';
import { signWebhook } from '#commons/voice-api/webhooks.ts';
import type { CallEventType } from './dialer.ts';
import { type CallRecord, type EmulatorSettings, iso } from './state.ts';

export interface Delivery {
  event: CallEventType;
  call_id: string;
  url: string;
  attempts: number;
  status: number | null;
  error: string | null;
  sent_at: string;
}

const ATTEMPTS = 3;

/** Posts signed call events to the configured receiver, with a few quick retries, and keeps a log of them. */
export class WebhookSender {
  readonly deliveries: Delivery[] = [];
  private readonly inFlight = new Set<Promise<void>>();

  constructor(
    private readonly settings: () => EmulatorSettings,
    private readonly baseUrl: () => string,
  ) {}

  payload(type: CallEventType, call: CallRecord, timestamp: string): string {
    const finished = call.status === 'completed';
    return JSON.stringify({
      event: type,
      timestamp,
      data: {
        call_id: call.id,
        agent_id: call.agent_id,
        duration: call.duration,
        status: call.status,
        transcript_url: finished ? `${this.baseUrl()}/_emulator/files/transcripts/${call.id}.json` : null,
        recording_url: call.recording_url,
        metadata: {
          campaign_id: call.campaign_id,
          phone_number: call.phone_number,
          contact_name: call.contact_name,
          started_at: iso(call.answered_at),
        },
      },
    });
  }

  send(type: CallEventType, call: CallRecord, timestamp: string): void {
    const { webhookUrl, webhookSecret } = this.settings();
    if (!webhookUrl || !webhookSecret) return;
    const body = this.payload(type, call, timestamp);
    const record: Delivery = {
      event: type,
      call_id: call.id,
      url: webhookUrl,
      attempts: 0,
      status: null,
      error: null,
      sent_at: timestamp,
    };
    this.deliveries.push(record);
    if (this.deliveries.length > 1000) this.deliveries.shift();
    const signature = signWebhook(body, webhookSecret);
    const task = this.post(webhookUrl, body, signature, record).finally(() => this.inFlight.delete(task));
    this.inFlight.add(task);
  }

  private async post(url: string, body: string, signature: string, record: Delivery): Promise<void> {
    for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
      record.attempts = attempt;
      try {
        const res = await fetch(url, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', [SIGNATURE_HEADER]: signature },
          body,
          signal: AbortSignal.timeout(5_000),
        });
        record.status = res.status;
        await res.arrayBuffer();
        if (res.ok) {
          record.error = null;
          return;
        }
        record.error = `receiver answered ${res.status}`;
      } catch (err) {
        record.error = (err as Error).message;
      }
      await new Promise((r) => setTimeout(r, 100 * 2 ** attempt));
    }
  }

  /** Resolves when every delivery started so far has finished (tests and shutdown use it). */
  async settled(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
  }
}
