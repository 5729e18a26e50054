import { describe, expect, it } from 'vitest';
import { useEmulator } from '../helpers/emulator.ts';
import { contactSheet, phones, xlsx } from '../helpers/sheets.ts';

/**
 * The emulator's record of when each campaign could dial (DialableSpan), which the auditor checks beside the calls:
 * it must open and close exactly where dialling becomes possible and stops, whatever the lines are doing.
 */
const f = useEmulator();

const spansOf = (campaignId: string) => f.emu.core.dialer.spans.filter((s) => s.campaign_id === campaignId);
const now = () => f.emu.core.clock.now();

async function campaignOf(n: number) {
  const agent = await f.api.agents.create({ name: 'Spans' });
  const campaign = await f.api.campaigns.create({
    file: await xlsx(contactSheet(phones(n))),
    fileName: 'spans.xlsx',
    agent_id: agent.id,
    name: 'Spans',
    retries: 1,
  });
  return { agent, campaign };
}

describe('dialable spans', () => {
  it('open while a campaign can dial, and close at its pause, its agent switched off, and its last number', async () => {
    await f.admin.configure({ concurrency: 2, retryDelaySeconds: 60, answerRate: 0.5 });
    const { agent, campaign } = await campaignOf(10);
    const created = now();
    // Two numbers went to the lines at once and eight wait for one: all ten were ready as it opened.
    expect(spansOf(campaign.id)).toEqual([
      expect.objectContaining({ agent_id: agent.id, from: created, to: null, phones: expect.any(Set) }),
    ]);
    expect(spansOf(campaign.id)[0]?.phones.size).toBe(10);

    await f.admin.advance(30);
    await f.api.campaigns.pause(campaign.id);
    const paused = now();
    expect(spansOf(campaign.id).map((s) => [s.from, s.to])).toEqual([[created, paused]]);
    await f.admin.advance(3600);
    expect(spansOf(campaign.id)).toHaveLength(1);

    await f.api.campaigns.resume(campaign.id);
    const resumed = now();
    expect(spansOf(campaign.id).at(-1)).toMatchObject({ from: resumed, to: null });
    await f.admin.advance(10);
    await f.api.agents.toggle(agent.id);
    const braked = now();
    expect(spansOf(campaign.id).at(-1)).toMatchObject({ from: resumed, to: braked });
    await f.admin.advance(3600);
    await f.api.agents.toggle(agent.id);
    const released = now();
    expect(spansOf(campaign.id).at(-1)).toMatchObject({ from: released, to: null });

    for (let i = 0; i < 48 && (await f.api.campaigns.get(campaign.id)).status !== 'completed'; i++)
      await f.admin.advance(600);
    expect((await f.api.campaigns.get(campaign.id)).status).toBe('completed');
    const spans = spansOf(campaign.id);
    // Each closed, none overlapping, every number in one, and no call started outside them.
    expect(spans.every((s) => s.to !== null)).toBe(true);
    for (let i = 1; i < spans.length; i++) expect(spans[i]?.from).toBeGreaterThanOrEqual(spans[i - 1]?.to as number);
    const state = await f.admin.state<{ calls: { campaign_id: string; phone_number: string; started_at: string }[] }>();
    const calls = state.calls.filter((c) => c.campaign_id === campaign.id);
    // Some calls failed and were tried again: their numbers came back into a span after the retry delay.
    expect(calls.length).toBeGreaterThan(10);
    // Every call was ready in the stretch it started in, before or as a line took it (a retry too).
    for (const c of calls) {
      const at = Date.parse(c.started_at);
      expect(spans.some((s) => s.from <= at && at <= (s.to as number) && s.phones.has(c.phone_number))).toBe(true);
    }
  });
});
