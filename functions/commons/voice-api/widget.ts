import { EXACT_ORIGIN, LIMITS } from './contract.ts';
import type { Transport } from './http.ts';
import { RequestChecks } from './request-checks.ts';
import type { EmbedSnippet, WidgetConfig, WidgetConfigInput, WidgetSession, WidgetSessionInput } from './types.ts';

export class WidgetApi {
  constructor(private readonly http: Transport) {}

  async getConfig(): Promise<WidgetConfig> {
    return this.http.data<WidgetConfig>({ method: 'GET', path: '/widget/config', repeatability: 'repeatable' });
  }

  async putConfig(config: WidgetConfigInput): Promise<WidgetConfig> {
    const checks = new RequestChecks();
    (config.allowed_origins ?? []).forEach((o, i) => {
      checks.check(
        EXACT_ORIGIN.test(o),
        ['body', 'allowed_origins', i],
        `${JSON.stringify(o)} is not an exact origin (scheme://host[:port])`,
      );
    });
    if (config.max_session_minutes !== undefined) {
      const m = config.max_session_minutes;
      checks.check(
        Number.isInteger(m) && m >= LIMITS.widgetSessionMinutesMin && m <= LIMITS.widgetSessionMinutesMax,
        ['body', 'max_session_minutes'],
        'max_session_minutes must be a whole number from 1 to 60',
      );
    }
    if (config.max_daily_sessions !== undefined) {
      checks.check(
        Number.isInteger(config.max_daily_sessions) && config.max_daily_sessions >= 0,
        ['body', 'max_daily_sessions'],
        'max_daily_sessions must be a whole number ≥ 0 (0 = unlimited)',
      );
    }
    checks.done();
    return this.http.data<WidgetConfig>({
      method: 'PUT',
      path: '/widget/config',
      json: config,
      repeatability: 'repeatable',
    });
  }

  /**
   * Server side only: creates a short-lived, single-use session for a page. Hand the page the token, never the
   * API key.
   */
  async createSession(input: WidgetSessionInput): Promise<WidgetSession> {
    return this.http.data<WidgetSession>({
      method: 'POST',
      path: '/widget/session',
      json: input,
      repeatability: 'once',
    });
  }

  /** `widgetKey` may also authenticate this one endpoint in place of the developer key. */
  async embedSnippet(
    agentId: string,
    options: { widgetKey?: string; authWithWidgetKey?: boolean } = {},
  ): Promise<EmbedSnippet> {
    return this.http.data<EmbedSnippet>({
      method: 'GET',
      path: '/widget/embed-snippet',
      query: { agent_id: agentId, widget_key: options.widgetKey },
      repeatability: 'repeatable',
      ...(options.authWithWidgetKey && options.widgetKey ? { apiKey: options.widgetKey } : {}),
    });
  }
}
