import { randomBytes } from 'node:crypto';
import { EXACT_ORIGIN, LIMITS } from '#commons/voice-api/contract.ts';
import type { EmulatorCore } from '../core.ts';
import { Fields } from '../fields.ts';
import { HttpError, notFound, type Router } from '../http-kit.ts';
import { iso } from '../state.ts';
import { widgetConfigView } from '../views.ts';

const DAY_MS = 86_400_000;

/** Widget configuration, sessions and the embed snippet. Sessions are what a browser gets instead of the key. */
export function widgetRoutes(router: Router, core: EmulatorCore): void {
  router.on('GET', '/widget/config', () => ({ status: 200, body: widgetConfigView(core.account.widget) }));

  router.on('PUT', '/widget/config', (ctx) => {
    const f = new Fields(ctx.json(), ['body']);
    f.forbidOthers(['allowed_origins', 'max_session_minutes', 'max_daily_sessions']);
    const origins = f.stringList('allowed_origins');
    origins?.forEach((o, i) => {
      if (!EXACT_ORIGIN.test(o))
        f.fail(['allowed_origins', i], `${JSON.stringify(o)} is not an exact origin (scheme://host[:port])`);
    });
    const minutes = f.integer('max_session_minutes', {
      min: LIMITS.widgetSessionMinutesMin,
      max: LIMITS.widgetSessionMinutesMax,
    });
    const daily = f.integer('max_daily_sessions', { min: 0 });
    f.done();
    const w = core.account.widget;
    if (origins) w.allowed_origins = [...new Set(origins)];
    if (typeof minutes === 'number') w.max_session_minutes = minutes;
    if (typeof daily === 'number') w.max_daily_sessions = daily;
    w.updated_at = core.clock.now();
    return { status: 200, body: widgetConfigView(w) };
  });

  router.on('POST', '/widget/session', (ctx) => {
    const f = new Fields(ctx.json(), ['body']);
    f.forbidOthers(['agent_id', 'origin', 'force_audio']);
    const agentId = f.string('agent_id', { required: true, nonBlank: true });
    const origin = f.string('origin', { required: true, nonBlank: true });
    const forceAudio = f.boolean('force_audio') ?? false;
    f.done();
    const w = core.account.widget;
    if (!core.account.agents.has(agentId as string)) throw notFound('Agent');
    if (w.allowed_origins.length > 0 && !w.allowed_origins.includes(origin as string)) {
      throw new HttpError(403, `origin ${origin} is not in allowed_origins`);
    }
    if (core.account.settings.credits <= 0) throw new HttpError(402, 'insufficient credits for a widget session');
    const now = core.clock.now();
    const today = w.sessions.filter((s) => s.created_at > now - DAY_MS);
    if (w.max_daily_sessions > 0 && today.length >= w.max_daily_sessions) {
      const oldest = Math.min(...today.map((s) => s.created_at));
      const retryAfter = Math.max(1, Math.ceil((oldest + DAY_MS - now) / 1000));
      throw new HttpError(429, 'daily widget session limit reached', { 'Retry-After': String(retryAfter) });
    }
    w.sessions = today; // sessions older than the rolling day no longer count
    const session = {
      token: `wst_${randomBytes(24).toString('base64url')}`,
      agent_id: agentId as string,
      origin: origin as string,
      created_at: now,
      expires_at: now + LIMITS.widgetTokenSeconds * 1000,
      consumed_at: null,
    };
    w.sessions.push(session);
    return {
      status: 201,
      body: {
        session_token: session.token,
        expires_at: iso(session.expires_at),
        expires_in: LIMITS.widgetTokenSeconds,
        agent_id: session.agent_id,
        max_session_minutes: w.max_session_minutes,
        force_audio: forceAudio,
      },
    };
  });

  router.on('GET', '/widget/embed-snippet', (ctx) => {
    const q = new Fields(Object.fromEntries(ctx.url.searchParams), ['query']);
    const agentId = q.string('agent_id', { required: true, nonBlank: true });
    const widgetKey = q.string('widget_key');
    q.done();
    if (!core.account.agents.has(agentId as string)) throw notFound('Agent');
    const key = core.account.widget.widget_key;
    if (widgetKey && widgetKey !== key) throw new HttpError(404, 'widget key not found');
    const attr = (s: string): string => s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
    const snippet = [
      `<script src="${attr(core.baseUrl)}/widget/v1/embed.js" async></script>`,
      `<voice-agent-widget agent-id="${attr(agentId as string)}" widget-key="${attr(key)}"></voice-agent-widget>`,
    ].join('\n');
    return { status: 200, body: { agent_id: agentId, widget_key: key, snippet } };
  });
}
