import { describe, expect, it, vi } from 'vitest';
import { AmbiguousRequestError, ServerError } from '#commons/voice-api/index.ts';
import { raw, useEmulator } from '../helpers/emulator.ts';
import { contactSheet, phones, xlsx } from '../helpers/sheets.ts';

/** Lets go of the request a `late` fault holds: the test decides when it is carried out, so nothing races a timer. */
let carryOutLate: (() => void) | null = null;
// The fixture's clock is frozen; it keeps its time across tests, so each test starts from the clock's now. Other
// holds (an answer held past a client's timeout) take their milliseconds.
const f = useEmulator({
  hold: (ms, _headers, late) =>
    new Promise<void>((resolve) => {
      if (late) carryOutLate = resolve;
      else setTimeout(resolve, ms);
    }),
});
const clockNow = async () => Date.parse((await f.admin.state<{ now: string }>()).now);
/** An instant as ISO 8601 with a -05:00 offset (a plan may be written in any offset). */
const eastern = (t: number) => `${new Date(t - 5 * 3_600_000).toISOString().slice(0, 19)}-05:00`;

interface LogEntry {
  seq: number;
  method: string;
  path: string;
  status: number;
  fault: boolean;
  fault_id?: number;
  dropped?: boolean;
}

/** A campaign on one line with enough contacts to stay active for simulated minutes. */
async function activeCampaign(): Promise<string> {
  await f.admin.configure({ concurrency: 1 });
  const agent = await f.api.agents.create({ name: 'Faulty' });
  const file = await xlsx(contactSheet(phones(100)));
  const campaign = await f.api.campaigns.create({ file, fileName: 'f.xlsx', agent_id: agent.id, name: 'F' });
  expect(campaign.status).toBe('active');
  return campaign.id;
}

const admin = async (method: string, path: string, body?: unknown) => {
  const res = await fetch(`${f.emu.url}/_emulator${path}`, {
    method,
    headers: { 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
};

const statusOf = async (id: string) => (await f.api.campaigns.get(id)).status;
const log = async () => f.admin.requests<LogEntry[]>();

describe('fault plans', () => {
  it('holds a fault from its simulated start for its minutes, on the path with * for one segment', async () => {
    const id = await activeCampaign();
    const api = f.client({ maxRetries: 0 });
    const t0 = Math.ceil((await clockNow()) / 60_000) * 60_000 + 60_000;
    await f.admin.faultPlan([
      { method: 'PATCH', path: '/campaigns/*/pause', status: 500, from: eastern(t0), minutes: 2 },
    ]);
    await f.admin.setClock(new Date(t0 - 1000));
    expect((await api.campaigns.pause(id)).status).toBe('paused'); // before the window: carried out
    await api.campaigns.resume(id);

    await f.admin.setClock(new Date(t0));
    const err = await api.campaigns.pause(id).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ServerError);
    expect((err as ServerError).status).toBe(500);
    expect(await statusOf(id)).toBe('active'); // answered an error instead of doing it
    await f.admin.setClock(new Date(t0 + 119_000));
    await expect(api.campaigns.pause(id)).rejects.toBeInstanceOf(ServerError);

    await f.admin.setClock(new Date(t0 + 120_000)); // window over: the fault is forgotten
    expect(await f.admin.faults()).toEqual([]);
    expect((await api.campaigns.pause(id)).status).toBe('paused');
    const pauses = (await log()).filter((r) => r.method === 'PATCH' && r.path.endsWith('/pause'));
    expect(pauses.map((r) => [r.status, r.fault])).toEqual([
      [200, false],
      [500, true],
      [500, true],
      [200, false],
    ]);
  });

  it('matches * to exactly one segment and the rest of the path whole; full paths are accepted too', async () => {
    const id = await activeCampaign();
    await f.admin.faultPlan({
      description: 'stats down',
      faults: [
        { method: 'GET', path: '/campaigns/*', status: 503, count: 5 },
        { path: '/api/developer/v1/campaigns/*/stats', status: 502, count: 5 },
      ],
    });
    expect((await raw(f.emu.url, 'GET', `/campaigns/${id}/stats`)).status).toBe(502);
    expect((await raw(f.emu.url, 'GET', `/campaigns/${id}`)).status).toBe(503);
    expect((await raw(f.emu.url, 'GET', `/campaigns/${id}/`)).status).toBe(503); // a trailing slash is the same path
    expect((await raw(f.emu.url, 'GET', '/campaigns')).status).not.toBe(503); // no segment for the *
    expect((await raw(f.emu.url, 'PATCH', `/campaigns/${id}/stats/extra`)).status).toBe(404);
    const faults = await f.admin.faults();
    expect(faults.map((x) => [x.path, x.match, x.hits, x.remaining])).toEqual([
      ['/campaigns/*', 'exact', 2, 3],
      ['/campaigns/*/stats', 'exact', 1, 4],
    ]);
  });

  it('ends a fault with both a window and a count at whichever comes first', async () => {
    const from = new Date(await clockNow()).toISOString();
    await f.admin.faultPlan([
      { method: 'GET', path: '/agents', status: 500, from, minutes: 10, count: 2 },
      { method: 'GET', path: '/phone-numbers', status: 500, from, minutes: 10, count: 50 },
    ]);
    const statuses = async (path: string, n: number) => {
      const out: number[] = [];
      for (let i = 0; i < n; i++) out.push((await raw(f.emu.url, 'GET', path)).status);
      return out;
    };
    expect(await statuses('/agents', 3)).toEqual([500, 500, 200]); // the count ran out first
    expect(await statuses('/phone-numbers', 2)).toEqual([500, 500]);
    await f.admin.advance(10 * 60);
    expect(await statuses('/phone-numbers', 1)).toEqual([200]); // the window ran out first
  });

  it('drop: carries the request out, then closes the connection without an answer', async () => {
    const id = await activeCampaign();
    await f.admin.fault([{ method: 'PATCH', path: '/campaigns/*/pause', drop: true, count: 1 }]);
    const lost = await raw(f.emu.url, 'PATCH', `/campaigns/${id}/pause`).catch((e: unknown) => e);
    expect(lost).toBeInstanceOf(TypeError); // fetch failed: no status line, no bytes
    expect(await statusOf(id)).toBe('paused'); // … but the pause happened
    const entry = (await log()).find((r) => r.path.endsWith('/pause'));
    expect(entry).toMatchObject({ status: 200, fault: true, dropped: true, fault_id: expect.any(Number) });
  });

  it('cut: carries the request out, then sends half of its answer and closes the connection', async () => {
    const id = await activeCampaign();
    await f.admin.fault([{ method: 'PATCH', path: '/campaigns/*/pause', cut: true, count: 1 }]);
    const res = await raw(f.emu.url, 'PATCH', `/campaigns/${id}/pause`).catch((e: unknown) => e);
    // The status line and headers came (the pause was carried out); the body stops halfway.
    expect(res).toBeInstanceOf(TypeError);
    expect(await statusOf(id)).toBe('paused');
    const entry = (await log()).find((r) => r.path.endsWith('/pause'));
    expect(entry).toMatchObject({ status: 200, fault: true, cut: true, fault_id: expect.any(Number) });
    // The client's own words: carried out, the answer unread.
    await f.api.campaigns.resume(id);
    await f.admin.fault([{ method: 'PATCH', path: '/campaigns/*/resume', cut: true, count: 1 }]);
    await f.api.campaigns.pause(id);
    const err = await f.api.campaigns.resume(id).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AmbiguousRequestError);
    expect((err as Error).message).toMatch(
      /^PATCH \/campaigns\/\S+\/resume answered 200, but its answer could not be read/,
    );
    expect(await statusOf(id)).toBe('active');
    // An answer without a body has nothing to cut: it is sent whole, and logged as it was.
    const agent = await f.api.agents.create({ name: 'Gone' });
    await f.admin.fault([{ method: 'DELETE', path: '/agents/*', cut: true, count: 1 }]);
    expect((await raw(f.emu.url, 'DELETE', `/agents/${agent.id}`)).status).toBe(204);
    const deleted = (await log()).find((r) => r.path.endsWith(`/agents/${agent.id}`));
    expect(deleted).toMatchObject({ status: 204, fault: true });
    expect(deleted).not.toHaveProperty('cut');
    const refused = await admin('PUT', '/fault-plan', [
      { path: '/campaigns/*/pause', cut: true, status: 500 },
      { path: '/campaigns/*/pause', cut: true, drop: true },
      { path: '/campaigns/*/pause', cut: 'yes' },
    ]);
    expect((refused.body.problems as { entry: number; field: string }[]).map((p) => [p.entry, p.field])).toEqual([
      [1, 'cut'],
      [2, 'cut'],
      [3, 'cut'],
      [3, 'status'],
    ]);
  });

  it("body: carries the request out, then answers its status with the plan's body instead", async () => {
    const id = await activeCampaign();
    await f.admin.fault([
      { method: 'GET', path: '/campaigns/*/stats', body: { status: 'active', pending: null }, count: 1 },
    ]);
    expect(await f.api.campaigns.stats(id)).toEqual({ status: 'active', pending: null });
    expect((await f.api.campaigns.stats(id)).campaign_id).toBe(id);
    const entry = (await log()).find((r) => r.path.endsWith('/stats'));
    expect(entry).toMatchObject({ status: 200, fault: true, replaced: true });
    const refused = await admin('PUT', '/fault-plan', [
      { path: '/campaigns/*/stats', body: {}, status: 500 },
      { path: '/campaigns/*/stats', body: {}, drop: true },
    ]);
    expect((refused.body.problems as { entry: number; field: string }[]).map((p) => [p.entry, p.field])).toEqual([
      [1, 'body'],
      [2, 'body'],
    ]);
  });

  it('delayMs alone lets the request happen and holds the answer past a client timeout', async () => {
    const id = await activeCampaign();
    await f.admin.fault({ method: 'PATCH', path: '/campaigns/*/pause', delayMs: 400, count: 1 });
    const api = f.client({ maxRetries: 0, timeoutMs: 100 });
    await expect(api.campaigns.pause(id)).rejects.toMatchObject({ name: expect.stringMatching(/Error$/) });
    expect(await statusOf(id)).toBe('paused');
    // The held answer is logged when it is finally sent (so it cannot spill into the next test's log).
    const held = await vi.waitFor(async () => {
      const entry = (await log()).find((r) => r.path.endsWith('/pause'));
      if (!entry) throw new Error('the held answer is not sent yet');
      return entry;
    }, 5000);
    expect(held).toMatchObject({ status: 200, fault: true });
  });

  it('late: holds the request before carrying it out, so it takes effect after the client gave up', async () => {
    const id = await activeCampaign();
    await f.api.campaigns.pause(id);
    await f.admin.fault({ method: 'PATCH', path: '/campaigns/*/resume', delayMs: 400, late: true, count: 1 });
    const api = f.client({ maxRetries: 3, timeoutMs: 100 });
    // A resume is made once: its lost answer is reported as such, not hidden by a retry.
    await expect(api.campaigns.resume(id)).rejects.toBeInstanceOf(AmbiguousRequestError);
    expect(await statusOf(id)).toBe('paused');
    carryOutLate?.();
    await f.emu.traffic.settled();
    expect(await statusOf(id)).toBe('active');
    const resumes = (await log()).filter((r) => r.path.endsWith('/resume'));
    expect(resumes).toEqual([expect.objectContaining({ status: 200, fault: true })]);
    const refused = await admin('PUT', '/fault-plan', [
      { path: '/campaigns/*/resume', status: 500, delayMs: 10, late: true },
      { path: '/campaigns/*/resume', late: true, drop: true },
      { path: '/campaigns/*/resume', delayMs: 10, late: 'yes' },
    ]);
    expect((refused.body.problems as { entry: number; field: string }[]).map((p) => [p.entry, p.field])).toEqual([
      [1, 'late'],
      [2, 'late'],
      [3, 'late'],
    ]);
  });

  it('refuses a bad plan with a reason per entry and arms none of it', async () => {
    await f.admin.faultPlan([{ path: '/agents', status: 503, count: 9 }]);
    const bad = await admin('PUT', '/fault-plan', [
      { method: 'PATCH', path: '/campaigns/*/pause', status: 500, minutes: 5 },
      { method: 'FETCH', path: 'campaigns', status: 200 },
      { path: '/campaigns/cmp_*/pause', status: 500, drop: true, from: '2026-12-07 10:54' },
      { path: '/calls', count: 0, colour: 'red' },
    ]);
    expect(bad.status).toBe(400);
    const problems = bad.body.problems as { entry: number; field: string; message: string }[];
    expect(problems.map((p) => [p.entry, p.field])).toEqual([
      [2, 'method'],
      [2, 'path'],
      [2, 'status'],
      [3, 'path'],
      [3, 'drop'],
      [3, 'from'],
      [4, 'colour'],
      [4, 'status'],
      [4, 'count'],
    ]);
    expect(bad.body.detail).toContain('entry 3 (from): must be an ISO 8601 date-time with an offset');
    expect(bad.body.detail).toContain('entry 4 (status): the fault does nothing');
    // The earlier plan is untouched.
    expect((await f.admin.faults()).map((x) => x.path)).toEqual(['/agents']);
    expect((await admin('POST', '/faults', 'nope')).status).toBe(400);
  });

  it('keeps the old prefix match for a path without * or window, and lists armed faults in the state', async () => {
    await f.admin.fault({ path: '/agents', status: 503, count: 2 });
    await f.admin.fault({ path: '/agents', status: 418, count: 1, match: 'exact' });
    expect((await raw(f.emu.url, 'GET', '/agents/agent_x')).status).toBe(503);
    expect((await raw(f.emu.url, 'GET', '/agents')).status).toBe(503);
    expect((await raw(f.emu.url, 'GET', '/agents/agent_x')).status).toBe(404); // exact does not take it
    expect((await raw(f.emu.url, 'GET', '/agents')).status).toBe(418);
    const state = await f.admin.state<{ faults: unknown[] }>();
    expect(state.faults).toEqual([]);
    const later = new Date((await clockNow()) + 86_400_000).toISOString();
    await f.admin.fault({ path: '/calls', status: 500, from: later });
    expect((await f.admin.state<{ faults: { path: string; remaining: number | null }[] }>()).faults).toMatchObject([
      { path: '/calls', match: 'exact', remaining: null, from: later, until: null },
    ]);
    expect((await raw(f.emu.url, 'GET', '/calls')).status).toBe(200); // not yet in force
    await f.admin.clearFaults();
    expect(await f.admin.faults()).toEqual([]);
  });
});
