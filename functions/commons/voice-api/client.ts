import { AgentsApi } from './agents.ts';
import { CallsApi } from './calls.ts';
import { CampaignsApi } from './campaigns.ts';
import { ContactsApi } from './contacts.ts';
import { Transport, type VoiceApiOptions } from './http.ts';
import { KnowledgeApi } from './knowledge.ts';
import { type LiveAuth, LiveTranscript, wsUrlFor } from './live.ts';
import { PhoneNumbersApi } from './phone-numbers.ts';
import { TtsApi } from './tts.ts';
import { WidgetApi } from './widget.ts';

/**
 * Typed client for the whole Voice Agent Developer API (docs/api-contract.md). A deployed function builds only the
 * parts it uses on one `Transport` instead, so its bundle carries no code for the rest.
 */
export class VoiceApiClient {
  readonly agents: AgentsApi;
  readonly calls: CallsApi;
  readonly contacts: ContactsApi;
  readonly campaigns: CampaignsApi;
  readonly knowledge: KnowledgeApi;
  readonly phoneNumbers: PhoneNumbersApi;
  readonly tts: TtsApi;
  readonly widget: WidgetApi;
  /** Root of the live channel, `{ws_url}/v1/ws`. */
  readonly wsUrl: string;
  private readonly http: Transport;
  private readonly apiKey: string;

  constructor(options: VoiceApiOptions & { wsUrl?: string }) {
    this.http = new Transport(options);
    this.apiKey = options.apiKey;
    this.wsUrl = options.wsUrl ?? wsUrlFor(this.http.baseUrl);
    this.agents = new AgentsApi(this.http);
    this.calls = new CallsApi(this.http);
    this.contacts = new ContactsApi(this.http);
    this.campaigns = new CampaignsApi(this.http);
    this.knowledge = new KnowledgeApi(this.http);
    this.phoneNumbers = new PhoneNumbersApi(this.http);
    this.tts = new TtsApi(this.http);
    this.widget = new WidgetApi(this.http);
  }

  /** Opens the live-transcript channel, authenticated with the API key unless a widget token is given. */
  live(auth: LiveAuth = { api_key: this.apiKey }): Promise<LiveTranscript> {
    return LiveTranscript.connect(this.wsUrl, auth);
  }
}
