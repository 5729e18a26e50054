import { isValidTimeZone, LIMITS } from '#commons/voice-api/contract.ts';
import { parseDateTimeIn } from '#commons/zoned-time.ts';
import { readCampaignFile } from '../campaign-file.ts';
import type { EmulatorCore } from '../core.ts';
import { Fields } from '../fields.ts';
import { parseMultipart, parseUrlEncoded, type UploadedFile } from '../forms.ts';
import { conflict, invalid, notFound, type RequestContext, type Router } from '../http-kit.ts';
import type { CampaignRecord } from '../state.ts';
import { campaignStatsView, campaignView } from '../views.ts';
import { usableAgent } from './agents.ts';

/** Reads `start_date_time` + `time_zone` (both or neither) into an instant. */
function readSchedule(f: Fields): { start: number | null; timeZone: string | null } | undefined {
  const startText = f.string('start_date_time', { nonBlank: true });
  const zone = f.string('time_zone', { nonBlank: true });
  if ((startText === undefined) !== (zone === undefined)) {
    f.fail(
      startText === undefined ? 'start_date_time' : 'time_zone',
      'start_date_time and time_zone must be given together',
    );
    return undefined;
  }
  if (startText === undefined || startText === null || zone === undefined || zone === null)
    return { start: null, timeZone: null };
  if (!isValidTimeZone(zone)) {
    f.fail('time_zone', `${JSON.stringify(zone)} is not an IANA time zone`);
    return undefined;
  }
  const start = parseDateTimeIn(startText, zone);
  if (Number.isNaN(start)) {
    f.fail('start_date_time', 'input should be a valid ISO 8601 date-time', 'datetime_parsing');
    return undefined;
  }
  return { start, timeZone: zone };
}

export function campaignRoutes(router: Router, core: EmulatorCore): void {
  const find = (ctx: RequestContext): CampaignRecord => {
    const c = core.account.campaigns.get(ctx.params.campaignId as string);
    if (!c) throw notFound('Campaign');
    return c;
  };

  /** Starts now, or queues the start on the simulated clock. */
  const schedule = (c: CampaignRecord): void => {
    c.startTimer?.cancel();
    if (c.start_date_time !== null && c.start_date_time > core.clock.now()) {
      c.status = 'scheduled';
      c.startTimer = core.clock.at(c.start_date_time, () => {
        if (core.account.campaigns.get(c.id) === c && c.status === 'scheduled') core.dialer.activate(c);
      });
    } else core.dialer.activate(c);
  };

  router.on('POST', '/campaigns', async (ctx) => {
    const { fields, files } = await parseMultipart(ctx.req.headers, ctx.raw);
    const f = new Fields(fields, ['body']);
    f.forbidOthers(['agent_id', 'name', 'start_date_time', 'time_zone', 'retries']);
    const agentId = f.string('agent_id', { required: true, nonBlank: true });
    const name = f.string('name', { required: true, nonBlank: true, max: 200 });
    const retries = f.integer('retries', { min: 0, max: LIMITS.campaignRetriesMax }) ?? 0;
    const when = readSchedule(f);
    const file = files.find((x) => x.field === 'file');
    if (!file) f.fail('file', 'field required: the contact spreadsheet', 'missing');
    f.done();
    const agent = usableAgent(core, agentId as string);
    const sheet = await readCampaignFile((file as UploadedFile).bytes, (file as UploadedFile).filename);
    if ('problems' in sheet) throw invalid(sheet.problems);
    const now = core.clock.now();
    const campaign: CampaignRecord = {
      id: core.ids.next('cmp'),
      name: name as string,
      agent_id: agent.id,
      status: 'scheduled',
      start_date_time: when?.start ?? null,
      time_zone: when?.timeZone ?? null,
      retries,
      file_name: (file as UploadedFile).filename,
      contacts: sheet.contacts.map((c) => ({ ...c, status: 'pending', attempts: 0, call_ids: [] })),
      ready: sheet.contacts.map((_, i) => i),
      created_at: now,
      updated_at: now,
      started_at: null,
      paused_at: null,
      completed_at: null,
      startTimer: null,
    };
    core.account.campaigns.set(campaign.id, campaign);
    schedule(campaign);
    return { status: 201, body: campaignView(campaign) };
  });

  router.on('GET', '/campaigns/:campaignId', (ctx) => ({ status: 200, body: campaignView(find(ctx)) }));

  router.on('PUT', '/campaigns/:campaignId', (ctx) => {
    const campaign = find(ctx);
    const form = parseUrlEncoded(ctx.req.headers, ctx.raw);
    const f = new Fields(form, ['body']);
    for (const fixed of ['file', 'agent_id']) {
      if (f.has(fixed)) f.fail(fixed, `${fixed} cannot be changed after the campaign is created`);
    }
    f.forbidOthers(['name', 'retries', 'start_date_time', 'time_zone', 'file', 'agent_id']);
    const name = f.string('name', { nonBlank: true, max: 200 });
    const retries = f.integer('retries', { min: 0, max: LIMITS.campaignRetriesMax });
    const reschedule = f.has('start_date_time') || f.has('time_zone') ? readSchedule(f) : undefined;
    f.done();
    if (reschedule && campaign.status !== 'scheduled') {
      throw conflict(`campaign ${campaign.id} is ${campaign.status}; its schedule can only change before it starts`);
    }
    if (retries !== undefined && retries !== null && campaign.status === 'completed') {
      throw conflict(`campaign ${campaign.id} is completed; its retries can no longer change`);
    }
    if (name) campaign.name = name;
    if (retries !== undefined && retries !== null) campaign.retries = retries;
    campaign.updated_at = core.clock.now();
    if (reschedule) {
      campaign.start_date_time = reschedule.start;
      campaign.time_zone = reschedule.timeZone;
      schedule(campaign);
    }
    return { status: 200, body: campaignView(campaign) };
  });

  router.on('DELETE', '/campaigns/:campaignId', (ctx) => {
    core.dialer.dropCampaign(find(ctx));
    return { status: 204 };
  });

  router.on('GET', '/campaigns/:campaignId/stats', (ctx) => ({ status: 200, body: campaignStatsView(find(ctx)) }));

  router.on('PATCH', '/campaigns/:campaignId/pause', (ctx) => {
    const campaign = find(ctx);
    if (campaign.status !== 'active')
      throw conflict(`campaign ${campaign.id} is ${campaign.status}; only an active campaign can be paused`);
    campaign.status = 'paused';
    campaign.paused_at = core.clock.now();
    campaign.updated_at = campaign.paused_at;
    core.dialer.observe();
    return {
      status: 200,
      body: { id: campaign.id, status: campaign.status, message: 'campaign paused; calls in progress finish normally' },
    };
  });

  router.on('PATCH', '/campaigns/:campaignId/resume', (ctx) => {
    const campaign = find(ctx);
    if (campaign.status !== 'paused')
      throw conflict(`campaign ${campaign.id} is ${campaign.status}; only a paused campaign can be resumed`);
    campaign.status = 'active';
    campaign.paused_at = null;
    campaign.updated_at = core.clock.now();
    core.dialer.completeIfDone(campaign);
    core.dialer.pump();
    return { status: 200, body: { id: campaign.id, status: campaign.status, message: 'campaign resumed' } };
  });
}
