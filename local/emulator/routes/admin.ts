import type { EmulatorCore } from '../core.ts';
import { Fields } from '../fields.ts';
import { HttpError, notFound, type Router } from '../http-kit.ts';
import { SETTING_KEYS } from '../state.ts';
import type { Traffic } from '../traffic.ts';
import {
  agentView,
  callView,
  campaignStatsView,
  campaignView,
  contactView,
  knowledgeView,
  widgetConfigView,
} from '../views.ts';
import { wav } from '../wav.ts';

/** `/_emulator/…`: outside the contract, no key. Lets tests and tools see and steer the simulated account. */
export function adminRoutes(router: Router, core: EmulatorCore, traffic: Traffic): void {
  const settingsView = () => {
    const { webhookSecret, ...rest } = core.account.settings;
    return { ...rest, webhookSecretSet: webhookSecret !== null && webhookSecret !== '' };
  };

  router.on('GET', '/_emulator/state', () => {
    const a = core.account;
    return {
      status: 200,
      body: {
        now: core.clock.iso(),
        speed: core.clock.speed,
        seed: core.seed,
        settings: settingsView(),
        credits: a.settings.credits,
        lines_in_use: core.dialer.linesInUse(),
        queued_calls: a.dialQueue.length,
        agents: [...a.agents.values()].map(agentView),
        calls: [...a.calls.values()].map(callView),
        campaigns: [...a.campaigns.values()].map((c) => ({
          ...campaignView(c),
          stats: campaignStatsView(c),
          contacts: c.contacts.map(({ row, phone_number, name, status, attempts, call_ids }) => ({
            row,
            phone_number,
            name,
            status,
            attempts,
            call_ids,
          })),
        })),
        contacts: [...a.contacts.values()].map(contactView),
        knowledge: [...a.knowledge.values()].map(knowledgeView),
        phone_numbers: a.phoneNumbers,
        widget: { ...widgetConfigView(a.widget), sessions: a.widget.sessions.length },
        webhook_deliveries: core.webhooks.deliveries,
        faults: traffic.faults,
      },
    };
  });

  router.on('GET', '/_emulator/contacts/:phone', (ctx) => {
    const contact = core.account.contacts.get(ctx.params.phone as string);
    if (!contact) throw notFound('Contact');
    return { status: 200, body: contactView(contact) };
  });

  router.on('GET', '/_emulator/requests', (ctx) => {
    const since = Number(ctx.url.searchParams.get('since') ?? 0);
    return { status: 200, body: traffic.requests.filter((r) => r.seq > since) };
  });

  router.on('POST', '/_emulator/faults', (ctx) => {
    const f = new Fields(ctx.json(), ['body']);
    f.forbidOthers(['path', 'status', 'count', 'delayMs', 'method']);
    const path = f.string('path', { required: true, nonBlank: true });
    const status = f.integer('status', { min: 100, max: 599, nullable: true });
    const count = f.integer('count', { min: 1 }) ?? 1;
    const delayMs = f.integer('delayMs', { min: 0, max: 600_000 }) ?? 0;
    const method = f.string('method', { nullable: true });
    if ((status === undefined || status === null) && delayMs === 0)
      f.fail('status', 'give a status, a delayMs, or both');
    f.done();
    const fault = {
      path: path as string,
      status: status ?? null,
      count,
      delayMs,
      method: method ? method.toUpperCase() : null,
    };
    traffic.faults.push(fault);
    return { status: 200, body: { fault, faults: traffic.faults } };
  });

  router.on('DELETE', '/_emulator/faults', () => {
    traffic.faults = [];
    return { status: 200, body: { faults: [] } };
  });

  router.on('POST', '/_emulator/clock', (ctx) => {
    const f = new Fields(ctx.json(), ['body']);
    f.forbidOthers(['advanceSeconds', 'now', 'speed']);
    const advance = f.raw('advanceSeconds');
    const to = f.dateTime('now');
    const speed = f.raw('speed');
    if (advance !== undefined && (typeof advance !== 'number' || !Number.isFinite(advance) || advance < 0)) {
      f.fail('advanceSeconds', 'must be a number of seconds ≥ 0');
    }
    if (speed !== undefined && (typeof speed !== 'number' || speed < 0)) f.fail('speed', 'must be a number ≥ 0');
    if (advance === undefined && to === undefined && speed === undefined)
      f.fail('advanceSeconds', 'give advanceSeconds, now or speed');
    f.done();
    if (to !== undefined && to < core.clock.now()) throw new HttpError(409, 'the clock cannot go backwards');
    if (typeof speed === 'number') core.clock.setSpeed(speed);
    if (to !== undefined) core.clock.set(to);
    if (typeof advance === 'number') core.clock.advance(advance * 1000);
    return {
      status: 200,
      body: { now: core.clock.iso(), speed: core.clock.speed, pending_events: core.clock.pendingEvents() },
    };
  });

  router.on('POST', '/_emulator/config', (ctx) => {
    const f = new Fields(ctx.json(), ['body']);
    f.forbidOthers(SETTING_KEYS);
    const s = core.account.settings;
    const num = (
      k:
        | 'rateLimitPerMinute'
        | 'credits'
        | 'concurrency'
        | 'answerRate'
        | 'costPerMinuteInr'
        | 'ttsCostPerSecondInr'
        | 'retryDelaySeconds',
      min: number,
      max = Number.POSITIVE_INFINITY,
    ) => {
      const v = f.raw(k);
      if (v === undefined) return;
      if (typeof v !== 'number' || !Number.isFinite(v) || v < min || v > max)
        f.fail(k, `must be a number from ${min}${max === Number.POSITIVE_INFINITY ? ' up' : ` to ${max}`}`);
      else s[k] = v;
    };
    num('rateLimitPerMinute', 0);
    num('credits', -1e12);
    num('concurrency', 1, 10_000);
    num('answerRate', 0, 1);
    num('costPerMinuteInr', 0);
    num('ttsCostPerSecondInr', 0);
    num('retryDelaySeconds', 0);
    for (const k of ['webhookUrl', 'webhookSecret'] as const) {
      const v = f.string(k, { nullable: true });
      if (v !== undefined) s[k] = v === '' ? null : v;
    }
    if (s.webhookUrl && !/^https?:\/\//.test(s.webhookUrl)) f.fail('webhookUrl', 'must be an http(s) URL');
    f.done();
    core.dialer.pump(); // more lines or credits may let waiting calls go
    return { status: 200, body: settingsView() };
  });

  router.on('POST', '/_emulator/reset', () => {
    core.reset();
    traffic.clear();
    return { status: 200, body: { reset: true, now: core.clock.iso() } };
  });

  router.on('GET', '/_emulator/files/tts/:file', (ctx) => {
    const file = core.account.ttsFiles.get((ctx.params.file as string).replace(/\.wav$/, ''));
    if (!file) throw notFound('Audio file');
    return { status: 200, bytes: file.audio, headers: { 'Content-Type': 'audio/wav' } };
  });

  router.on('GET', '/_emulator/files/recordings/:file', (ctx) => {
    const call = core.account.calls.get((ctx.params.file as string).replace(/\.wav$/, ''));
    if (call?.status !== 'completed') throw notFound('Recording');
    return { status: 200, bytes: wav(Math.min(call.duration ?? 1, 30), 180), headers: { 'Content-Type': 'audio/wav' } };
  });

  router.on('GET', '/_emulator/files/transcripts/:file', (ctx) => {
    const call = core.account.calls.get((ctx.params.file as string).replace(/\.json$/, ''));
    if (!call?.transcript) throw notFound('Transcript');
    return { status: 200, body: { call_id: call.id, transcript: call.transcript, summary: call.summary } };
  });
}
