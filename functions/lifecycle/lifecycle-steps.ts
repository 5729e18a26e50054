import { type EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { GetExecutionHistoryCommand, type SFNClient, StartExecutionCommand } from '@aws-sdk/client-sfn';
import ExcelJS from 'exceljs';
import { lookUpAgent } from '../commons/agent-lookup.ts';
import type { ObjectStore } from '../commons/aws/object-store.ts';
import { windowStateAt } from '../commons/calling-window.ts';
import { type CampaignPlan, continuationName, partKey } from '../commons/campaign-plan.ts';
import type { VoiceApiClient } from '../commons/voice-api/client.ts';
import { AmbiguousRequestError, NotFoundError } from '../commons/voice-api/errors.ts';
import type { CampaignStats } from '../commons/voice-api/types.ts';
import { parseDateTimeIn, wallTimeAt } from '../commons/zoned-time.ts';
import type { CampaignStore, TimelineEntry } from './campaign-store.ts';
import { classify, PermanentError } from './errors.ts';
import { nextInterval, type PollBounds, type PollMemory } from './poll-interval.ts';
import { type PartWindow, partWindow } from './window-plan.ts';

/** What the workflow carries from step to step (kept small: the timeline lives in DynamoDB). */
export interface Carry {
  phase?: 'new' | 'reconciling' | 'running';
  next?: 'wait' | 'continue' | 'finish' | 'fail';
  wakeAt?: string;
  agentId?: string;
  campaignId?: string;
  window?: PartWindow;
  /** When the campaign may start dialling (the schedule, moved to the window's opening if needed). */
  startsAt?: string;
  reconcileUntil?: string;
  poll?: PollMemory;
  paused?: 'window' | 'manual' | null;
  outcome?: 'completed' | 'cancelled';
  stats?: CampaignStats;
  failure?: { code: string; message: string };
  /** Steps taken by this execution; state transitions used by earlier executions of the same part. */
  steps?: number;
  generation?: number;
  transitionsBefore?: number;
}

export interface StepInput {
  action: 'checkAgent' | 'createCampaign' | 'step' | 'continueAsNew' | 'finish' | 'fail';
  plan: CampaignPlan;
  carry?: Carry;
  error?: { Error?: string; Cause?: string };
  execution: string;
}

export interface LifecycleSettings {
  windows: Record<string, string>;
  fallbackZone: string;
  poll: PollBounds;
  continueAfterSteps: number;
  /** How long to look for a campaign whose create answer was lost, after it should have started dialling. */
  reconcileMinutes: number;
  eventBusName: string;
}

export interface LifecycleDeps {
  api: VoiceApiClient;
  campaigns: CampaignStore;
  objects: ObjectStore;
  sfn: SFNClient;
  events: EventBridgeClient;
  now: () => Date;
  settings: LifecycleSettings;
}

export const partKeyOf = (plan: CampaignPlan) => partKey(plan.uploadId, plan.part.index);
const iso = (ms: number) => new Date(ms).toISOString();

/** `YYYY-MM-DDTHH:MM:SS` as the clock on the wall in `timeZone` shows the instant. */
function wallIso(ms: number, timeZone: string): string {
  const w = wallTimeAt(ms, timeZone);
  const p = (n: number) => String(n).padStart(2, '0');
  return `${w.year}-${p(w.month)}-${p(w.day)}T${p(w.hour)}:${p(w.minute)}:${p(w.second)}`;
}

/**
 * The campaign lifecycle's decisions, one method per Task state of state-machines/campaign-lifecycle.asl.json.
 * Plain TypeScript: the handler maps the state's input to a method and its answer (or error) back.
 */
export class LifecycleSteps {
  constructor(private readonly deps: LifecycleDeps) {}

  async checkAgent(input: StepInput): Promise<Carry> {
    const found = await lookUpAgent(this.deps.api.agents, input.plan.agentId).catch((err) => {
      throw classify(err, 'checking the agent');
    });
    if (!found.ok) throw new PermanentError(found.code, found.message);
    const { settings } = this.deps;
    return {
      ...input.carry,
      phase: 'new',
      agentId: found.agent.id,
      window: partWindow(input.plan, settings.windows, settings.fallbackZone),
      steps: 0,
      generation: 0,
      transitionsBefore: 0,
    };
  }

  /**
   * Creates the campaign once. Intent is recorded before the call and the id after it; a retry that finds an
   * earlier attempt whose answer was lost does not create again but looks for that campaign's calls.
   */
  async createCampaign(input: StepInput): Promise<Carry> {
    const { plan } = input;
    const carry = input.carry ?? {};
    const window = carry.window as PartWindow;
    const now = this.deps.now();
    const startsAt = this.effectiveStart(plan, window, now.getTime());
    const key = partKeyOf(plan);
    const { mayCreate, record } = await this.deps.campaigns.beginCreate(key, plan.uploadId, plan.part.index, now);
    const base: Carry = { ...carry, startsAt: iso(startsAt) };
    if (record.campaignId) return this.afterCreate(base, record.campaignId, startsAt, now.getTime());
    if (!mayCreate) return this.reconcile(base, startsAt, now.getTime());

    const file = await this.deps.objects.get(plan.bucket, plan.part.key);
    if (!file) throw new PermanentError('part_missing', `the part file s3://${plan.bucket}/${plan.part.key} is gone`);
    const scheduled = startsAt > now.getTime() + 60_000;
    try {
      const campaign = await this.deps.api.campaigns.create({
        file: file.bytes,
        fileName: `part-${plan.part.index}.xlsx`,
        agent_id: plan.agentId,
        name: plan.campaign.name,
        retries: plan.campaign.retries,
        ...(scheduled ? { start_date_time: wallIso(startsAt, window.timeZone), time_zone: window.timeZone } : {}),
      });
      await this.deps.campaigns.created(key, campaign.id);
      return this.afterCreate(base, campaign.id, startsAt, now.getTime());
    } catch (err) {
      if (err instanceof AmbiguousRequestError) {
        await this.deps.campaigns.markCreate(key, 'ambiguous');
        return this.reconcile(base, startsAt, now.getTime());
      }
      await this.deps.campaigns.markCreate(key, 'clear');
      throw classify(err, 'creating the campaign');
    }
  }

  /** One look: manual control, then completion, then the window; acts through the API; says what comes next. */
  async step(input: StepInput): Promise<Carry> {
    const { plan } = input;
    const carry: Carry = { ...input.carry, steps: (input.carry?.steps ?? 0) + 1 };
    const now = this.deps.now().getTime();
    if (carry.phase === 'reconciling') return this.reconcileStep(input, carry, now);
    const id = carry.campaignId as string;
    const key = partKeyOf(plan);
    const record = await this.deps.campaigns.get(key);
    const wanted = record?.control?.wanted ?? null;

    let stats: CampaignStats;
    try {
      stats = await this.deps.api.campaigns.stats(id);
    } catch (err) {
      if (err instanceof NotFoundError)
        return this.failWith(carry, 'campaign_deleted', `campaign ${id} no longer exists in the Voice API`);
      throw classify(err, 'reading campaign stats');
    }
    carry.stats = stats;
    const status = String(stats.status ?? '');
    const remaining = stats.pending + stats.in_progress;
    if (status === 'completed' || (remaining === 0 && status !== 'scheduled'))
      return { ...carry, next: 'finish', outcome: 'completed' };

    if (wanted === 'cancel') {
      if (status === 'active') await this.pause(id, key, now, 'cancel');
      return { ...carry, next: 'finish', outcome: 'cancelled' };
    }
    if (status === 'scheduled') {
      const startsAt = Date.parse(carry.startsAt ?? '') || now + 60_000;
      return { ...carry, next: 'wait', wakeAt: iso(Math.max(startsAt, now + 30_000)) };
    }

    const window = carry.window as PartWindow;
    const w = windowStateAt(window, window.timeZone, now);
    const manual = wanted === 'pause';
    const shouldDial = w.open && !manual;
    if (shouldDial && status === 'paused') {
      await this.call(() => this.deps.api.campaigns.resume(id), 'resuming');
      await this.deps.campaigns.appendTimeline(key, {
        at: iso(now),
        event: 'resume',
        reason: carry.paused ?? 'window',
      });
      carry.paused = null;
      carry.poll = undefined;
    } else if (!shouldDial && status === 'active') {
      const reason = manual ? 'manual' : 'window';
      await this.pause(id, key, now, reason);
      carry.paused = reason;
    } else if (!shouldDial) {
      carry.paused = manual ? 'manual' : 'window';
    }

    let wakeAt: number;
    if (!shouldDial && !manual) {
      if (w.changesAt === null)
        return this.failWith(
          carry,
          'window_never_opens',
          `the calling window (${window.description}) does not open within a year`,
        );
      wakeAt = w.changesAt;
    } else if (manual) {
      wakeAt = now + this.deps.settings.poll.maxSeconds * 1000;
    } else {
      const done = stats.total - remaining;
      const seconds = nextInterval(carry.poll ?? null, now, done, remaining, stats.pending, this.deps.settings.poll);
      carry.poll = { done, at: now, intervalSeconds: seconds };
      wakeAt = Math.min(now + seconds * 1000, w.changesAt ?? Number.POSITIVE_INFINITY);
    }
    const next = (carry.steps ?? 0) >= this.deps.settings.continueAfterSteps ? 'continue' : 'wait';
    return { ...carry, phase: 'running', next, wakeAt: iso(Math.max(wakeAt, now + 1000)) };
  }

  /** Starts the next execution of this part with the carried state, before the history grows too long. */
  async continueAsNew(input: StepInput): Promise<{ execution: string }> {
    const carry = input.carry ?? {};
    const used = await this.transitions(input.execution);
    const generation = (carry.generation ?? 0) + 1;
    const stateMachineArn = stateMachineOf(input.execution);
    const next = { ...carry, steps: 0, generation, transitionsBefore: (carry.transitionsBefore ?? 0) + used };
    const out = await this.deps.sfn.send(
      new StartExecutionCommand({
        stateMachineArn,
        name: continuationName(partKeyOf(input.plan), generation),
        input: JSON.stringify({ plan: input.plan, carry: next }),
      }),
    );
    return { execution: out.executionArn ?? '' };
  }

  async finish(input: StepInput): Promise<{ report: string; status: string }> {
    const carry = input.carry ?? {};
    const status = carry.outcome ?? 'completed';
    return this.close(input, status, carry.stats ?? null, null);
  }

  async fail(input: StepInput): Promise<{ report: string; status: string }> {
    const carry = input.carry ?? {};
    const failure = carry.failure ?? describeError(input.error);
    let stats = carry.stats ?? null;
    if (carry.campaignId) stats = await this.deps.api.campaigns.stats(carry.campaignId).catch(() => stats);
    return this.close(input, 'failed', stats, failure);
  }

  private async close(
    input: StepInput,
    status: 'completed' | 'cancelled' | 'failed',
    stats: CampaignStats | null,
    failure: { code: string; message: string } | null,
  ): Promise<{ report: string; status: string }> {
    const { plan } = input;
    const carry = input.carry ?? {};
    const key = partKeyOf(plan);
    const now = this.deps.now();
    await this.deps.campaigns.finish(key, status, now, failure ?? undefined);
    const record = await this.deps.campaigns.get(key);
    const timeline: TimelineEntry[] = record?.timeline ?? [];
    const transitions = (carry.transitionsBefore ?? 0) + (await this.transitions(input.execution));
    const started = Date.parse(record?.startedAt ?? '') || now.getTime();
    const report = {
      uploadId: plan.uploadId,
      part: plan.part.index,
      of: plan.part.of,
      campaignId: carry.campaignId ?? null,
      campaignName: plan.campaign.name,
      status,
      failure,
      stats,
      window: carry.window
        ? { timeZone: carry.window.timeZone, hours: carry.window.description, source: carry.window.source }
        : null,
      pauses: timeline.filter((t) => t.event === 'pause').map((t) => ({ at: t.at, reason: t.reason })),
      resumes: timeline.filter((t) => t.event === 'resume').map((t) => ({ at: t.at })),
      stateTransitions: transitions,
      executions: (carry.generation ?? 0) + 1,
      startedAt: iso(started),
      finishedAt: now.toISOString(),
      durationSeconds: Math.round((now.getTime() - started) / 1000),
    };
    const reportKey = `${plan.reportPrefix}part-${plan.part.index}.json`;
    await this.deps.objects.put(plan.bucket, reportKey, `${JSON.stringify(report, null, 2)}\n`, 'application/json');
    await this.deps.events.send(
      new PutEventsCommand({
        Entries: [
          {
            EventBusName: this.deps.settings.eventBusName,
            Source: 'callsheet',
            DetailType: status === 'failed' ? 'Campaign Failed' : 'Campaign Completed',
            Detail: JSON.stringify({ ...report, report: `s3://${plan.bucket}/${reportKey}` }),
          },
        ],
      }),
    );
    return { report: `s3://${plan.bucket}/${reportKey}`, status };
  }

  private effectiveStart(plan: CampaignPlan, window: PartWindow, now: number): number {
    const { startDateTime, timeZone } = plan.campaign;
    let start = startDateTime && timeZone ? parseDateTimeIn(startDateTime, timeZone) : now;
    if (Number.isNaN(start) || start < now) start = now;
    const w = windowStateAt(window, window.timeZone, start);
    if (!w.open && w.changesAt !== null) start = w.changesAt;
    return start;
  }

  private afterCreate(carry: Carry, campaignId: string, startsAt: number, now: number): Carry {
    return {
      ...carry,
      phase: 'running',
      campaignId,
      next: 'wait',
      // A first look soon after dialling starts; at the schedule when there is one.
      wakeAt: iso(Math.max(startsAt, now) + this.deps.settings.poll.minSeconds * 1000),
    };
  }

  /** The create answer was lost: look for the campaign by its calls once it should be dialling. */
  private reconcile(carry: Carry, startsAt: number, now: number): Carry {
    const firstLook = Math.max(startsAt, now) + 2 * 60_000;
    return {
      ...carry,
      phase: 'reconciling',
      next: 'wait',
      wakeAt: iso(firstLook),
      reconcileUntil: iso(Math.max(startsAt, now) + this.deps.settings.reconcileMinutes * 60_000),
    };
  }

  private async reconcileStep(input: StepInput, carry: Carry, now: number): Promise<Carry> {
    const { plan } = input;
    const key = partKeyOf(plan);
    const record = await this.deps.campaigns.get(key);
    let campaignId = record?.campaignId ?? null;
    if (!campaignId) campaignId = await this.findCampaignByCalls(plan, record?.create?.sentAt ?? iso(now - 3_600_000));
    if (campaignId) {
      await this.deps.campaigns.created(key, campaignId);
      return { ...carry, phase: 'running', campaignId, next: 'wait', wakeAt: iso(now + 1000) };
    }
    if (now >= Date.parse(carry.reconcileUntil ?? '')) {
      return this.failWith(
        carry,
        'create_outcome_unknown',
        'The request that creates the campaign got no answer and no call of this part has appeared since. It was not sent again, so nobody is dialled twice; check the dashboard, then upload the part again if no campaign exists.',
      );
    }
    return { ...carry, next: 'wait', wakeAt: iso(now + 2 * 60_000) };
  }

  /** A campaign of this agent calling one of this part's numbers since the lost create is this part's. */
  private async findCampaignByCalls(plan: CampaignPlan, since: string): Promise<string | null> {
    const file = await this.deps.objects.get(plan.bucket, plan.part.key);
    if (!file) return null;
    const wb = new ExcelJS.Workbook();
    await wb.xlsx.load(file.bytes as unknown as ArrayBuffer);
    const phones = new Set<string>();
    wb.worksheets[0]?.eachRow((row, n) => {
      if (n > 1) phones.add(String(row.getCell(1).value ?? ''));
    });
    try {
      for await (const call of this.deps.api.calls.listAll({ start_date: since })) {
        if (call.campaign_id && call.agent_id === plan.agentId && phones.has(call.phone_number ?? ''))
          return call.campaign_id;
      }
    } catch (err) {
      throw classify(err, 'looking for the campaign in the call log');
    }
    return null;
  }

  private async pause(id: string, key: string, now: number, reason: TimelineEntry['reason']): Promise<void> {
    await this.call(() => this.deps.api.campaigns.pause(id), 'pausing');
    await this.deps.campaigns.appendTimeline(key, { at: iso(now), event: 'pause', reason });
  }

  private async call<T>(fn: () => Promise<T>, doing: string): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      throw classify(err, `${doing} the campaign`);
    }
  }

  private failWith(carry: Carry, code: string, message: string): Carry {
    return { ...carry, next: 'fail', failure: { code, message } };
  }

  /** State transitions this execution has used so far: the StateEntered events in its history. */
  private async transitions(executionArn: string): Promise<number> {
    let count = 0;
    let nextToken: string | undefined;
    do {
      const out = await this.deps.sfn.send(
        new GetExecutionHistoryCommand({ executionArn, nextToken, maxResults: 1000 }),
      );
      count += (out.events ?? []).filter((e) => e.type?.endsWith('StateEntered')).length;
      nextToken = out.nextToken;
    } while (nextToken);
    return count;
  }
}

/** arn:…:execution:<machine>:<name> → arn:…:stateMachine:<machine> */
function stateMachineOf(executionArn: string): string {
  const [arn, partition, service, region, account, , machine] = executionArn.split(':');
  return [arn, partition, service, region, account, 'stateMachine', machine].join(':');
}

/** The error the state machine caught, as the report shows it; Lambda's Cause is JSON with errorMessage. */
function describeError(error: StepInput['error']): { code: string; message: string } {
  let message = error?.Cause ?? 'unknown failure';
  try {
    const parsed = JSON.parse(message) as { errorMessage?: string };
    if (parsed.errorMessage) message = parsed.errorMessage;
  } catch {
    // a plain-text cause
  }
  const code = /^([a-z_]+): /.exec(message)?.[1] ?? error?.Error ?? 'failed';
  return { code, message };
}
