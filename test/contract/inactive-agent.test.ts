import { describe, expect, it } from 'vitest';
import { ConflictError } from '#commons/voice-api/index.ts';
import { useEmulator } from '../helpers/emulator.ts';
import { contactSheet, phones, xlsx } from '../helpers/sheets.ts';

// Contract, States: "inactive agents cannot be used for calls or campaigns".
const f = useEmulator();

interface StateCall {
  id: string;
  campaign_id: string | null;
  phone_number: string;
  status: string;
  started_at: string | null;
  ended_at: string | null;
}

const calls = async (campaignId: string | null) =>
  (await f.admin.state<{ calls: StateCall[] }>()).calls.filter((c) => c.campaign_id === campaignId);
const clockNow = async () => Date.parse((await f.admin.state<{ now: string }>()).now);
const placedAfter = (list: StateCall[], t: number) =>
  list.filter((c) => c.started_at !== null && Date.parse(c.started_at) > t);

async function campaignOf(n: number, schedule?: { start_date_time: string; time_zone: string }) {
  const agent = await f.api.agents.create({ name: 'Brake' });
  const file = await xlsx(contactSheet(phones(n)));
  const campaign = await f.api.campaigns.create({
    file,
    fileName: 'brake.xlsx',
    agent_id: agent.id,
    name: 'Brake',
    retries: 1,
    ...schedule,
  });
  return { agent, campaign };
}

describe('an inactive agent', () => {
  it('stops an active campaign from starting calls; calls in flight finish; reactivation carries on', async () => {
    await f.admin.configure({ concurrency: 2, retryDelaySeconds: 60 });
    const { agent, campaign } = await campaignOf(10);
    expect(campaign.status).toBe('active');
    expect((await calls(campaign.id)).map((c) => c.status)).toEqual(['initiated', 'initiated']);

    expect((await f.api.agents.toggle(agent.id)).is_active).toBe(false);
    const off = await clockNow();
    await f.admin.advance(6 * 3600); // long enough for retries, many calls' worth of time
    const during = await calls(campaign.id);
    expect(placedAfter(during, off)).toEqual([]);
    expect(during).toHaveLength(2);
    expect(during.every((c) => c.ended_at !== null)).toBe(true); // the two in flight finished normally
    const stats = await f.api.campaigns.stats(campaign.id);
    expect(stats).toMatchObject({ status: 'active', in_progress: 0, total: 10 });
    expect(stats.pending).toBeGreaterThanOrEqual(8); // waiting, not failed or dropped

    expect((await f.api.agents.toggle(agent.id)).is_active).toBe(true);
    const on = await clockNow();
    expect(placedAfter(await calls(campaign.id), on - 1)).toHaveLength(2); // dialling resumes at once
    for (let i = 0; i < 48 && (await f.api.campaigns.get(campaign.id)).status !== 'completed'; i++)
      await f.admin.advance(600);
    const done = await f.api.campaigns.stats(campaign.id);
    expect(done).toMatchObject({ status: 'completed', pending: 0, in_progress: 0 });
    // Every contact was dialled, and none between the deactivation and the reactivation.
    const all = await calls(campaign.id);
    expect(new Set(all.map((c) => c.phone_number)).size).toBe(10);
    expect(
      all.filter((c) => Date.parse(c.started_at as string) > off && Date.parse(c.started_at as string) < on),
    ).toEqual([]);
  });

  it('keeps a scheduled campaign from dialling at its start until the agent is active again', async () => {
    const start = new Date((await clockNow()) + 3_600_000);
    const { agent, campaign } = await campaignOf(3, {
      start_date_time: start.toISOString().slice(0, 19),
      time_zone: 'UTC',
    });
    expect(campaign.status).toBe('scheduled');
    await f.api.agents.toggle(agent.id);
    await f.admin.advance(3 * 3600);
    expect((await f.api.campaigns.get(campaign.id)).status).toBe('active');
    expect(await calls(campaign.id)).toEqual([]);
    expect((await f.api.campaigns.stats(campaign.id)).pending).toBe(3);

    await f.api.agents.toggle(agent.id);
    const on = await clockNow();
    const dialled = await calls(campaign.id);
    expect(dialled).toHaveLength(3);
    expect(dialled.every((c) => Date.parse(c.started_at as string) === on)).toBe(true);
  });

  it('refuses a new campaign or call (409); a paused campaign resumed meanwhile still dials nobody', async () => {
    const { agent, campaign } = await campaignOf(40);
    await f.api.campaigns.pause(campaign.id);
    const before = (await calls(campaign.id)).length;
    await f.api.agents.toggle(agent.id);

    const refused = await f.api.campaigns
      .create({ file: await xlsx(contactSheet(phones(2))), fileName: 'x.xlsx', agent_id: agent.id, name: 'No' })
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ConflictError);
    await expect(f.api.calls.start({ agent_id: agent.id, phone_number: '+14155552671' })).rejects.toBeInstanceOf(
      ConflictError,
    );
    // Resume is not refused today; what matters is that nothing is dialled while the agent is inactive.
    expect((await f.api.campaigns.resume(campaign.id)).status).toBe('active');
    await f.admin.advance(3600);
    expect(await calls(campaign.id)).toHaveLength(before);
  });

  it('holds a queued single call until its agent is active again', async () => {
    await f.admin.configure({ concurrency: 1 });
    const busy = await f.api.agents.create({ name: 'Busy' });
    const sleepy = await f.api.agents.create({ name: 'Sleepy' });
    const first = await f.api.calls.start({ agent_id: busy.id, phone_number: '+14155550001' });
    const waiting = await f.api.calls.start({ agent_id: sleepy.id, phone_number: '+14155550002' });
    const third = await f.api.calls.start({ agent_id: busy.id, phone_number: '+14155550003' });
    await f.api.agents.toggle(sleepy.id);
    await f.admin.advance(3600);
    const byId = async () => new Map((await calls(null)).map((c) => [c.id, c]));
    let state = await byId();
    expect(state.get(first.id)?.ended_at).toEqual(expect.any(String));
    expect(state.get(third.id)?.started_at).toEqual(expect.any(String)); // the queue went on past the waiting call
    expect(state.get(waiting.id)).toMatchObject({ status: 'queued', started_at: null });

    await f.api.agents.toggle(sleepy.id);
    state = await byId();
    expect(state.get(waiting.id)?.status).toBe('initiated');
  });
});
