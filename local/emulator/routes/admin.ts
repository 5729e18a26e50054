import type { EmulatorCore } from '../core.ts';
import { dialableSpanView } from '../dialer.ts';
import { describeFaultProblems, type FaultSpec, parseFaultPlan } from '../fault-plan.ts';
import { Fields } from '../fields.ts';
import { HttpError, notFound, type Reply, type RequestContext, type Router } from '../http-kit.ts';
import { SETTING_KEYS } from '../state.ts';
import { armedFaultView, type Traffic } from '../traffic.ts';
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

  const faultsView = () => traffic.faults(core.clock.now()).map(armedFaultView);

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
        faults: faultsView(),
      },
    };
  });

  // When each campaign could dial (the dialer's DialableSpan): what an auditor checks beside the calls.
  router.on('GET', '/_emulator/dialable', () => ({
    status: 200,
    body: {
      spans: core.dialer.spans.map((s) => dialableSpanView(s, core.clock.now())),
    },
  }));

  router.on('GET', '/_emulator/contacts/:phone', (ctx) => {
    const contact = core.account.contacts.get(ctx.params.phone as string);
    if (!contact) throw notFound('Contact');
    return { status: 200, body: contactView(contact) };
  });

  router.on('GET', '/_emulator/requests', (ctx) => {
    const since = Number(ctx.url.searchParams.get('since') ?? 0);
    return { status: 200, body: traffic.requests.filter((r) => r.seq > since) };
  });

  /** Checks a plan (a fault, an array of faults, or `{description, faults}`); 400 names every bad entry. */
  const readPlan = (ctx: RequestContext): FaultSpec[] | Reply => {
    const plan = parseFaultPlan(ctx.json());
    if (plan.ok) return plan.faults;
    return {
      status: 400,
      body: {
        detail: `the fault plan has ${plan.problems.length} problem(s):\n${describeFaultProblems(plan.problems)}`,
        problems: plan.problems,
      },
    };
  };

  router.on('GET', '/_emulator/faults', () => ({ status: 200, body: { faults: faultsView() } }));

  router.on('POST', '/_emulator/faults', (ctx) => {
    const specs = readPlan(ctx);
    if (!Array.isArray(specs)) return specs;
    const armed = traffic.arm(specs, core.clock.now()).map(armedFaultView);
    return { status: 200, body: { armed, faults: faultsView() } };
  });

  router.on('PUT', '/_emulator/fault-plan', (ctx) => {
    const specs = readPlan(ctx);
    if (!Array.isArray(specs)) return specs;
    traffic.replace(specs, core.clock.now());
    return { status: 200, body: { faults: faultsView() } };
  });

  router.on('DELETE', '/_emulator/faults', () => {
    traffic.disarm();
    return { status: 200, body: { faults: [] } };
  });

  router.on('GET', '/_emulator/clock', () => ({
    status: 200,
    body: { now: core.clock.iso(), speed: core.clock.speed, pending_events: core.clock.pendingEvents() },
  }));

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
    // null: ten times the minute limit, as the first plan tier.
    const perHour = f.raw('rateLimitPerHour');
    if (perHour === null) s.rateLimitPerHour = null;
    else if (perHour !== undefined) {
      if (typeof perHour !== 'number' || !Number.isInteger(perHour) || perHour < 0)
        f.fail('rateLimitPerHour', 'must be a whole number from 0 up, or null for ten times the minute limit');
      else s.rateLimitPerHour = perHour;
    }
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
