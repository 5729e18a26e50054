import { FINISHED_CALL_STATUSES } from '#commons/voice-api/contract.ts';
import type { SimClock } from './clock.ts';
import { conversation } from './conversation.ts';
import { between, type IdMaker, streamFor } from './random.ts';
import type { Account, CallRecord, CampaignContact, CampaignRecord } from './state.ts';

export type CallEventType = 'call.started' | 'call.completed' | 'call.failed' | 'transcript.ready' | 'recording.ready';

/** Where the dialer reports what happens to calls (webhooks and the live channel listen here). */
export interface CallObserver {
  callEvent(type: CallEventType, call: CallRecord): void;
  transcriptLine(call: CallRecord, line: { speaker: string; text: string; timestamp: string }, isFinal: boolean): void;
}

/**
 * A stretch of time in which a campaign could dial: active, its agent active, numbers ready for a line. Every number
 * ready in it (`phones`) could have been dialled at any instant of it had a line been free, so an auditor checks the
 * stretch, not only the calls the lines happened to carry. `to` is null while the stretch lasts.
 */
export interface DialableSpan {
  campaign_id: string;
  agent_id: string;
  from: number;
  to: number | null;
  phones: Set<string>;
}

/** A stretch as the admin API shows it (`GET /_emulator/dialable`): instants in ISO 8601, an open one ending now. */
export interface DialableSpanView {
  campaign_id: string;
  agent_id: string;
  from: string;
  to: string;
  open: boolean;
  phones: string[];
}

export const dialableSpanView = (s: DialableSpan, now: number): DialableSpanView => ({
  campaign_id: s.campaign_id,
  agent_id: s.agent_id,
  from: new Date(s.from).toISOString(),
  to: new Date(s.to ?? now).toISOString(),
  open: s.to === null,
  phones: [...s.phones],
});

const RING_SECONDS = [4, 25] as const;
const TALK_SECONDS = [20, 240] as const;

/**
 * The telephone side of the emulator: one pool of lines for the whole account (`concurrency`), shared by single
 * calls and campaigns. Each dialled call rings, is answered or not, talks, and ends, on the simulated clock.
 */
export class Dialer {
  /** Every stretch in which a campaign could dial, in the order they began (DialableSpan). */
  readonly spans: DialableSpan[] = [];
  private readonly openSpans = new Map<string, DialableSpan>();
  /** The numbers each campaign dialled since the last `observe`: they were ready at that instant. */
  private readonly dialledNow = new Map<string, string[]>();
  private readonly busy = new Set<string>();
  /**
   * Each call's place among this account's calls: its outcome is drawn from that, not from its id, so a reset
   * account plays out the same way whatever ids were handed out before it (ids never repeat).
   */
  private readonly ordinals = new Map<string, number>();
  private campaignTurn = 0;
  private pumping = false;
  private pumpAgain = false;

  constructor(
    private readonly account: Account,
    private readonly clock: SimClock,
    private readonly ids: IdMaker,
    private readonly seed: string,
    private readonly baseUrl: () => string,
    private readonly observer: CallObserver,
  ) {}

  linesInUse(): number {
    return this.busy.size;
  }

  /** A single call from the API: it waits in the queue for a free line. */
  enqueue(call: CallRecord): void {
    this.account.dialQueue.push(call.id);
    this.pump();
  }

  /**
   * Fills free lines: queued single calls first, then active campaigns in turn. A dial that ends at once (a dry
   * account) frees its line inside this loop and pumps again: that inner pump only marks more work, so thousands
   * of instant failures run one after another instead of nesting.
   */
  pump(): void {
    if (this.pumping) {
      this.pumpAgain = true;
      return;
    }
    this.pumping = true;
    try {
      do {
        this.pumpAgain = false;
        this.fillLines();
      } while (this.pumpAgain);
    } finally {
      this.pumping = false;
    }
    this.observe();
  }

  /**
   * Opens and closes the dialable stretches (DialableSpan) for what changed: called after every pump and wherever a
   * campaign or agent stops dialling without one (a pause, an agent switched off).
   */
  observe(): void {
    const now = this.clock.now();
    for (const campaign of this.account.campaigns.values()) {
      const dialable =
        campaign.status === 'active' && campaign.ready.length > 0 && !this.agentInactive(campaign.agent_id);
      const dialled = this.dialledNow.get(campaign.id) ?? [];
      let open = this.openSpans.get(campaign.id);
      // Numbers dialled the moment they became ready (a free line took them) were dialable at that instant too: a
      // stretch is opened for them, closed at once if nothing is left ready.
      if (!open && (dialable || dialled.length > 0)) {
        open = {
          campaign_id: campaign.id,
          agent_id: campaign.agent_id,
          from: now,
          to: null,
          phones: new Set(campaign.ready.map((i) => (campaign.contacts[i] as CampaignContact).phone_number)),
        };
        this.spans.push(open);
        this.openSpans.set(campaign.id, open);
      }
      if (open) for (const phone of dialled) open.phones.add(phone);
      if (open && !dialable) this.closeSpan(campaign.id, now);
    }
    this.dialledNow.clear();
    // A deleted campaign dials no more.
    for (const id of this.openSpans.keys()) if (!this.account.campaigns.has(id)) this.closeSpan(id, now);
  }

  private closeSpan(campaignId: string, now: number): void {
    const open = this.openSpans.get(campaignId);
    if (open) open.to = now;
    this.openSpans.delete(campaignId);
  }

  private fillLines(): void {
    while (this.busy.size < this.account.settings.concurrency) {
      const queued = this.nextQueuedCall();
      if (queued) {
        this.dial(queued);
        continue;
      }
      const next = this.nextCampaignContact();
      if (!next) return;
      this.dialContact(next.campaign, next.index);
    }
  }

  /**
   * An inactive agent cannot be used for calls or campaigns (contract, States): its calls and campaigns wait,
   * without losing their place, until it is activated again. A deleted agent is not this rule's business.
   */
  private agentInactive(agentId: string): boolean {
    return this.account.agents.get(agentId)?.is_active === false;
  }

  /** The first queued call whose agent may call; calls no longer queued leave the queue. */
  private nextQueuedCall(): CallRecord | undefined {
    const queue = this.account.dialQueue;
    for (let i = 0; i < queue.length; ) {
      const call = this.account.calls.get(queue[i] as string);
      if (call?.status !== 'queued') queue.splice(i, 1);
      else if (this.agentInactive(call.agent_id)) i++;
      else {
        queue.splice(i, 1);
        return call;
      }
    }
    return undefined;
  }

  private nextCampaignContact(): { campaign: CampaignRecord; index: number } | undefined {
    const active = [...this.account.campaigns.values()].filter(
      (c) => c.status === 'active' && c.ready.length > 0 && !this.agentInactive(c.agent_id),
    );
    if (active.length === 0) return undefined;
    const campaign = active[this.campaignTurn++ % active.length] as CampaignRecord;
    return { campaign, index: campaign.ready.shift() as number };
  }

  private dialContact(campaign: CampaignRecord, index: number): void {
    const contact = campaign.contacts[index] as CampaignContact;
    const agent = this.account.agents.get(campaign.agent_id);
    const now = this.clock.now();
    contact.attempts++;
    contact.status = 'in_progress';
    const dialled = this.dialledNow.get(campaign.id);
    if (dialled) dialled.push(contact.phone_number);
    else this.dialledNow.set(campaign.id, [contact.phone_number]);
    const call: CallRecord = {
      ...this.newCall(campaign.agent_id, contact.phone_number, contact.name, contact.custom_instruction, now),
      campaign_id: campaign.id,
      from_number: agent ? this.fromNumber(agent.phone_number_id) : null,
    };
    contact.call_ids.push(call.id);
    this.account.calls.set(call.id, call);
    if (this.account.settings.credits <= 0) {
      this.finish(call, 'failed', { failure_reason: 'insufficient_credits' });
      return;
    }
    this.dial(call);
  }

  newCall(agentId: string, phone: string, name: string | null, instructions: string | null, now: number): CallRecord {
    const id = this.ids.next('call');
    this.ordinals.set(id, this.ordinals.size + 1);
    return {
      id,
      status: 'queued',
      agent_id: agentId,
      campaign_id: null,
      phone_number: phone,
      from_number: null,
      contact_name: name,
      custom_instructions: instructions,
      created_at: now,
      started_at: null,
      answered_at: null,
      ended_at: null,
      duration: null,
      cost: null,
      transcript: null,
      recording_url: null,
      summary: null,
      failure_reason: null,
      timers: [],
    };
  }

  fromNumber(phoneNumberId: string | null): string | null {
    const numbers = this.account.phoneNumbers;
    return (numbers.find((n) => n.id === phoneNumberId) ?? numbers[0])?.phone_number ?? null;
  }

  private dial(call: CallRecord): void {
    const r = streamFor(this.seed, `call#${this.ordinals.get(call.id) ?? call.id}`);
    this.busy.add(call.id);
    call.status = 'initiated';
    call.started_at = this.clock.now();
    const ring = between(r, RING_SECONDS[0], RING_SECONDS[1]) * 1000;
    const answered = r() < this.account.settings.answerRate;
    call.timers.push(
      this.clock.after(ring, () => {
        if (answered) this.answer(call, r);
        else this.finish(call, 'failed', { failure_reason: r() < 0.7 ? 'no_answer' : 'busy' });
      }),
    );
  }

  private answer(call: CallRecord, r: () => number): void {
    const agent = this.account.agents.get(call.agent_id);
    const now = this.clock.now();
    call.status = 'in_progress';
    call.answered_at = now;
    this.observer.callEvent('call.started', call);
    let seconds = between(r, TALK_SECONDS[0], TALK_SECONDS[1]);
    if (agent?.hard_end_call_minutes) seconds = Math.min(seconds, agent.hard_end_call_minutes * 60);
    const talk = conversation(r, {
      greeting: agent?.greeting_line ?? `Hello, this is ${agent?.name ?? 'your assistant'}.`,
      contactName: call.contact_name,
      answeredAt: now,
      durationSeconds: seconds,
      instructions: call.custom_instructions,
    });
    for (const line of talk.lines) {
      const at = Date.parse(line.timestamp);
      const words = line.text.split(' ');
      const half = words.slice(0, Math.ceil(words.length / 2)).join(' ');
      call.timers.push(
        this.clock.at(at - 1000, () => this.observer.transcriptLine(call, { ...line, text: half }, false)),
      );
      call.timers.push(this.clock.at(at, () => this.observer.transcriptLine(call, line, true)));
    }
    call.timers.push(
      this.clock.after(seconds * 1000, () =>
        this.finish(call, 'completed', { transcript: talk.lines, summary: talk.summary }),
      ),
    );
  }

  /** Ends a call (completed, failed or cancelled), bills it, tells the observers and frees its line. */
  finish(
    call: CallRecord,
    status: 'completed' | 'failed' | 'cancelled',
    extra: Partial<Pick<CallRecord, 'failure_reason' | 'transcript' | 'summary'>> = {},
  ): void {
    if (FINISHED_CALL_STATUSES.includes(call.status)) return;
    const now = this.clock.now();
    for (const t of call.timers) t.cancel();
    call.timers = [];
    const talked = call.answered_at !== null;
    Object.assign(call, extra);
    call.status = status;
    call.ended_at = now;
    call.duration = talked ? Math.round((now - (call.answered_at as number)) / 1000) : 0;
    call.cost = Math.round(((call.duration ?? 0) / 60) * this.account.settings.costPerMinuteInr * 100) / 100;
    this.account.settings.credits = Math.round((this.account.settings.credits - call.cost) * 100) / 100;
    if (status === 'completed') {
      call.recording_url = `${this.baseUrl()}/_emulator/files/recordings/${call.id}.wav`;
      this.observer.callEvent('call.completed', call);
      this.clock.after(5_000, () => this.observer.callEvent('transcript.ready', call));
      this.clock.after(10_000, () => this.observer.callEvent('recording.ready', call));
    } else if (talked || status === 'failed') {
      // A call that ends without completing tells its listeners so none waits for a `call.completed` forever.
      this.observer.callEvent('call.failed', call);
    }
    this.busy.delete(call.id);
    if (call.campaign_id) this.contactFinished(call);
    this.pump();
  }

  private contactFinished(call: CallRecord): void {
    const campaign = this.account.campaigns.get(call.campaign_id as string);
    if (!campaign) return;
    const index = campaign.contacts.findIndex((c) => c.call_ids.at(-1) === call.id);
    const contact = campaign.contacts[index];
    if (!contact) return;
    if (call.status === 'completed') contact.status = 'completed';
    else if (call.status === 'cancelled') contact.status = 'cancelled';
    else if (contact.attempts <= campaign.retries) {
      contact.status = 'pending';
      this.clock.after(this.account.settings.retryDelaySeconds * 1000, () => {
        if (this.account.campaigns.get(campaign.id) !== campaign || contact.status !== 'pending') return;
        campaign.ready.push(index);
        // Ready again within a stretch that is still open: it could be dialled from now on too.
        this.openSpans.get(campaign.id)?.phones.add(contact.phone_number);
        this.pump();
      });
    } else contact.status = 'failed';
    campaign.updated_at = this.clock.now();
    this.completeIfDone(campaign);
  }

  completeIfDone(campaign: CampaignRecord): void {
    if (campaign.status === 'completed' || campaign.status === 'scheduled') return;
    if (campaign.contacts.some((c) => c.status === 'pending' || c.status === 'in_progress')) return;
    campaign.status = 'completed';
    campaign.completed_at = this.clock.now();
    campaign.updated_at = campaign.completed_at;
  }

  /** Starts dialling a campaign (its schedule came, or it had none). */
  activate(campaign: CampaignRecord): void {
    const now = this.clock.now();
    campaign.status = 'active';
    campaign.started_at = now;
    campaign.updated_at = now;
    campaign.startTimer = null;
    this.completeIfDone(campaign);
    this.pump();
  }

  /** Forgets a deleted campaign's calls; calls on the line are hung up first. */
  dropCampaign(campaign: CampaignRecord): void {
    campaign.startTimer?.cancel();
    this.account.campaigns.delete(campaign.id);
    for (const c of campaign.contacts) {
      for (const id of c.call_ids) {
        const call = this.account.calls.get(id);
        if (call) for (const t of call.timers) t.cancel();
        this.busy.delete(id);
        this.account.calls.delete(id);
      }
    }
    this.pump();
  }
}
