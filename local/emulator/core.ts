import { SimClock } from './clock.ts';
import { type CallObserver, Dialer } from './dialer.ts';
import { LiveChannel } from './live-channel.ts';
import { IdMaker } from './random.ts';
import { type Account, DEFAULT_SETTINGS, type EmulatorSettings } from './state.ts';
import { WebhookSender } from './webhook-sender.ts';

export interface EmulatorOptions {
  apiKey: string;
  /** Simulated seconds per real second; 0 freezes the clock (tests move it through the admin API). */
  speed?: number;
  seed?: string;
  /** Simulated start time (epoch ms); defaults to now. */
  startTime?: number;
  settings?: Partial<EmulatorSettings>;
}

function freshAccount(settings: EmulatorSettings, ids: IdMaker, now: number): Account {
  return {
    settings: { ...settings },
    agents: new Map(),
    calls: new Map(),
    contacts: new Map(),
    campaigns: new Map(),
    knowledge: new Map(),
    phoneNumbers: [
      {
        id: ids.next('pn'),
        phone_number: '+14155550134',
        friendly_name: 'US main line',
        country: 'US',
        created_at: now,
      },
      {
        id: ids.next('pn'),
        phone_number: '+912240001234',
        friendly_name: 'India line',
        country: 'IN',
        created_at: now,
      },
    ],
    widget: {
      allowed_origins: [],
      max_session_minutes: 5,
      max_daily_sessions: 0,
      widget_key: ids.next('wk'),
      updated_at: now,
      sessions: [],
    },
    ttsFiles: new Map(),
    dialQueue: [],
    rateWindow: { start: 0, count: 0 },
  };
}

/** Everything the routes act on: the account, the clock, the dialer and the channels that report calls. */
export class EmulatorCore {
  readonly apiKey: string;
  readonly seed: string;
  readonly clock: SimClock;
  readonly webhooks: WebhookSender;
  readonly live: LiveChannel;
  readonly ids: IdMaker;
  account: Account;
  dialer: Dialer;
  baseUrl = 'http://127.0.0.1';
  private readonly startSettings: EmulatorSettings;

  constructor(options: EmulatorOptions) {
    this.apiKey = options.apiKey;
    this.seed = options.seed ?? 'callsheet';
    this.clock = new SimClock(options.startTime ?? Date.now(), options.speed ?? 1);
    this.startSettings = { ...DEFAULT_SETTINGS, ...options.settings };
    this.webhooks = new WebhookSender(
      () => this.account.settings,
      () => this.baseUrl,
    );
    this.live = new LiveChannel({
      apiKey: this.apiKey,
      consumeWidgetToken: (token) => this.consumeWidgetToken(token),
      findCall: (id) => this.account.calls.get(id),
      now: () => this.clock.iso(),
    });
    this.ids = new IdMaker(this.seed);
    this.account = freshAccount(this.startSettings, this.ids, this.clock.now());
    this.dialer = this.newDialer();
  }

  private newDialer(): Dialer {
    const observer: CallObserver = {
      callEvent: (type, call) => {
        this.webhooks.send(type, call, this.clock.iso());
        if (type === 'call.started') this.live.callStarted(call);
        if (type === 'call.completed') this.live.callCompleted(call);
      },
      transcriptLine: (call, line, isFinal) => this.live.transcript(call, line, isFinal),
    };
    return new Dialer(this.account, this.clock, this.ids, this.seed, () => this.baseUrl, observer);
  }

  /**
   * Back to a new account with the start-up settings; the clock keeps its time but forgets its events. Ids go on
   * from where they were, as a vendor's never repeat: a record kept outside (callsheet's brake register, its parts)
   * must not take the new account's first agent for the old one's.
   */
  reset(): void {
    this.clock.cancelAll();
    this.account = freshAccount(this.startSettings, this.ids, this.clock.now());
    this.dialer = this.newDialer();
    this.webhooks.deliveries.length = 0;
  }

  /**
   * Whether a campaign may be dialling now or before `startsAt` (the start its caller gave it, when it has not started):
   * active (its agent may be off, and switched on at any moment), or scheduled to start earlier than that. The
   * embedded stack skips the sweeps that watch the calls list while this answers no for every watched campaign.
   */
  mayDial(campaignId: string, startsAt: number | null): boolean {
    const c = this.account.campaigns.get(campaignId);
    if (c?.status === 'active') return true;
    return (
      c?.status === 'scheduled' && c.start_date_time !== null && (startsAt === null || c.start_date_time < startsAt)
    );
  }

  consumeWidgetToken(token: string): string | null {
    const session = this.account.widget.sessions.find((s) => s.token === token);
    if (!session) return 'unknown session token';
    if (session.consumed_at !== null) return 'this session token was already used';
    if (this.clock.now() > session.expires_at) return 'this session token has expired';
    session.consumed_at = this.clock.now();
    return null;
  }
}
