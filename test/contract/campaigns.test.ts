import { describe, expect, it } from 'vitest';
import { type CampaignStats, ConflictError, NotFoundError, ValidationError } from '#commons/voice-api/index.ts';
import { advanceUntil, raw, useEmulator } from '../helpers/emulator.ts';
import { contactSheet, phones, xls, xlsx } from '../helpers/sheets.ts';

const f = useEmulator();

interface StateCall {
  campaign_id: string | null;
  phone_number: string;
  started_at: string | null;
  status: string;
}

const sumOk = (s: CampaignStats) =>
  s.pending + s.in_progress + s.completed + s.failed + (s.cancelled as number) === s.total;

async function agent() {
  return f.api.agents.create({ name: 'Campaigner' });
}

async function campaignCalls(campaignId: string): Promise<StateCall[]> {
  const state = await f.admin.state<{ calls: StateCall[] }>();
  return state.calls.filter((c) => c.campaign_id === campaignId);
}

describe('campaigns', () => {
  it('creates from an .xlsx upload and dials every contact until pending + in_progress == 0', async () => {
    const a = await agent();
    const file = await xlsx(contactSheet(phones(30)));
    const campaign = await f.api.campaigns.create({ file, fileName: 'list.xlsx', agent_id: a.id, name: 'Spring' });
    expect(campaign).toMatchObject({ status: 'active', total_contacts: 30, retries: 0, start_date_time: null });
    expect(await f.api.campaigns.get(campaign.id)).toEqual(campaign);

    await advanceUntil(f.admin, async () => {
      const s = await f.api.campaigns.stats(campaign.id);
      expect(sumOk(s)).toBe(true);
      expect(s.total).toBe(30);
      return s.pending + s.in_progress === 0;
    });
    const final = await f.api.campaigns.stats(campaign.id);
    expect(final.completed + final.failed).toBe(30);
    expect((await f.api.campaigns.get(campaign.id)).status).toBe('completed');
    const calls = await campaignCalls(campaign.id);
    expect(new Set(calls.map((c) => c.phone_number)).size).toBe(30);
    expect(calls).toHaveLength(30); // retries 0: one attempt each
  });

  it('reads legacy .xls uploads too', async () => {
    const a = await agent();
    const campaign = await f.api.campaigns.create({
      file: xls(contactSheet(phones(3))),
      fileName: 'old.xls',
      agent_id: a.id,
      name: 'Legacy',
    });
    expect(campaign.total_contacts).toBe(3);
  });

  it('retries failed contacts up to `retries` times', async () => {
    await f.admin.configure({ answerRate: 0, retryDelaySeconds: 300 });
    const a = await agent();
    const campaign = await f.api.campaigns.create({
      file: await xlsx(contactSheet(phones(4))),
      fileName: 'r.xlsx',
      agent_id: a.id,
      name: 'Retry',
      retries: 2,
    });
    await advanceUntil(f.admin, async () => {
      const s = await f.api.campaigns.stats(campaign.id);
      return s.pending + s.in_progress === 0;
    });
    expect(await f.api.campaigns.stats(campaign.id)).toMatchObject({ failed: 4, completed: 0 });
    const calls = await campaignCalls(campaign.id);
    expect(calls).toHaveLength(12); // 1 + 2 retries each
    const byPhone = new Map<string, StateCall[]>();
    for (const c of calls) byPhone.set(c.phone_number, [...(byPhone.get(c.phone_number) ?? []), c]);
    for (const attempts of byPhone.values()) {
      const starts = attempts.map((c) => Date.parse(c.started_at as string)).sort((x, y) => x - y);
      expect((starts[1] as number) - (starts[0] as number)).toBeGreaterThanOrEqual(300_000);
    }
  });

  it('pause stops new dials while calls in flight finish; resume continues where it left off', async () => {
    await f.admin.configure({ concurrency: 3, answerRate: 1 });
    const a = await agent();
    const campaign = await f.api.campaigns.create({
      file: await xlsx(contactSheet(phones(12))),
      fileName: 'p.xlsx',
      agent_id: a.id,
      name: 'Pausable',
    });
    await f.admin.advance(30);
    const pause = await f.api.campaigns.pause(campaign.id);
    expect(pause).toMatchObject({ id: campaign.id, status: 'paused' });
    const dialledAtPause = (await campaignCalls(campaign.id)).length;
    expect(dialledAtPause).toBe(3);
    await expect(f.api.campaigns.pause(campaign.id)).rejects.toBeInstanceOf(ConflictError);

    await f.admin.advance(3600);
    const whilePaused = await f.api.campaigns.stats(campaign.id);
    expect(whilePaused).toMatchObject({ status: 'paused', in_progress: 0, completed: 3, pending: 9 });
    expect((await campaignCalls(campaign.id)).length).toBe(dialledAtPause);

    const resumeAt = Date.parse((await f.admin.state<{ now: string }>()).now);
    expect(await f.api.campaigns.resume(campaign.id)).toMatchObject({ status: 'active' });
    await expect(f.api.campaigns.resume(campaign.id)).rejects.toMatchObject({ status: 409 });
    await advanceUntil(f.admin, async () => (await f.api.campaigns.get(campaign.id)).status === 'completed');
    const calls = await campaignCalls(campaign.id);
    expect(calls).toHaveLength(12);
    // Sheet order is kept: the contacts dialled after the resume are exactly the ones not dialled before it.
    const after = calls.filter((c) => Date.parse(c.started_at as string) >= resumeAt).map((c) => c.phone_number);
    expect(after).toEqual(phones(12).slice(3));
  });

  it('waits for a scheduled start given as local time in the time zone', async () => {
    const a = await agent();
    // The test clock starts at 2026-03-02T09:00Z. 2026-03-03 10:30 in Kolkata (UTC+5:30) is 05:00Z.
    const campaign = await f.api.campaigns.create({
      file: await xlsx(contactSheet(phones(2))),
      fileName: 's.xlsx',
      agent_id: a.id,
      name: 'Scheduled',
      start_date_time: '2026-03-03T10:30:00',
      time_zone: 'Asia/Kolkata',
    });
    expect(campaign).toMatchObject({
      status: 'scheduled',
      start_date_time: '2026-03-03T05:00:00.000Z',
      time_zone: 'Asia/Kolkata',
    });
    await expect(f.api.campaigns.pause(campaign.id)).rejects.toBeInstanceOf(ConflictError);
    const moved = await f.api.campaigns.update(campaign.id, {
      name: 'Scheduled later',
      start_date_time: '2026-03-03T06:00:00Z',
      time_zone: 'UTC',
    });
    expect(moved).toMatchObject({ name: 'Scheduled later', start_date_time: '2026-03-03T06:00:00.000Z' });
    await f.admin.setClock('2026-03-03T05:59:00Z');
    expect(await campaignCalls(campaign.id)).toHaveLength(0);
    await f.admin.setClock('2026-03-03T06:00:00Z');
    const started = await f.api.campaigns.get(campaign.id);
    expect(started).toMatchObject({ status: 'active', started_at: '2026-03-03T06:00:00.000Z' });
    expect((await campaignCalls(campaign.id)).every((c) => c.started_at === '2026-03-03T06:00:00.000Z')).toBe(true);
    await expect(
      f.api.campaigns.update(campaign.id, { start_date_time: '2026-03-04T06:00:00Z', time_zone: 'UTC' }),
    ).rejects.toBeInstanceOf(ConflictError);
  });

  it('rejects bad files and settings with 422 items that say which row and why', async () => {
    const a = await agent();
    const rows = [
      ['Phone Number', 'Name'],
      ['+14155550001', 'ok'],
      ['4155550002', 'no plus'],
      ['+14155550001', 'dup'],
    ];
    const bad = await f.api.campaigns
      .create({ file: await xlsx(rows), fileName: 'bad.xlsx', agent_id: a.id, name: 'Bad' })
      .catch((e: unknown) => e);
    expect(bad).toBeInstanceOf(ValidationError);
    expect((bad as ValidationError).items.map((i) => i.loc)).toEqual([
      ['file', 'row', 3, 'Phone Number'],
      ['file', 'row', 4, 'Phone Number'],
    ]);
    expect((bad as ValidationError).items[1]?.msg).toContain('row 2');

    const noColumn = await f.api.campaigns
      .create({
        file: await xlsx([
          ['Phone', 'Name'],
          ['+14155550001', 'x'],
        ]),
        fileName: 'n.xlsx',
        agent_id: a.id,
        name: 'N',
      })
      .catch((e: unknown) => e);
    expect((noColumn as ValidationError).items[0]?.msg).toContain('Phone Number');
    const tooMany = await f.api.campaigns
      .create({ file: await xlsx(contactSheet(phones(1001))), fileName: 'big.xlsx', agent_id: a.id, name: 'Big' })
      .catch((e: unknown) => e);
    expect((tooMany as ValidationError).items[0]?.msg).toContain('at most 1000');
    const csv = await f.api.campaigns
      .create({ file: Buffer.from('Phone Number\n+14155550001\n'), fileName: 'x.xlsx', agent_id: a.id, name: 'CSV' })
      .catch((e: unknown) => e);
    expect((csv as ValidationError).items[0]?.msg).toContain('.xlsx or .xls');

    const form = new FormData();
    form.set('file', new Blob([await xlsx(contactSheet(phones(1)))]), 'a.xlsx');
    form.set('agent_id', a.id);
    form.set('name', 'Half schedule');
    form.set('start_date_time', '2026-03-03T10:00:00');
    form.set('retries', '4');
    const res = await raw(f.emu.url, 'POST', '/campaigns', { body: form });
    expect(res.status).toBe(422);
    expect((res.body as { detail: { loc: string[] }[] }).detail.map((d) => d.loc.join('.'))).toEqual([
      'body.retries',
      'body.time_zone',
    ]);
    const json = await raw(f.emu.url, 'POST', '/campaigns', {
      body: '{}',
      headers: { 'Content-Type': 'application/json' },
    });
    expect(json.status).toBe(422);
    const badZone = await raw(f.emu.url, 'POST', '/campaigns', {
      body: (() => {
        const g = new FormData();
        g.set('agent_id', a.id);
        g.set('name', 'Z');
        g.set('start_date_time', '2026-03-03T10:00:00');
        g.set('time_zone', 'Mars/Olympus');
        return g;
      })(),
    });
    expect((badZone.body as { detail: { loc: string[] }[] }).detail.map((d) => d.loc.join('.'))).toEqual([
      'body.time_zone',
      'body.file',
    ]);
  });

  it('cannot change the file or agent after creation; deleting removes its calls', async () => {
    const a = await agent();
    const campaign = await f.api.campaigns.create({
      file: await xlsx(contactSheet(phones(2))),
      fileName: 'd.xlsx',
      agent_id: a.id,
      name: 'Del',
    });
    const res = await raw(f.emu.url, 'PUT', `/campaigns/${campaign.id}`, {
      body: new URLSearchParams({ agent_id: 'agent_other' }),
    });
    expect(res.status).toBe(422);
    expect((res.body as { detail: { msg: string }[] }).detail[0]?.msg).toContain('cannot be changed');
    expect((await f.api.campaigns.update(campaign.id, { retries: 3 })).retries).toBe(3);
    await f.admin.advance(600);
    expect((await f.api.calls.list()).total).toBeGreaterThan(0);
    await f.api.campaigns.pause(campaign.id).catch(() => undefined);
    await f.api.campaigns.delete(campaign.id);
    await expect(f.api.campaigns.get(campaign.id)).rejects.toBeInstanceOf(NotFoundError);
    await expect(f.api.campaigns.stats(campaign.id)).rejects.toMatchObject({ status: 404 });
    expect((await f.api.calls.list()).total).toBe(0);
  });

  it('fails a dial at once when credits are exhausted, naming the reason', async () => {
    const a = await agent();
    const campaign = await f.api.campaigns.create({
      file: await xlsx(contactSheet(phones(3))),
      fileName: 'c.xlsx',
      agent_id: a.id,
      name: 'Broke',
    });
    await f.admin.configure({ credits: 0 }); // the first dials went out at create; these run dry
    await f.admin.advance(3600);
    const calls = await campaignCalls(campaign.id);
    expect(calls).toHaveLength(3);
    const fresh = await f.api.campaigns.create({
      file: await xlsx(contactSheet(phones(2, '+1415556'))),
      fileName: 'd.xlsx',
      agent_id: a.id,
      name: 'Dry',
    });
    expect(await f.api.campaigns.stats(fresh.id)).toMatchObject({ failed: 2, pending: 0, in_progress: 0 });
    const state = await f.admin.state<{ calls: (StateCall & { failure_reason: string | null })[] }>();
    expect(state.calls.filter((c) => c.campaign_id === fresh.id).map((c) => c.failure_reason)).toEqual([
      'insufficient_credits',
      'insufficient_credits',
    ]);
  });

  it('fails thousands of waiting contacts one after another when the account runs dry, without overflowing', async () => {
    // One line, busy with the first call; five campaigns wait behind it. When it ends on a dry account, each
    // dial fails at once and frees the line for the next: five thousand of them in a row once recursed.
    await f.admin.configure({ concurrency: 1 });
    const a = await agent();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const c = await f.api.campaigns.create({
        file: await xlsx(contactSheet(phones(1000, `+141555${i}`))),
        fileName: `wait-${i}.xlsx`,
        agent_id: a.id,
        name: `Waiting ${i}`,
      });
      ids.push(c.id);
    }
    await f.admin.configure({ credits: 0 });
    await f.admin.advance(600);
    let failed = 0;
    for (const id of ids) {
      const s = await f.api.campaigns.stats(id);
      expect(s.pending + s.in_progress).toBe(0);
      failed += s.failed;
    }
    expect(failed).toBeGreaterThanOrEqual(4999);
    const state = await f.admin.state<{ calls: (StateCall & { failure_reason: string | null })[] }>();
    const dry = state.calls.filter((c) => c.failure_reason === 'insufficient_credits');
    expect(dry.length).toBeGreaterThanOrEqual(4999);
  });

  it('shares the account lines between campaigns and keeps every stats invariant', async () => {
    await f.admin.configure({ concurrency: 4 });
    const a = await agent();
    const c1 = await f.api.campaigns.create({
      file: await xlsx(contactSheet(phones(20, '+1415556'))),
      fileName: '1.xlsx',
      agent_id: a.id,
      name: 'One',
      retries: 1,
    });
    const c2 = await f.api.campaigns.create({
      file: await xlsx(contactSheet(phones(20, '+1415557'))),
      fileName: '2.xlsx',
      agent_id: a.id,
      name: 'Two',
      retries: 1,
    });
    await advanceUntil(f.admin, async () => {
      const s = await f.admin.state<{ lines_in_use: number }>();
      expect(s.lines_in_use).toBeLessThanOrEqual(4);
      const [s1, s2] = await Promise.all([f.api.campaigns.stats(c1.id), f.api.campaigns.stats(c2.id)]);
      expect(sumOk(s1) && sumOk(s2)).toBe(true);
      return s1.pending + s1.in_progress + s2.pending + s2.in_progress === 0;
    });
    expect((await f.api.campaigns.get(c1.id)).status).toBe('completed');
    expect((await f.api.campaigns.get(c2.id)).status).toBe('completed');
  });
});
