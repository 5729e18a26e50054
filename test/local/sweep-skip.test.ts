import { describe, expect, it } from 'vitest';
import { sweepMaySkip } from '#local/stack/sweep-skip.ts';
import { useEmulator } from '../helpers/emulator.ts';
import { contactSheet, phones, xlsx } from '../helpers/sheets.ts';

describe('the embedded stack skips a sweeper round only when it could find nothing', () => {
  const watched = [{ campaignId: 'cmp_1', startsAt: null }];
  const none = () => false;
  const dials = () => true;
  it.each([
    ['nothing watched, no workflow acted', false, [], none, true],
    ['a workflow acted', true, [], none, false],
    ['watched campaigns, none may dial', false, watched, none, true],
    ['a watched campaign may dial', false, watched, dials, false],
    // A real Voice API cannot be asked cheaply: every round that watches calls runs.
    ['watched campaigns on a real API', false, watched, undefined, false],
  ] as const)('%s', (_what, acted, watching, mayDial, skip) => {
    expect(sweepMaySkip(acted, watching, mayDial)).toBe(skip);
  });
});

describe("the emulator says which campaigns may dial (the embedded stack's skip asks it)", () => {
  const f = useEmulator();
  it('an active campaign may, paused may not, active again may, even with its agent switched off', async () => {
    const agent = await f.api.agents.create({ name: 'Watched' });
    const file = await xlsx(contactSheet(phones(50)));
    const campaign = await f.api.campaigns.create({ file, fileName: 'w.xlsx', agent_id: agent.id, name: 'W' });
    const core = f.emu.core;
    expect(core.mayDial(campaign.id, null)).toBe(true);
    await f.api.campaigns.pause(campaign.id);
    expect(core.mayDial(campaign.id, null)).toBe(false);
    // Resumed behind callsheet's back.
    await f.api.campaigns.resume(campaign.id);
    expect(core.mayDial(campaign.id, null)).toBe(true);
    // Braked: the agent is off, but anyone may switch it on again and the campaign dials at once.
    await f.api.agents.toggle(agent.id);
    expect(core.mayDial(campaign.id, null)).toBe(true);
    expect(core.mayDial('cmp_unknown', null)).toBe(false);
  });

  it('a scheduled campaign may dial before the start callsheet gave it only once that start is moved earlier', async () => {
    const agent = await f.api.agents.create({ name: 'Scheduled' });
    const now = Date.parse((await f.admin.state<{ now: string }>()).now);
    const start = new Date(now + 86_400_000).toISOString().slice(0, 19);
    const campaign = await f.api.campaigns.create({
      file: await xlsx(contactSheet(phones(5, '+1415581'))),
      fileName: 's.xlsx',
      agent_id: agent.id,
      name: 'S',
      start_date_time: start,
      time_zone: 'UTC',
    });
    const given = Date.parse(`${start}Z`);
    expect(f.emu.core.mayDial(campaign.id, given)).toBe(false);
    await f.api.campaigns.update(campaign.id, {
      start_date_time: new Date(now + 3_600_000).toISOString().slice(0, 19),
      time_zone: 'UTC',
    });
    expect(f.emu.core.mayDial(campaign.id, given)).toBe(true);
  });
});
