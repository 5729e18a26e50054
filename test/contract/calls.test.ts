import { describe, expect, it } from 'vitest';
import {
  type Call,
  ConflictError,
  InsufficientCreditsError,
  NotFoundError,
  RequestValidationError,
} from '#commons/voice-api/index.ts';
import { advanceUntil, raw, useEmulator } from '../helpers/emulator.ts';
import { phones } from '../helpers/sheets.ts';

const f = useEmulator();

const finished = (c: Call) => ['completed', 'failed', 'cancelled'].includes(c.status);

describe('calls', () => {
  it('runs a call through queued → initiated → in_progress → completed, with full data only when finished', async () => {
    await f.admin.configure({ answerRate: 1 });
    const agent = await f.api.agents.create({ name: 'Caller', greeting_line: 'Good morning.' });
    const call = await f.api.calls.start({ agent_id: agent.id, phone_number: '+14155552671', contact_name: 'Ann' });
    expect(call).toMatchObject({ status: 'queued', phone_number: '+14155552671', from_number: '+14155550134' });

    const seen = new Set<string>();
    await advanceUntil(f.admin, async () => {
      const now = await f.api.calls.get(call.id);
      seen.add(now.status);
      if (!finished(now)) expect(Object.keys(now).sort()).toEqual(['id', 'status']);
      return finished(now);
    });
    const done = await f.api.calls.get(call.id);
    expect(done.status).toBe('completed');
    expect(seen.has('in_progress')).toBe(true);
    expect(done.duration).toBeGreaterThanOrEqual(20);
    // Billed per second at 4.5 INR a minute, to the paisa.
    expect(done.cost).toBe(Math.round(((done.duration ?? 0) / 60) * 4.5 * 100) / 100);
    expect(done.transcript?.[0]).toMatchObject({ speaker: 'agent', text: expect.stringContaining('Good morning.') });
    expect(done.recording_url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\//);
    const recording = await fetch(done.recording_url as string);
    expect(
      Buffer.from(await recording.arrayBuffer())
        .subarray(0, 4)
        .toString(),
    ).toBe('RIFF');
    const state = await f.admin.state<{ credits: number }>();
    expect(state.credits).toBeCloseTo(10_000 - (done.cost ?? 0), 2);
  });

  it("ends calls at the agent's hard_end_call_minutes", async () => {
    await f.admin.configure({ answerRate: 1 });
    const agent = await f.api.agents.create({ name: 'Brief', hard_end_call_minutes: 1 });
    const ids = [];
    for (const p of phones(8)) ids.push((await f.api.calls.start({ agent_id: agent.id, phone_number: p })).id);
    await f.admin.advance(3600);
    const durations = await Promise.all(ids.map(async (id) => (await f.api.calls.get(id)).duration ?? 0));
    expect(Math.max(...durations)).toBe(60); // talk times are drawn from 20–240 s, so some hit the cap
  });

  it('fails unanswered calls with a reason and counts them in stats', async () => {
    await f.admin.configure({ answerRate: 0 });
    const agent = await f.api.agents.create({ name: 'Nobody home' });
    const call = await f.api.calls.start({ agent_id: agent.id, phone_number: '+14155552671' });
    await advanceUntil(f.admin, async () => finished(await f.api.calls.get(call.id)));
    const done = await f.api.calls.get(call.id);
    expect(done).toMatchObject({ status: 'failed', duration: 0, cost: 0 });
    expect(['no_answer', 'busy']).toContain(done.failure_reason);
    expect(await f.api.calls.stats()).toMatchObject({
      total_calls: 1,
      completed_calls: 0,
      failed_calls: 1,
      success_rate: 0,
    });
  });

  it('bulk-initiates up to 100 calls; a bad entry fails alone', async () => {
    const agent = await f.api.agents.create({ name: 'Bulk' });
    const res = await f.api.calls.bulkInitiate(agent.id, [
      { phone_number: '+14155550001', contact_name: 'A' },
      { phone_number: '+14155550002', custom_instructions: 'Ask about renewals.' },
    ]);
    expect(res).toMatchObject({ total: 2, succeeded: 2, failed: 0 });
    // The client refuses a malformed batch; the service rejects bad entries one by one.
    const rawRes = await raw(f.emu.url, 'POST', '/calls/bulk-initiate', {
      body: JSON.stringify({
        agent_id: agent.id,
        calls: [{ phone_number: '+14155550003' }, { phone_number: '555-1234' }],
      }),
      headers: { 'Content-Type': 'application/json' },
    });
    expect(rawRes.status).toBe(201);
    expect(rawRes.body).toMatchObject({
      total: 2,
      succeeded: 1,
      failed: 1,
      results: [
        { index: 0, success: true, call_id: expect.any(String) },
        { index: 1, success: false, error: expect.stringContaining('E.164') },
      ],
    });
    const tooMany = await raw(f.emu.url, 'POST', '/calls/bulk-initiate', {
      body: JSON.stringify({ agent_id: agent.id, calls: phones(101).map((p) => ({ phone_number: p })) }),
      headers: { 'Content-Type': 'application/json' },
    });
    expect(tooMany.status).toBe(422);
    await expect(
      f.api.calls.bulkInitiate(
        agent.id,
        phones(101).map((p) => ({ phone_number: p })),
      ),
    ).rejects.toBeInstanceOf(RequestValidationError);
  });

  it('lists newest first with page, limit, status_filter and a date range', async () => {
    const agent = await f.api.agents.create({ name: 'Lister' });
    const ids: string[] = [];
    for (const p of phones(5)) {
      ids.push((await f.api.calls.start({ agent_id: agent.id, phone_number: p })).id);
      await f.admin.advance(1);
    }
    const page1 = await f.api.calls.list({ page: 1, limit: 2 });
    expect(page1).toMatchObject({ page: 1, limit: 2, total: 5, total_pages: 3 });
    expect(page1.calls.map((c) => c.id)).toEqual([ids[4], ids[3]]);
    const page3 = await f.api.calls.list({ page: 3, limit: 2 });
    expect(page3.calls.map((c) => c.id)).toEqual([ids[0]]);
    const all = [];
    for await (const c of f.api.calls.listAll({ limit: 2 })) all.push(c.id);
    expect(all).toEqual([...ids].reverse());

    const middle = await f.api.calls.list({
      start_date: page3.calls[0]?.created_at,
      end_date: page1.calls[1]?.created_at,
    });
    expect(middle.total).toBe(4);
    await f.admin.advance(3600);
    const completed = await f.api.calls.list({ status_filter: 'completed', limit: 100 });
    expect(completed.calls.every((c) => c.status === 'completed')).toBe(true);
    const failed = await f.api.calls.list({ status_filter: 'failed', limit: 100 });
    expect(completed.total + failed.total).toBe(5);
    expect(await f.api.calls.list()).toMatchObject({ page: 1, limit: 20 });
    const badQuery = await raw(f.emu.url, 'GET', '/calls?limit=0&status_filter=ringing&start_date=yesterday');
    expect(badQuery.status).toBe(422);
    expect((badQuery.body as { detail: { loc: string[] }[] }).detail.map((d) => d.loc.join('.'))).toEqual([
      'query.limit',
      'query.status_filter',
      'query.start_date',
    ]);
  });

  it('computes stats from the calls', async () => {
    await f.admin.configure({ answerRate: 1 });
    const agent = await f.api.agents.create({ name: 'Stats' });
    for (const p of phones(3)) await f.api.calls.start({ agent_id: agent.id, phone_number: p });
    await f.admin.advance(3600);
    const list = await f.api.calls.list({ limit: 100 });
    const durations = list.calls.map((c) => c.duration ?? 0);
    const stats = await f.api.calls.stats();
    expect(stats.total_calls).toBe(3);
    expect(stats.completed_calls).toBe(3);
    expect(stats.success_rate).toBe(1);
    expect(stats.average_duration).toBeCloseTo(durations.reduce((a, b) => a + b, 0) / 3, 1);
    expect(stats.total_cost).toBeCloseTo(
      list.calls.reduce((s, c) => s + (c.cost ?? 0), 0),
      2,
    );
    const none = await f.api.calls.stats({ start_date: new Date('2030-01-01T00:00:00Z') });
    expect(none.total_calls).toBe(0);
  });

  it('cancels only queued or in_progress calls (409 otherwise)', async () => {
    await f.admin.configure({ concurrency: 1, answerRate: 1 });
    const agent = await f.api.agents.create({ name: 'Canceller' });
    const first = await f.api.calls.start({ agent_id: agent.id, phone_number: '+14155550001' });
    const second = await f.api.calls.start({ agent_id: agent.id, phone_number: '+14155550002' });
    // One line: the first is ringing (initiated), the second waits in the queue.
    await expect(f.api.calls.cancel(first.id)).rejects.toBeInstanceOf(ConflictError);
    expect(await f.api.calls.cancel(second.id)).toMatchObject({ id: second.id, status: 'cancelled' });
    // It rings 4 to 25 s and talks at least 20 s: looked at every 5 s, it is seen in progress whatever its draw.
    for (let i = 0; i < 10 && (await f.api.calls.get(first.id)).status !== 'in_progress'; i++) await f.admin.advance(5);
    expect((await f.api.calls.cancel(first.id)).status).toBe('cancelled');
    const done = await f.api.calls.get(first.id);
    expect(done.status).toBe('cancelled');
    await expect(f.api.calls.cancel(first.id)).rejects.toMatchObject({ status: 409 });
    await expect(f.api.calls.cancel('call_missing')).rejects.toBeInstanceOf(NotFoundError);
  });

  it('queues calls beyond the account concurrency and dials them as lines free up', async () => {
    await f.admin.configure({ concurrency: 2 });
    const agent = await f.api.agents.create({ name: 'Busy' });
    for (const p of phones(5)) await f.api.calls.start({ agent_id: agent.id, phone_number: p });
    const state = await f.admin.state<{ lines_in_use: number; queued_calls: number }>();
    expect(state.lines_in_use).toBe(2);
    expect(state.queued_calls).toBe(3);
    let maxLines = 0;
    await advanceUntil(f.admin, async () => {
      const s = await f.admin.state<{ lines_in_use: number; calls: Call[] }>();
      maxLines = Math.max(maxLines, s.lines_in_use);
      return s.calls.every(finished);
    });
    expect(maxLines).toBe(2);
  });

  it('refuses calls without credits (402) and validates the request (422)', async () => {
    const agent = await f.api.agents.create({ name: 'Broke' });
    await f.admin.configure({ credits: 0 });
    await expect(f.api.calls.start({ agent_id: agent.id, phone_number: '+14155552671' })).rejects.toBeInstanceOf(
      InsufficientCreditsError,
    );
    const res = await raw(f.emu.url, 'POST', '/calls', {
      body: JSON.stringify({ agent_id: agent.id, phone_number: '4155552671' }),
      headers: { 'Content-Type': 'application/json' },
    });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({
      detail: [{ loc: ['body', 'phone_number'], msg: expect.stringContaining('E.164'), type: 'value_error' }],
    });
    await expect(f.api.calls.start({ agent_id: 'agent_nope', phone_number: '+14155552671' })).rejects.toMatchObject({
      status: 404,
    });
    await expect(f.api.calls.start({ agent_id: agent.id, phone_number: '4155552671' })).rejects.toBeInstanceOf(
      RequestValidationError,
    );
  });
});
