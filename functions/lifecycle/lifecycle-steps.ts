import { lookUpAgent } from '#commons/agent-lookup.ts';
import { BudgetExhaustedError } from '#commons/api-budget/errors.ts';
import type { PollRoll } from '#commons/api-budget/poll-roll.ts';
import type { ObjectStore } from '#commons/aws/object-store.ts';
import { type CampaignPlan, continuationName, labelOfPartKey, partKey } from '#commons/campaign-plan.ts';
import type { LegalHoursTable } from '#commons/legal-hours.ts';
import type { OutcomeReporter, PartOutcomes } from '#commons/part-outcomes.ts';
import { quietFrom } from '#commons/plan-load.ts';
import { partReportKey } from '#commons/report-keys.ts';
import type { VoiceApiClient } from '#commons/voice-api/client.ts';
import { AmbiguousRequestError, NotFoundError } from '#commons/voice-api/errors.ts';
import type { CampaignStats } from '#commons/voice-api/types.ts';
import { heldReason, nextOpening, type PartWindow, partWindow, windowStateAt } from '#commons/window-plan.ts';
import { parseDateTimeIn } from '#commons/zoned-time.ts';
import type { CampaignSafety, SecureOutcome } from './campaign-safety.ts';
import { type CampaignRecord, type CampaignStore, isEnded } from './campaign-store.ts';
import {
  afterStep,
  checkedStats,
  type DecideSettings,
  decideReconcile,
  decideStep,
  type EffectResult,
  needsStats,
  type Observation,
  pauseToBook,
  quietOf,
  type StatsSeen,
  type StepDecision,
  startGuardAt,
  statsNotAsked,
} from './decide-step.ts';
import { classify, PermanentError, TransientError } from './errors.ts';
import {
  CARRY_SCHEMA,
  type Carry,
  type EndedCarry,
  type Failure,
  type ReadyCarry,
  type ReconcilingCarry,
  type RunningCarry,
  upgradeCarry,
} from './lifecycle-state.ts';
import { buildPartReport, type PartEndStatus, RESUME_IN_DOUBT } from './part-report.ts';
import { findCampaignByCalls } from './reconcile-create.ts';
import type { CampaignEvents, LifecycleWorkflow } from './workflow.ts';

export interface StepInput {
  action: 'checkAgent' | 'createCampaign' | 'step' | 'continueAsNew' | 'secure' | 'finish' | 'fail';
  plan: CampaignPlan;
  carry?: unknown;
  error?: { Error?: string; Cause?: string };
  secured?: { outcome?: string; message?: string };
  execution: string;
}

export interface LifecycleSettings extends DecideSettings {
  legalHours: LegalHoursTable;
  /** A part whose window does not open within this look-ahead is held, not dialled. */
  holdHorizonMs: number;
  /** How long to look for a campaign whose create answer was lost, after it should have started dialling. */
  reconcileMinutes: number;
}

/** The parts of the Voice API the lifecycle uses; the function's bundle carries only these. */
export type LifecycleApi = Pick<VoiceApiClient, 'agents' | 'campaigns' | 'calls'>;

export interface LifecycleDeps {
  /** Launches, resumes and everything else but the looks' stats (the lifecycle's share of the budget). */
  api: LifecycleApi;
  /** The stats each look asks (the polls' share, below launches and resumes; see build-steps.ts). */
  polls: LifecycleApi;
  campaigns: CampaignStore;
  safety: CampaignSafety;
  objects: ObjectStore;
  workflow: LifecycleWorkflow;
  events: CampaignEvents;
  now: () => Date;
  settings: LifecycleSettings;
  /** Per-contact outcomes, suppressed numbers and follow-up rounds at a part's end; null: counts only. */
  outcomes: OutcomeReporter | null;
  /** The parts polling on the account's plan (with a shared budget): polls are spaced to share it. */
  pollRoll?: PollRoll | null;
  /** Where a part books the minute of its next pause, so other callers leave it a token then. */
  pauseBook?: { book(part: string, at: number): Promise<void> } | null;
}

/** A part's lasting key; a follow-up round has its own (functions/commons/campaign-plan.ts, followUpKey). */
export const partKeyOf = (plan: CampaignPlan) => plan.followUp?.partKey ?? partKey(plan.uploadId, plan.part.index);
const iso = (ms: number) => new Date(ms).toISOString();

/** `YYYY-MM-DDTHH:MM:SS` in UTC: a schedule no DST overlap can make ambiguous. */
const utcWall = (ms: number) => new Date(Math.ceil(ms / 1000) * 1000).toISOString().slice(0, 19);

/**
 * The campaign lifecycle's effects, one method per Task state of state-machines/campaign-lifecycle.asl.json. The
 * decisions are pure functions (decide-step.ts); this class gathers what they need and carries out their answer.
 */
export class LifecycleSteps {
  constructor(private readonly deps: LifecycleDeps) {}

  private window(plan: CampaignPlan): PartWindow {
    const result = partWindow(plan, this.deps.settings.legalHours, this.deps.now().getTime());
    if (!result.ok) throw new PermanentError(result.code, result.message);
    return result.window;
  }

  async checkAgent(input: StepInput): Promise<ReadyCarry> {
    const found = await lookUpAgent(this.deps.api.agents, input.plan.agentId).catch((err) => {
      throw classify(err, 'checking the agent');
    });
    if (!found.ok) throw new PermanentError(found.code, found.message);
    return {
      schema: CARRY_SCHEMA,
      phase: 'ready',
      agentId: found.agent.id,
      window: this.window(input.plan),
      steps: 0,
      generation: 0,
      transitionsBefore: 0,
    };
  }

  /**
   * Creates the campaign once, to start now only if calls may start now, else scheduled for the window's next
   * opening; held (never created) when the window does not open within the look-ahead. Intent is recorded before
   * the call and the id after it; a retry that finds an earlier attempt whose answer was lost looks for that
   * campaign's calls instead of creating again.
   */
  async createCampaign(input: StepInput): Promise<Carry> {
    const { plan } = input;
    const carry = this.upgraded(input);
    if (carry.phase !== 'ready') throw new PermanentError('bad_phase', `createCampaign in phase ${carry.phase}`);
    const { settings } = this.deps;
    const now = this.deps.now();
    const requested = this.requestedStart(plan, now.getTime());
    const opening = nextOpening(carry.window, requested, quietFrom(settings), settings.holdHorizonMs);
    if (!opening) {
      const why = heldReason(carry.window, requested, settings.holdHorizonMs, settings);
      const failure = {
        code: why.code,
        message: `held, not dialled: the calling window (${carry.window.description}) ${why.words} after ${iso(requested)}${why.code === 'window_too_short' ? '; give a longer window' : ''}`,
      };
      return {
        ...carry,
        phase: 'ended',
        campaignId: null,
        outcome: 'held',
        stats: null,
        next: 'finish',
        failure,
      };
    }
    const immediate = opening.opensAt <= now.getTime();
    const startsAt = immediate ? now.getTime() : opening.opensAt;
    const key = partKeyOf(plan);
    // Until its first look the create is the look the sweeper checks: quiet when scheduled for a later opening, but
    // only until that opening (the campaign dials from then on its own), with the first look the workflow plans.
    const { mayCreate, record } = await this.deps.campaigns.beginCreate(key, plan.uploadId, plan.part.index, now, {
      execution: input.execution,
      agentId: carry.agentId,
      campaignId: null,
      window: carry.window,
      observedAt: iso(now.getTime()),
      nextLookAt: iso(immediate ? now.getTime() : this.firstLookAt(carry, startsAt, now.getTime())),
      quiet: !immediate,
      ...(immediate ? {} : { quietUntil: iso(startsAt) }),
      counts: null,
    });
    if (isEnded(record)) {
      // This workflow was stopped and the guard ended the part first. Secure only what an earlier attempt may
      // have made: with nothing sent, nothing was created and the agent stays as it is.
      const sent = record.campaignId || record.create?.state === 'sent' || record.create?.state === 'ambiguous';
      if (sent) await this.secureEnded(key, record, record.campaignId ?? null, carry.agentId);
      throw new PermanentError(
        'part_ended',
        `the part ended (${record.failure?.message ?? record.status}) before its campaign was created`,
      );
    }
    if (record.campaignId) return this.afterCreate(carry, record.campaignId, startsAt, now.getTime());
    if (!mayCreate) return this.reconcile(carry, startsAt, now.getTime());

    const file = await this.deps.objects.get(plan.bucket, plan.part.key);
    if (!file) throw new PermanentError('part_missing', `the part file s3://${plan.bucket}/${plan.part.key} is gone`);
    let campaignId: string;
    try {
      const campaign = await this.deps.api.campaigns.create({
        file: file.bytes,
        fileName: `part-${plan.part.index}.xlsx`,
        agent_id: plan.agentId,
        name: plan.campaign.name,
        retries: plan.campaign.retries,
        ...(immediate ? {} : { start_date_time: utcWall(startsAt), time_zone: 'UTC' }),
      });
      campaignId = campaign.id;
    } catch (err) {
      if (err instanceof AmbiguousRequestError) {
        await this.deps.campaigns.markCreate(key, 'ambiguous');
        return this.reconcile(carry, startsAt, now.getTime());
      }
      await this.deps.campaigns.markCreate(key, 'clear');
      throw classify(err, 'creating the campaign');
    }
    // Outside the try: the campaign exists, so no error from here on may mark the create clear (a retry would
    // create a second one); a create left `sent` is looked for instead.
    if (!(await this.deps.campaigns.created(key, campaignId))) await this.holdIfEnded(key, campaignId, carry.agentId);
    return this.afterCreate(carry, campaignId, startsAt, now.getTime());
  }

  /** One look: gathers the operator's wish and the stats, lets decideStep choose, acts, and records the look. */
  async step(input: StepInput): Promise<Carry> {
    const base = this.upgraded(input);
    if (base.phase !== 'running' && base.phase !== 'reconciling')
      throw new PermanentError('bad_phase', `step in phase ${base.phase}`);
    const carry = { ...base, steps: base.steps + 1 };
    const now = this.deps.now().getTime();
    const next =
      carry.phase === 'reconciling' ? await this.reconcileStep(input, carry, now) : await this.watch(input, carry, now);
    await this.record(input, next, now);
    return next;
  }

  private async watch(input: StepInput, carry: RunningCarry, now: number): Promise<Carry> {
    const key = partKeyOf(input.plan);
    const record = await this.deps.campaigns.get(key);
    const control = record?.control?.wanted ?? null;
    const stats: StatsSeen = needsStats(carry, now, this.deps.settings, control)
      ? await this.stats(carry.campaignId)
      : statsNotAsked(carry, now);
    const seen: Observation = { control, stats };
    if (stats.kind === 'ok' && this.deps.pollRoll) seen.pollers = await this.deps.pollRoll.note(key, now);
    // The guard or the sweeper may have pulled the brake for this part: then it is this part's to release.
    if (!carry.brake && (await this.deps.campaigns.isHeldBy(carry.agentId, key)))
      carry.brake = { since: record?.secured?.at ?? iso(now) };
    // A resume this step's first try sent before it failed (a retry starts from the carry before it).
    if (carry.resumeInDoubt === undefined && record?.watch?.resumeInDoubt !== undefined)
      carry.resumeInDoubt = record.watch.resumeInDoubt;
    const decision = decideStep(carry, seen, now, this.deps.settings);
    const effect = await this.act(key, carry, decision, seen, now);
    const next = afterStep(carry, seen, decision, effect, now, this.deps.settings);
    const pauseAt = next.phase === 'running' ? pauseToBook(next, now, this.deps.settings) : null;
    if (pauseAt !== null && this.deps.pauseBook) await this.deps.pauseBook.book(key, pauseAt);
    return next;
  }

  private async stats(campaignId: string, via: LifecycleApi = this.deps.polls): Promise<StatsSeen> {
    try {
      return checkedStats({ kind: 'ok', stats: await via.campaigns.stats(campaignId) });
    } catch (err) {
      if (err instanceof NotFoundError) return { kind: 'gone' };
      if (err instanceof BudgetExhaustedError)
        return { kind: 'unavailable', message: err.message, retryAt: err.retryAt };
      return { kind: 'unavailable', message: (err as Error).message };
    }
  }

  private async act(
    key: string,
    carry: RunningCarry,
    decision: StepDecision,
    seen: Observation,
    now: number,
  ): Promise<EffectResult> {
    const { safety, campaigns } = this.deps;
    switch (decision.kind) {
      case 'secure': {
        const { outcome, message, pauseHeld } = await safety.secure(
          { campaignId: carry.campaignId, agentId: carry.agentId, holder: key },
          'workflow',
          {
            brakeOnFailure: decision.brakeOnFailure,
            brakeAnyway: decision.brakeAnyway,
            reason: decision.brakeAnyway ? RESUME_IN_DOUBT : decision.reason,
          },
        );
        if (outcome === 'unconfirmed') return { kind: 'unconfirmed', message };
        // A cancelled part ends here: held by the brake alone, it is the sweeper's to pause (`pauseHeld`).
        if (decision.reason === 'cancel')
          await campaigns.markSecured(key, { at: iso(now), by: 'workflow', outcome, reason: 'cancel', pauseHeld });
        if (decision.brakeAnyway) {
          // Asked to brake anyway, only a brake that holds is secured (`braked`).
          if (carry.paused === null)
            await campaigns.appendTimeline(key, { at: iso(now), event: 'pause', reason: decision.reason });
          if (carry.brake === null)
            await campaigns.appendTimeline(key, { at: iso(now), event: 'brake', reason: RESUME_IN_DOUBT });
        } else if (outcome === 'paused' || (outcome === 'braked' && carry.paused === null) || carry.securingSince)
          await campaigns.appendTimeline(key, {
            at: iso(now),
            event: outcome === 'braked' ? 'brake' : 'pause',
            reason: decision.reason,
          });
        if (outcome === 'braked') return { kind: 'secured', how: outcome, pauseHeld };
        // The brake pulled before the start for an operator's pause holds back every part on the agent: the
        // campaign now paused, it is let go.
        if (outcome === 'paused' && carry.brake?.forStart && (await safety.releaseBrake(carry.agentId, key)).ok) {
          await campaigns.appendTimeline(key, { at: iso(now), event: 'brake released', reason: decision.reason });
          return { kind: 'secured', how: outcome, brakeReleased: true };
        }
        return { kind: 'secured', how: outcome };
      }
      case 'resume': {
        const effect = await this.resume(key, carry, seen, now);
        const inDoubt = carry.resumeInDoubt !== undefined || (effect.kind === 'resume_failed' && effect.inDoubt);
        await this.holdIfEnded(key, carry.campaignId, carry.agentId, inDoubt);
        return effect;
      }
      case 'watch':
        // The operator's pause, made at once by the CLI: the timeline and the report show it as theirs.
        if (decision.pausedByOperator)
          await campaigns.appendTimeline(key, { at: iso(now), event: 'pause', reason: 'manual' });
        return { kind: 'none' };
      case 'finish':
      case 'fail':
        if (carry.brake && (await safety.releaseBrake(carry.agentId, key)).ok)
          await campaigns.appendTimeline(key, { at: iso(now), event: 'brake released', reason: decision.kind });
        return { kind: 'none' };
      default:
        return { kind: 'none' };
    }
  }

  /** Releases the brake this part holds and resumes the campaign if it is paused. */
  private async resume(key: string, carry: RunningCarry, seen: Observation, now: number): Promise<EffectResult> {
    const { safety, campaigns, api } = this.deps;
    // An operator's pause or cancel recorded since this look read the record (the CLI then pauses the campaign at
    // once, so this look may have found it paused for that): not undone here. The next look, soon, acts on it.
    const wanted = (await campaigns.get(key))?.control?.wanted;
    if (wanted === 'pause' || wanted === 'cancel')
      return {
        kind: 'resume_failed',
        message: `an operator asked to ${wanted} it`,
        inDoubt: false,
        brakeReleased: false,
      };
    if (carry.brake) {
      const released = await safety.releaseBrake(carry.agentId, key);
      if (!released.ok)
        return { kind: 'resume_failed', message: released.message, inDoubt: false, brakeReleased: false };
      await campaigns.appendTimeline(key, { at: iso(now), event: 'brake released', reason: 'window' });
    }
    const status = seen.stats.kind === 'ok' ? String(seen.stats.stats.status ?? '') : 'paused';
    if (status === 'paused') {
      await campaigns.noteResumeSent(key, iso(now));
      try {
        await api.campaigns.resume(carry.campaignId);
      } catch (err) {
        // A lost or refused answer: the stats tell whether the resume took effect. A lost one not yet taken may
        // still be (the API may act on it late), so it stays in doubt (see decideStep).
        const after = await this.stats(carry.campaignId, api);
        const active = after.kind === 'ok' && String(after.stats.status ?? '') === 'active';
        if (!active)
          return {
            kind: 'resume_failed',
            message: (err as Error).message,
            inDoubt: err instanceof AmbiguousRequestError,
            brakeReleased: carry.brake !== null,
          };
      }
      await campaigns.appendTimeline(key, { at: iso(now), event: 'resume', reason: carry.paused ?? 'window' });
    }
    return { kind: 'resumed' };
  }

  /**
   * After a resume or a brake's release: this look may be the last of a workflow stopped meanwhile (Lambda runs an
   * invocation to its end), and its resume or release may have reached the API after the guard's pause or brake
   * (the same holder's: a release lets go of the guard's brake too). The guard ends the part before it secures it
   * (CampaignGuard), so a part found ended here is secured again and the look fails.
   */
  private async holdIfEnded(key: string, campaignId: string | null, agentId: string, inDoubt = false): Promise<void> {
    const record = await this.deps.campaigns.get(key);
    if (record && isEnded(record)) await this.secureEnded(key, record, campaignId, agentId, inDoubt);
  }

  /** Secures again what a step did for a part found ended, records it, and fails the step. */
  private async secureEnded(
    key: string,
    record: CampaignRecord,
    campaignId: string | null,
    agentId: string,
    /** A resume of this part's may still land after the pause (`resumeInDoubt`). */
    inDoubt = false,
  ): Promise<never> {
    const { outcome, message, pauseHeld } = await this.deps.safety.secure(
      { campaignId, agentId, holder: key },
      'workflow',
      { brakeOnFailure: true, brakeAnyway: inDoubt, reason: 'part_ended' },
    );
    const reason = 'the part ended while its last step was running';
    // Recorded as a safety action: an unconfirmed one, or one the brake alone holds, is tried again by the sweeper.
    const at = this.deps.now().toISOString();
    await this.deps.campaigns.markSecured(key, { at, by: 'workflow', outcome, reason, pauseHeld });
    await this.deps.campaigns.appendTimeline(key, { at, event: outcome === 'braked' ? 'brake' : 'pause', reason });
    throw new PermanentError(
      'part_ended',
      `the part ended (${record.failure?.message ?? record.status}) while its last step was running; secured again, ${outcome}: ${message}`,
    );
  }

  /** What the sweeper needs to check this part without the workflow: the look it made and the next one due. */
  private async record(input: StepInput, next: Carry, now: number): Promise<void> {
    if (next.phase !== 'running' && next.phase !== 'reconciling') return;
    await this.deps.campaigns.observe(partKeyOf(input.plan), {
      execution: input.execution,
      agentId: next.agentId,
      campaignId: next.phase === 'running' ? next.campaignId : null,
      window: next.window,
      observedAt: iso(now),
      nextLookAt: next.wakeAt ?? iso(now),
      ...quietOf(next),
      ...(next.phase === 'running' && next.resumeInDoubt !== undefined ? { resumeInDoubt: next.resumeInDoubt } : {}),
      counts:
        next.phase === 'running' && next.stats
          ? {
              total: next.stats.total,
              completed: next.stats.completed,
              failed: next.stats.failed,
              pending: next.stats.pending,
              in_progress: next.stats.in_progress,
            }
          : null,
    });
  }

  /** Starts the next execution of this part with the carried state, before the history grows too long. */
  async continueAsNew(input: StepInput): Promise<{ execution: string }> {
    const carry = this.upgraded(input);
    if (carry.phase === 'new') throw new PermanentError('bad_phase', 'continueAsNew before the agent check');
    const used = await this.deps.workflow.transitions(input.execution);
    const generation = carry.generation + 1;
    const next = { ...carry, steps: 0, generation, transitionsBefore: carry.transitionsBefore + used };
    const name = continuationName(partKeyOf(input.plan), generation);
    return { execution: await this.deps.workflow.continueAs(input.execution, name, { plan: input.plan, carry: next }) };
  }

  /**
   * SecureCampaign: every path out of the normal loop passes here before RecordFailure. The campaign is paused
   * (or the agent braked); an unconfirmed outcome is an error, so the document retries it, then records anyway.
   */
  async secure(input: StepInput): Promise<{ outcome: SecureOutcome | 'nothing'; message: string }> {
    const key = partKeyOf(input.plan);
    const record = await this.deps.campaigns.get(key);
    const carry = upgradeCarry(input.carry).carry;
    const campaignId = record?.campaignId ?? ('campaignId' in carry ? carry.campaignId : null) ?? null;
    const mayExist = campaignId !== null || record?.create?.state === 'sent' || record?.create?.state === 'ambiguous';
    if (!mayExist) return { outcome: 'nothing', message: 'no campaign was created' };
    const agentId = ('agentId' in carry && carry.agentId) || input.plan.agentId;
    const result = await this.deps.safety.secure({ campaignId, agentId, holder: key }, 'secure-step', {
      brakeOnFailure: true,
      reason: describeError(input.error).code,
    });
    await this.deps.campaigns.markSecured(key, {
      at: this.deps.now().toISOString(),
      by: 'workflow',
      outcome: result.outcome,
      reason: describeError(input.error).message,
      pauseHeld: result.pauseHeld,
    });
    if (result.outcome === 'unconfirmed') throw new TransientError(`securing the campaign: ${result.message}`);
    return result;
  }

  async finish(input: StepInput): Promise<{ report: string; status: string }> {
    const carry = this.upgraded(input);
    const ended = carry.phase === 'ended' ? carry : null;
    const status = ended?.outcome ?? 'completed';
    return this.close(input, status, ended?.stats ?? null, status === 'held' ? (ended?.failure ?? null) : null);
  }

  async fail(input: StepInput): Promise<{ report: string; status: string }> {
    const carry = upgradeCarry(input.carry).carry;
    const failure = carry.failure ?? describeError(input.error);
    let stats = 'stats' in carry ? (carry.stats ?? null) : null;
    const campaignId = 'campaignId' in carry ? carry.campaignId : null;
    if (campaignId) stats = await this.deps.api.campaigns.stats(campaignId).catch(() => stats);
    return this.close(input, 'failed', stats, failure);
  }

  private async close(
    input: StepInput,
    status: PartEndStatus,
    stats: CampaignStats | null,
    failure: Failure | null,
  ): Promise<{ report: string; status: string }> {
    const { plan } = input;
    const carry = upgradeCarry(input.carry).carry;
    const key = partKeyOf(plan);
    const now = this.deps.now();
    await this.deps.campaigns.finish(key, status, now, failure ?? undefined, {
      uploadId: plan.uploadId,
      part: plan.part.index,
    });
    const record = await this.deps.campaigns.get(key);
    const known = carry.phase === 'new' ? null : carry;
    const transitions = (known?.transitionsBefore ?? 0) + (await this.deps.workflow.transitions(input.execution));
    const started = Date.parse(record?.startedAt ?? '') || now.getTime();
    const campaignId = record?.campaignId ?? (known && 'campaignId' in known ? known.campaignId : null) ?? null;
    const label = labelOfPartKey(plan.uploadId, key);
    const report = buildPartReport({
      plan,
      status,
      failure,
      stats,
      record,
      window: known?.window ?? null,
      campaignId,
      closingMarginMs: this.deps.settings.closingMarginMs,
      transitions,
      executions: (known?.generation ?? 0) + 1,
      startedMs: started,
      now,
      outcomes: await this.outcomesAtEnd(input, key, label, campaignId, status, started, now),
    });
    const reportKey = partReportKey(plan.reportPrefix, label);
    await this.deps.objects.put(plan.bucket, reportKey, `${JSON.stringify(report, null, 2)}\n`, 'application/json');
    await this.deps.events.publish(status === 'failed' ? 'Campaign Failed' : 'Campaign Completed', {
      ...report,
      report: `s3://${plan.bucket}/${reportKey}`,
    });
    return { report: `s3://${plan.bucket}/${reportKey}`, status };
  }

  /**
   * The per-contact outcomes of a campaign that was created (exports, numbers suppressed while it ran, follow-up
   * rounds). A failure here is reported in the part's report, never in place of it: the report and the completion
   * event matter more than the export, which `callsheet campaign outcomes` can produce later.
   */
  private async outcomesAtEnd(
    input: StepInput,
    key: string,
    label: string,
    campaignId: string | null,
    status: PartEndStatus,
    started: number,
    now: Date,
  ): Promise<PartOutcomes | { error: string } | null> {
    if (!this.deps.outcomes || !campaignId || status === 'held') return null;
    try {
      return await this.deps.outcomes.atPartEnd({
        plan: input.plan,
        partKey: key,
        label,
        campaignId,
        status,
        startedAt: new Date(started),
        endedAt: now,
        execution: input.execution,
      });
    } catch (err) {
      return { error: `outcomes not recorded: ${(err as Error).message}` };
    }
  }

  /** The carry of any schema; a window written by older code is rebuilt from the plan. */
  private upgraded(input: StepInput): Carry {
    const { carry, windowStale } = upgradeCarry(input.carry);
    if (!windowStale || carry.phase === 'new') return carry;
    return { ...carry, window: this.window(input.plan) };
  }

  private requestedStart(plan: CampaignPlan, now: number): number {
    const { startDateTime, timeZone } = plan.campaign;
    const start = startDateTime && timeZone ? parseDateTimeIn(startDateTime, timeZone) : now;
    return Number.isNaN(start) || start < now ? now : start;
  }

  /**
   * A first look soon after dialling starts (at the schedule when there is one), and never after the close. A
   * scheduled one is looked at the pause lead before its start too, for an operator's pause (decideStep).
   */
  private firstLookAt(carry: ReadyCarry, startsAt: number, now: number): number {
    const { settings } = this.deps;
    const window = windowStateAt(carry.window, Math.max(startsAt, now), quietFrom(settings));
    const startGuard = startGuardAt(startsAt, settings);
    return Math.min(
      startGuard > now ? startGuard : Math.max(startsAt, now) + settings.poll.minSeconds * 1000,
      window.open && window.changesAt !== null ? window.changesAt : Number.POSITIVE_INFINITY,
    );
  }

  private afterCreate(carry: ReadyCarry, campaignId: string, startsAt: number, now: number): RunningCarry {
    const firstLook = this.firstLookAt(carry, startsAt, now);
    return {
      ...carry,
      phase: 'running',
      campaignId,
      startsAt: iso(startsAt),
      paused: null,
      securingSince: null,
      brake: null,
      poll: null,
      stats: null,
      next: 'wait',
      wakeAt: iso(Math.max(firstLook, now + 1000)),
    };
  }

  /** The create answer was lost: look for the campaign by its calls; near a close, brake the agent meanwhile. */
  private reconcile(carry: ReadyCarry, startsAt: number, now: number): ReconcilingCarry {
    const state: ReconcilingCarry = {
      ...carry,
      phase: 'reconciling',
      startsAt: iso(startsAt),
      reconcileUntil: iso(Math.max(startsAt, now) + this.deps.settings.reconcileMinutes * 60_000),
      brake: null,
    };
    const look = decideReconcile(state, null, now, this.deps.settings);
    const wake = look.kind === 'look_again' ? look.wakeAt : now + 1000;
    return { ...state, next: 'wait', wakeAt: iso(wake) };
  }

  private async reconcileStep(input: StepInput, carry: ReconcilingCarry, now: number): Promise<Carry> {
    const { plan } = input;
    const key = partKeyOf(plan);
    const record = await this.deps.campaigns.get(key);
    let campaignId = record?.campaignId ?? null;
    if (!campaignId) {
      try {
        campaignId = await findCampaignByCalls(
          this.deps.api,
          this.deps.objects,
          plan,
          record?.create?.sentAt ?? iso(now - 3_600_000),
        );
      } catch (err) {
        // The call log did not answer: this look found nothing; the brake logic below still applies.
        if (!(err instanceof Error)) throw err;
      }
    }
    const decision = decideReconcile(carry, campaignId, now, this.deps.settings);
    switch (decision.kind) {
      case 'found':
        if (!(await this.deps.campaigns.created(key, decision.campaignId)))
          await this.holdIfEnded(key, decision.campaignId, carry.agentId);
        return {
          ...this.afterCreate(
            { ...carry, phase: 'ready' },
            decision.campaignId,
            Date.parse(carry.startsAt) || now,
            now,
          ),
          brake: carry.brake,
          wakeAt: iso(now + 1000),
        };
      case 'brake': {
        const braked = await this.deps.safety.secure(
          { campaignId: null, agentId: carry.agentId, holder: key },
          'workflow',
          { brakeOnFailure: true, reason: 'window' },
        );
        const brake = braked.outcome === 'braked' ? { since: iso(now) } : null;
        const wake = brake ? windowStateAt(carry.window, now, 0).changesAt : null;
        return { ...carry, brake, next: 'wait', wakeAt: iso(wake ?? now + this.deps.settings.secureRetryMs) };
      }
      case 'release': {
        const released = await this.deps.safety.releaseBrake(carry.agentId, key);
        await this.holdIfEnded(key, null, carry.agentId);
        return {
          ...carry,
          brake: released.ok ? null : carry.brake,
          next: 'wait',
          wakeAt: iso(now + this.deps.settings.secureRetryMs),
        };
      }
      case 'look_again':
        return { ...carry, next: 'wait', wakeAt: iso(decision.wakeAt) };
      case 'give_up': {
        const ended: EndedCarry = {
          ...carry,
          phase: 'ended',
          campaignId: null,
          outcome: 'completed',
          stats: null,
          next: 'fail',
          failure: {
            code: 'create_outcome_unknown',
            message:
              'The request that creates the campaign got no answer and no call of this part has appeared since. It was not sent again, so nobody is dialled twice; check the dashboard, then upload the part again if no campaign exists.',
          },
        };
        return ended;
      }
    }
  }
}

/** The error the state machine caught, as the report shows it; Lambda's Cause is JSON with errorMessage. */
export function describeError(error: StepInput['error']): Failure {
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
