import { describe, expect, it } from 'vitest';
import { ForbiddenError, LiveTranscript, RateLimitedError, RequestValidationError } from '#commons/voice-api/index.ts';
import { raw, TEST_KEY, useEmulator } from '../helpers/emulator.ts';

const f = useEmulator();

describe('widget', () => {
  it('has a default config and validates updates', async () => {
    expect(await f.api.widget.getConfig()).toMatchObject({
      allowed_origins: [],
      max_session_minutes: 5,
      max_daily_sessions: 0,
    });
    const put = await f.api.widget.putConfig({
      allowed_origins: ['https://shop.example.com', 'http://localhost:3000'],
      max_session_minutes: 60,
    });
    expect(put).toMatchObject({
      allowed_origins: ['https://shop.example.com', 'http://localhost:3000'],
      max_session_minutes: 60,
      max_daily_sessions: 0,
    });
    expect(await f.api.widget.getConfig()).toEqual(put);
    const bad = await raw(f.emu.url, 'PUT', '/widget/config', {
      body: JSON.stringify({
        allowed_origins: ['https://shop.example.com/path'],
        max_session_minutes: 61,
        max_daily_sessions: -1,
      }),
      headers: { 'Content-Type': 'application/json' },
    });
    expect(bad.status).toBe(422);
    expect((bad.body as { detail: { loc: (string | number)[] }[] }).detail.map((d) => d.loc.join('.'))).toEqual([
      'body.allowed_origins.0',
      'body.max_session_minutes',
      'body.max_daily_sessions',
    ]);
    await expect(f.api.widget.putConfig({ max_session_minutes: 0 })).rejects.toBeInstanceOf(RequestValidationError);
  });

  it('creates sessions only for exact allowed origins; an empty list allows all', async () => {
    const agent = await f.api.agents.create({ name: 'Web agent' });
    const open = await f.api.widget.createSession({ agent_id: agent.id, origin: 'https://anything.example' });
    expect(open).toMatchObject({ expires_in: 300, agent_id: agent.id, max_session_minutes: 5 });
    expect(open.session_token).not.toContain(TEST_KEY);
    await f.api.widget.putConfig({ allowed_origins: ['https://shop.example.com'] });
    expect(
      (await f.api.widget.createSession({ agent_id: agent.id, origin: 'https://shop.example.com' })).session_token,
    ).toBeTruthy();
    for (const origin of ['https://shop.example.com:443', 'http://shop.example.com', 'https://evil.shop.example.com']) {
      await expect(f.api.widget.createSession({ agent_id: agent.id, origin })).rejects.toBeInstanceOf(ForbiddenError);
    }
    await expect(
      f.api.widget.createSession({ agent_id: 'agent_nope', origin: 'https://shop.example.com' }),
    ).rejects.toMatchObject({ status: 404 });
  });

  it('caps sessions over a rolling 24 hours', async () => {
    const agent = await f.api.agents.create({ name: 'Capped' });
    await f.api.widget.putConfig({ max_daily_sessions: 2 });
    const client = f.client({ maxRetries: 0 });
    await client.widget.createSession({ agent_id: agent.id, origin: 'https://a.example' });
    await f.admin.advance(12 * 3600);
    await client.widget.createSession({ agent_id: agent.id, origin: 'https://a.example' });
    await expect(
      client.widget.createSession({ agent_id: agent.id, origin: 'https://a.example' }),
    ).rejects.toBeInstanceOf(RateLimitedError);
    await f.admin.advance(12 * 3600 + 1); // the first session leaves the window
    await expect(
      client.widget.createSession({ agent_id: agent.id, origin: 'https://a.example' }),
    ).resolves.toHaveProperty('session_token');
    await expect(
      client.widget.createSession({ agent_id: agent.id, origin: 'https://a.example' }),
    ).rejects.toMatchObject({ status: 429 });
  });

  it('session tokens are single use and expire after 5 minutes', async () => {
    const agent = await f.api.agents.create({ name: 'Token' });
    const s1 = await f.api.widget.createSession({ agent_id: agent.id, origin: 'https://a.example' });
    const live = await LiveTranscript.connect(f.api.wsUrl, { session_token: s1.session_token });
    live.close();
    await expect(LiveTranscript.connect(f.api.wsUrl, { session_token: s1.session_token })).rejects.toThrow(
      /already used/,
    );
    const s2 = await f.api.widget.createSession({ agent_id: agent.id, origin: 'https://a.example' });
    await f.admin.advance(301);
    await expect(LiveTranscript.connect(f.api.wsUrl, { session_token: s2.session_token })).rejects.toThrow(/expired/);
  });

  it('gives an embed snippet with the widget key, never the developer key; the widget key may authenticate it', async () => {
    const agent = await f.api.agents.create({ name: 'Embedded' });
    const snippet = await f.api.widget.embedSnippet(agent.id);
    expect(snippet.snippet).toContain('<script');
    expect(snippet.snippet).toContain(agent.id);
    expect(snippet.snippet).not.toContain(TEST_KEY);
    const widgetKey = snippet.widget_key as string;
    expect(snippet.snippet).toContain(widgetKey);
    const viaWidgetKey = await f.api.widget.embedSnippet(agent.id, { widgetKey, authWithWidgetKey: true });
    expect(viaWidgetKey.snippet).toBe(snippet.snippet);
    // The widget key opens nothing else.
    expect((await raw(f.emu.url, 'GET', '/agents', { key: widgetKey })).status).toBe(401);
    expect((await raw(f.emu.url, 'GET', '/widget/embed-snippet')).status).toBe(422);
  });
});
