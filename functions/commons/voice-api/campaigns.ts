import { parseDateTimeIn } from '../zoned-time.ts';
import { isCampaignFileName, isValidTimeZone, LIMITS } from './contract.ts';
import type { Transport } from './http.ts';
import { pathId, RequestChecks } from './request-checks.ts';
import type { ActionResult, Campaign, CampaignInput, CampaignStats, CampaignUpdate } from './types.ts';

function checkSchedule(
  checks: RequestChecks,
  s: { start_date_time?: string; time_zone?: string; retries?: number },
  where: string,
): void {
  const hasStart = s.start_date_time !== undefined;
  const hasZone = s.time_zone !== undefined;
  checks.check(
    hasStart === hasZone,
    [where, hasStart ? 'time_zone' : 'start_date_time'],
    'start_date_time and time_zone go together: give both or neither',
  );
  if (hasStart)
    checks.check(
      !Number.isNaN(parseDateTimeIn(s.start_date_time ?? '', s.time_zone ?? 'UTC')),
      [where, 'start_date_time'],
      'start_date_time must be an ISO 8601 date-time',
      'datetime_parsing',
    );
  if (hasZone)
    checks.check(
      isValidTimeZone(s.time_zone ?? ''),
      [where, 'time_zone'],
      `unknown IANA time zone ${JSON.stringify(s.time_zone)}`,
    );
  if (s.retries !== undefined) {
    checks.check(
      Number.isInteger(s.retries) && s.retries >= 0 && s.retries <= LIMITS.campaignRetriesMax,
      [where, 'retries'],
      `retries must be a whole number from 0 to ${LIMITS.campaignRetriesMax}`,
    );
  }
}

export class CampaignsApi {
  constructor(private readonly http: Transport) {}

  /**
   * Uploads the sheet and creates the campaign. Never retried after an ambiguous failure: a second campaign
   * would dial every contact again. Record the intent before calling and reconcile on AmbiguousRequestError.
   */
  async create(input: CampaignInput): Promise<Campaign> {
    const checks = new RequestChecks()
      .check(Boolean(input.agent_id), ['body', 'agent_id'], 'agent_id is required', 'missing')
      .check(Boolean(input.name), ['body', 'name'], 'name is required', 'missing')
      .check(isCampaignFileName(input.fileName ?? ''), ['body', 'file'], 'the contact file must be .xlsx or .xls');
    checkSchedule(checks, input, 'body');
    checks.done();

    const form = new FormData();
    const blob = input.file instanceof Blob ? input.file : new Blob([input.file as Uint8Array<ArrayBuffer>]);
    form.set('file', blob, input.fileName);
    form.set('agent_id', input.agent_id);
    form.set('name', input.name);
    if (input.start_date_time !== undefined) form.set('start_date_time', input.start_date_time);
    if (input.time_zone !== undefined) form.set('time_zone', input.time_zone);
    if (input.retries !== undefined) form.set('retries', String(input.retries));
    return this.http.data<Campaign>({
      method: 'POST',
      path: '/campaigns',
      form,
      repeatability: 'once',
      // Made, but not named: what was made is found as after a lost answer.
      expect: (made) => {
        const id = (made as Partial<Campaign> | null)?.id;
        return typeof id === 'string' && id !== '' ? null : 'names no campaign id';
      },
    });
  }

  async get(campaignId: string): Promise<Campaign> {
    return this.http.data<Campaign>({
      method: 'GET',
      path: `/campaigns/${pathId(campaignId)}`,
      repeatability: 'repeatable',
    });
  }

  /** Changes only what is given (form-urlencoded, as the contract requires). */
  async update(campaignId: string, changes: CampaignUpdate): Promise<Campaign> {
    const checks = new RequestChecks();
    checkSchedule(checks, changes, 'body');
    checks.done();
    const form = new URLSearchParams();
    for (const [k, v] of Object.entries(changes)) if (v !== undefined) form.set(k, String(v));
    return this.http.data<Campaign>({
      method: 'PUT',
      path: `/campaigns/${pathId(campaignId)}`,
      form,
      repeatability: 'repeatable',
    });
  }

  /** Irreversible: also deletes the campaign's contact rows and call logs. Pause an active campaign first. */
  async delete(campaignId: string): Promise<void> {
    await this.http.send({ method: 'DELETE', path: `/campaigns/${pathId(campaignId)}`, repeatability: 'repeatable' });
  }

  async stats(campaignId: string): Promise<CampaignStats> {
    return this.http.data<CampaignStats>({
      method: 'GET',
      path: `/campaigns/${pathId(campaignId)}/stats`,
      repeatability: 'repeatable',
    });
  }

  /** Only an `active` campaign can be paused (ConflictError otherwise). */
  async pause(campaignId: string): Promise<ActionResult> {
    return this.http.data<ActionResult>({
      method: 'PATCH',
      path: `/campaigns/${pathId(campaignId)}/pause`,
      repeatability: 'repeatable',
    });
  }

  /** Only a `paused` campaign can be resumed (ConflictError otherwise). */
  async resume(campaignId: string): Promise<ActionResult> {
    return this.http.data<ActionResult>({
      method: 'PATCH',
      path: `/campaigns/${pathId(campaignId)}/resume`,
      // It starts dialling: sent again after a lost answer, the first might still land late, unseen.
      repeatability: 'once',
    });
  }
}
