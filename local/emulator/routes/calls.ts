import { CALL_STATUSES, CANCELLABLE_CALL_STATUSES, E164, LIMITS } from '#commons/voice-api/contract.ts';
import { batchAnswer, type EntryResult, entryPhone } from '../batch.ts';
import type { EmulatorCore } from '../core.ts';
import { Fields } from '../fields.ts';
import { conflict, HttpError, notFound, type Router } from '../http-kit.ts';
import { type AgentRecord, type CallRecord, iso } from '../state.ts';
import { callDetailView, callView } from '../views.ts';
import { usableAgent } from './agents.ts';

interface CallInput {
  phone: string;
  name: string | null;
  instructions: string | null;
}

/** One call's fields, alone (`POST /calls`, with its agent_id) or as an entry of a bulk request. */
function readCall(f: Fields, withAgent: boolean): CallInput | undefined {
  f.forbidOthers(
    withAgent
      ? ['agent_id', 'phone_number', 'contact_name', 'custom_instructions']
      : ['phone_number', 'contact_name', 'custom_instructions'],
  );
  const phone = f.string('phone_number', { required: true });
  if (phone && !E164.test(phone)) f.fail('phone_number', 'phone number must be E.164, e.g. +14155552671');
  const name = f.string('contact_name', { nullable: true, max: 200 });
  const instructions = f.string('custom_instructions', { nullable: true, max: 5000 });
  if (f.items.length > 0) return undefined;
  return { phone: phone as string, name: name ?? null, instructions: instructions ?? null };
}

function requireCredits(core: EmulatorCore): void {
  if (core.account.settings.credits <= 0)
    throw new HttpError(402, 'insufficient credits: top up the account to place calls');
}

export function callRoutes(router: Router, core: EmulatorCore): void {
  const newCall = (agent: AgentRecord, input: CallInput): CallRecord => {
    const call = core.dialer.newCall(agent.id, input.phone, input.name, input.instructions, core.clock.now());
    call.from_number = core.dialer.fromNumber(agent.phone_number_id);
    core.account.calls.set(call.id, call);
    return call;
  };

  router.on('POST', '/calls', (ctx) => {
    const f = new Fields(ctx.json(), ['body']);
    const agentId = f.string('agent_id', { required: true, nonBlank: true });
    const input = readCall(f, true);
    f.done();
    const agent = usableAgent(core, agentId as string);
    requireCredits(core);
    const call = newCall(agent, input as CallInput);
    const body = callView(call); // answered as queued, before the dialer moves it on
    core.dialer.enqueue(call);
    return { status: 201, body };
  });

  router.on('POST', '/calls/bulk-initiate', (ctx) => {
    const f = new Fields(ctx.json(), ['body']);
    f.forbidOthers(['agent_id', 'calls']);
    const agentId = f.string('agent_id', { required: true, nonBlank: true });
    const entries = f.batch('calls', LIMITS.bulkCalls);
    f.done();
    const agent = usableAgent(core, agentId as string);
    requireCredits(core);
    const placed: CallRecord[] = [];
    const results = entries.map((entry, index): EntryResult => {
      const e = new Fields(entry, ['body', 'calls', index]);
      const input = readCall(e, false);
      if (!input) return { index, phone_number: entryPhone(entry), success: false, error: e.summary() };
      const call = newCall(agent, input);
      placed.push(call);
      return { index, phone_number: input.phone, success: true, call_id: call.id, status: call.status };
    });
    for (const call of placed) core.dialer.enqueue(call);
    return { status: 201, body: batchAnswer(results) };
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
