import {
  CALL_STATUSES,
  CANCELLABLE_CALL_STATUSES,
  E164,
  LIMITS,
} from '../../../functions/commons/voice-api/contract.ts';
import type { EmulatorCore } from '../core.ts';
import { Fields } from '../fields.ts';
import { conflict, HttpError, notFound, type Router } from '../http-kit.ts';
import { iso } from '../state.ts';
import { callDetailView, callView } from '../views.ts';
import { usableAgent } from './agents.ts';

const CALL_FIELDS = ['agent_id', 'phone_number', 'contact_name', 'custom_instructions'] as const;

function requireCredits(core: EmulatorCore): void {
  if (core.account.settings.credits <= 0)
    throw new HttpError(402, 'insufficient credits: top up the account to place calls');
}

export function callRoutes(router: Router, core: EmulatorCore): void {
  router.on('POST', '/calls', (ctx) => {
    const f = new Fields(ctx.json(), ['body']);
    f.forbidOthers(CALL_FIELDS);
    const agentId = f.string('agent_id', { required: true, nonBlank: true });
    const phone = f.string('phone_number', { required: true });
    if (phone && !E164.test(phone)) f.fail('phone_number', 'phone number must be E.164, e.g. +14155552671');
    const name = f.string('contact_name', { nullable: true, max: 200 });
    const instructions = f.string('custom_instructions', { nullable: true, max: 5000 });
    f.done();
    const agent = usableAgent(core, agentId as string);
    requireCredits(core);
    const call = core.dialer.newCall(agent.id, phone as string, name ?? null, instructions ?? null, core.clock.now());
    call.from_number = core.dialer.fromNumber(agent.phone_number_id);
    core.account.calls.set(call.id, call);
    const body = callView(call); // answered before the dialer moves it on
    core.dialer.enqueue(call);
    return { status: 201, body };
  });

  router.on('POST', '/calls/bulk-initiate', (ctx) => {
    const f = new Fields(ctx.json(), ['body']);
    f.forbidOthers(['agent_id', 'calls']);
    const agentId = f.string('agent_id', { required: true, nonBlank: true });
    const calls = f.raw('calls');
    if (calls === undefined) f.fail('calls', 'field required', 'missing');
    else if (!Array.isArray(calls)) f.fail('calls', 'input should be a valid list', 'list_type');
    else if (calls.length === 0) f.fail('calls', 'at least one call is required', 'too_short');
    else if (calls.length > LIMITS.bulkCalls)
      f.fail('calls', `at most ${LIMITS.bulkCalls} calls per request`, 'too_long');
    f.done();
    const agent = usableAgent(core, agentId as string);
    requireCredits(core);
    const results = (calls as unknown[]).map((entry, index) => {
      const e = new Fields(entry, ['body', 'calls', index]);
      e.forbidOthers(['phone_number', 'contact_name', 'custom_instructions']);
      const phone = e.string('phone_number', { required: true });
      if (phone && !E164.test(phone)) e.fail('phone_number', 'phone number must be E.164, e.g. +14155552671');
      const name = e.string('contact_name', { nullable: true, max: 200 });
      const instructions = e.string('custom_instructions', { nullable: true, max: 5000 });
      const phoneNumber =
        typeof (entry as { phone_number?: unknown })?.phone_number === 'string'
          ? (entry as { phone_number: string }).phone_number
          : '';
      if (e.items.length > 0) {
        return {
          index,
          phone_number: phoneNumber,
          success: false,
          error: e.items.map((i) => `${i.loc.at(-1)}: ${i.msg}`).join('; '),
        };
      }
      const call = core.dialer.newCall(agent.id, phone as string, name ?? null, instructions ?? null, core.clock.now());
      call.from_number = core.dialer.fromNumber(agent.phone_number_id);
      core.account.calls.set(call.id, call);
      return { index, phone_number: phoneNumber, success: true, call_id: call.id, status: call.status };
    });
    for (const r of results) if (r.call_id) core.dialer.enqueue(core.account.calls.get(r.call_id)!);
    const succeeded = results.filter((r) => r.success).length;
    return { status: 201, body: { total: results.length, succeeded, failed: results.length - succeeded, results } };
  });

  router.on('GET', '/calls', (ctx) => {
    const q = new Fields(Object.fromEntries(ctx.url.searchParams), ['query']);
    const page = q.integer('page', { min: 1 }) ?? 1;
    const limit = q.integer('limit', { min: 1, max: LIMITS.callListLimitMax }) ?? LIMITS.callListLimitDefault;
    const status = q.string('status_filter');
    if (status && !(CALL_STATUSES as readonly string[]).includes(status)) {
      q.fail('status_filter', `must be one of ${CALL_STATUSES.join(', ')}`);
    }
    const from = q.dateTime('start_date');
    const to = q.dateTime('end_date');
    q.done();
    const all = [...core.account.calls.values()]
      .filter(
        (c) =>
          (!status || c.status === status) &&
          (from === undefined || c.created_at >= from) &&
          (to === undefined || c.created_at <= to),
      )
      .sort((a, b) => b.created_at - a.created_at || (a.id < b.id ? 1 : -1));
    return {
      status: 200,
      body: {
        calls: all.slice((page - 1) * limit, page * limit).map(callView),
        page,
        limit,
        total: all.length,
        total_pages: Math.ceil(all.length / limit),
      },
    };
  });

  router.on('GET', '/calls/stats', (ctx) => {
    const q = new Fields(Object.fromEntries(ctx.url.searchParams), ['query']);
    const from = q.dateTime('start_date');
    const to = q.dateTime('end_date');
    q.done();
    const calls = [...core.account.calls.values()].filter(
      (c) => (from === undefined || c.created_at >= from) && (to === undefined || c.created_at <= to),
    );
    const completed = calls.filter((c) => c.status === 'completed');
    const failed = calls.filter((c) => c.status === 'failed').length;
    const cancelled = calls.filter((c) => c.status === 'cancelled').length;
    const finished = completed.length + failed + cancelled;
    const round = (n: number, d: number): number => Math.round(n * 10 ** d) / 10 ** d;
    return {
      status: 200,
      body: {
        total_calls: calls.length,
        completed_calls: completed.length,
        failed_calls: failed,
        cancelled_calls: cancelled,
        success_rate: finished === 0 ? 0 : round(completed.length / finished, 4),
        average_duration:
          completed.length === 0
            ? 0
            : round(completed.reduce((s, c) => s + (c.duration ?? 0), 0) / completed.length, 2),
        total_cost: round(
          calls.reduce((s, c) => s + (c.cost ?? 0), 0),
          2,
        ),
        start_date: from === undefined ? null : iso(from),
        end_date: to === undefined ? null : iso(to),
      },
    };
  });

  router.on('GET', '/calls/:callId', (ctx) => {
    const call = core.account.calls.get(ctx.params.callId as string);
    if (!call) throw notFound('Call');
    return { status: 200, body: callDetailView(call) };
  });

  router.on('POST', '/calls/:callId/cancel', (ctx) => {
    const call = core.account.calls.get(ctx.params.callId as string);
    if (!call) throw notFound('Call');
    if (!CANCELLABLE_CALL_STATUSES.includes(call.status)) {
      throw conflict(`call ${call.id} is ${call.status}; only queued or in_progress calls can be cancelled`);
    }
    core.dialer.finish(call, 'cancelled');
    return { status: 200, body: { id: call.id, status: call.status, cancelled_at: iso(call.ended_at) } };
  });
}
