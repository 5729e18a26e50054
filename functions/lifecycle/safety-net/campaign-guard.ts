import {
  type CampaignPlan,
  continuationName,
  labelOfPartKey,
  partKeyOfExecution,
  partOfKey,
} from '#commons/campaign-plan.ts';
import type { Call } from '#commons/voice-api/types.ts';
import { windowStateAt } from '#commons/window-plan.ts';
import type { CampaignSafety, SecureOutcome } from '../campaign-safety.ts';
import { type CampaignRecord, type CampaignStore, isEnded, quietAt } from '../campaign-store.ts';
import type { Failure } from '../lifecycle-state.ts';
import { buildPartReport, type PartReport } from '../part-report.ts';
import {
  CALL_WATCH_SKEW_MS,
  type CallLog,
  ENDED_WATCH_DAYS,
  endedSince,
  quietSince,
  recentCalls,
  strayCalls,
  type WatchedCampaign,
  type WatchedPart,
} from './call-watch.ts';

/** How an execution ended, as EventBridge's "Step Functions Execution Status Change" event says it. */
export interface ExecutionEnded {
  executionArn: string;
  name: string;
  status: string;
}

/** What the guard may ask of Step Functions about an execution. */
export interface ExecutionReader {
  /** The execution's status and input, or null when there is no such execution. */
  describe(executionArn: string): Promise<{ status: string; input: string } | null>;
}

/** Where the report of a part whose workflow ended without writing one goes. */
export interface PartReports {
  /** Writes the part's report unless it has one already; true when this wrote it. */
  writeIfMissing(plan: CampaignPlan, label: string, report: PartReport): Promise<boolean>;
}

export interface GuardSettings {
  closingMarginMs: number;
  /** How often the sweeper runs: a window that closes before the next sweep must be secured now. */
  sweepIntervalMs: number;
  /** A look this late past its due time counts as a wedged workflow. */
  overdueGraceMs: number;
}

export interface GuardDeps {
  campaigns: CampaignStore;
  safety: CampaignSafety;
  executions: ExecutionReader;
  reports: PartReports;
  /** The account's calls: how the sweeper sees a campaign dialling that callsheet holds paused. */
  calls: CallLog;
  now: () => Date;
  settings: GuardSettings;
}

export interface GuardAction {
  partKey: string;
  campaignId: string | null;
  reasons: string[];
  outcome: SecureOutcome | 'none';
  message: string;
  /** The campaign itself is paused (or not active); false when only the brake, or nothing, holds it. */
  pauseHeld?: boolean;
}

/** How the safety net left a campaign, in words for the part's failure (the report, `run`, `campaign show`). */
export function leftAs(action: Pick<GuardAction, 'outcome' | 'pauseHeld'>): string {
  switch (action.outcome) {
    case 'paused':
      return 'paused';
    case 'not_active':
      return 'not dialling (the API says it is no longer active)';
    case 'braked':
      return action.pauseHeld
        ? 'paused, and its agent switched off too: a resume sent earlier may still land'
        : 'braked: its pause was not confirmed, so its agent is switched off';
    case 'unconfirmed':
      return 'unconfirmed: the API answered neither its pause nor the brake';
    default:
      return 'alone: no campaign was created';
  }
}

/** A part's failure once the safety net acted on it: how its workflow ended, and how the campaign was left. */
function securedFailure(ended: string, by: 'guard' | 'sweeper', action: GuardAction): string {
  return action.outcome === 'none'
    ? `the workflow ${ended} before it created a campaign; nobody was called`
    : `the workflow ${ended}; the ${by} left the campaign ${leftAs(action)}`;
}

/** How long a look that is due may take before the sweeper steps in for the closing window. */
const WORKFLOW_SLACK_MS = 60_000;
/** How many sweeps apart the pause of an ended part the brake alone holds is tried again. */
const BRAKE_ALONE_RETRY_SWEEPS = 3;

/**
 * The safety net outside the workflow. The guard acts when an execution fails, times out or is stopped; the
 * sweeper checks every part the store holds as unfinished. Both leave the vendor campaign paused (or its agent
 * braked) and record why.
 */
export class CampaignGuard {
  constructor(private readonly deps: GuardDeps) {}

  /** An execution ended badly: the campaign it watched has nobody watching it now. */
  async executionEnded(e: ExecutionEnded): Promise<GuardAction> {
    const partKey = partKeyOfExecution(e.name);
    const before = await this.deps.campaigns.get(partKey);
    const ended = e.status.toLowerCase().replace('_', ' ');
    const reasons = [`execution ${e.name} ${ended}`];
    // Ended by its workflow (completed, cancelled, held): nothing is left to secure.
    if (before && isEnded(before) && before.status !== 'failed')
      return { partKey, campaignId: null, reasons, outcome: 'none', message: 'nothing to secure' };
    const code = `workflow_${e.status.toLowerCase()}`;
    const end = before?.status !== 'failed';
    // Even a part with no record yet is ended: the stopped workflow's create step, still running, then finds it
    // ended and creates nothing (or secures what it just made).
    const plan = await this.planOf(e.executionArn);
    // Without the plan (Step Functions did not answer), the part's key still names its upload and part.
    const of = plan ? { uploadId: plan.uploadId, part: plan.part.index } : (partOfKey(partKey) ?? undefined);
    const record =
      before && !end ? before : await this.endBeforeSecuring(partKey, code, `the workflow ${ended}`, 'guard', of);
    const action = await this.secure(record, reasons, true, 'guard', e.executionArn);
    const failure: Failure = {
      code,
      message: securedFailure(ended, 'guard', action),
    };
    const last = end ? await this.deps.campaigns.finish(partKey, 'failed', this.deps.now(), failure) : record;
    await this.reportEnded(plan, partKey, last, failure);
    return action;
  }

  /**
   * A part whose workflow is gone is ended before its campaign is secured, and secured as the end found it. The
   * workflow's last step may still be running (Lambda runs an invocation to its end after the execution stops): a
   * create, resume or release it sends after this finds the part ended when it reads it back, and secures again
   * (LifecycleSteps, `holdIfEnded`); what it did before is in the record answered here. The same write marks its
   * securing unconfirmed: should this invocation die before it records how the securing went (a timeout while the
   * API hangs), the sweeper still lists the part and secures it, where an ended part would be watched by nobody.
   */
  private async endBeforeSecuring(
    partKey: string,
    code: string,
    what: string,
    by: 'guard' | 'sweeper',
    of?: { uploadId: string; part: number },
  ): Promise<CampaignRecord> {
    const message = `${what}; its campaign is being secured`;
    const now = this.deps.now();
    return await this.deps.campaigns.finish(partKey, 'failed', now, { code, message }, of, {
      at: now.toISOString(),
      by,
      outcome: 'unconfirmed',
      reason: message,
    });
  }

  /**
   * Every unfinished part: window closed but not quiet, workflow gone, or its look overdue. Also answers until
   * when no sweep can find anything new without some workflow acting first (`quietUntil`; null: no such instant,
   * only a workflow's act can): the simulated clock of the embedded stack skips the sweeps in between; AWS runs them
   * all. `scanned`: why the parts were found by scanning the table instead of through its status index.
   * `watching`: the campaigns of the parts held paused for a closed window, whose calls the sweep read (`watchCalls`),
   * each with the scheduled start callsheet gave it (`startsAt`) when it has not started yet: `quietUntil` holds only
   * while none of them may be dialling either. `callsUnchecked`: why the calls list could not be read this time.
   */
  async sweep(): Promise<{
    actions: GuardAction[];
    quietUntil: number | null;
    watching: WatchedCampaign[];
    scanned?: string;
    callsUnchecked?: string;
  }> {
    const now = this.deps.now().getTime();
    const { settings } = this.deps;
    const actions: GuardAction[] = [];
    let quietUntil = Number.POSITIVE_INFINITY;
    let scanned: string | undefined;
    /**
     * Parts held paused for a closed window, trusted without asking the API, and parts that ended without completing:
     * their campaigns' calls are watched.
     */
    const watched: WatchedPart[] = [];
    // Read beside the unfinished parts. A list that cannot be read does not keep the held ones unwatched: it fails
    // the sweep once they are.
    const endedRead = this.deps.campaigns
      .endedAfter(new Date(now - ENDED_WATCH_DAYS * 86_400_000), new Date(now), (why) => {
        scanned = why;
      })
      .then(
        (parts) => ({ parts, error: null }),
        (error: unknown) => ({ parts: [], error }),
      );
    const records = await this.deps.campaigns.unfinished({
      unconfirmed: true,
      scanned: (why) => {
        scanned = why;
      },
    });
    for (const record of records) {
      const watch = record.watch;
      if (!watch) {
        // Ended before any look: a create records one, so no campaign can exist. Marked so (secure does), or it
        // would be listed at every sweep.
        if (isEnded(record))
          actions.push(await this.secure(record, ['the part ended before its create'], true, 'sweeper', ''));
        else quietUntil = now;
        continue;
      }
      if (isEnded(record)) {
        // Failed, its last securing unconfirmed (the API down for the guard, say) or held by the brake alone, which
        // lasts only while nobody switches the agent on: nobody else will try again. The brake holds meanwhile, so
        // a pause that keeps failing is tried every few sweeps, not at each: it spends the pauses' own share.
        const unconfirmed = record.secured?.outcome === 'unconfirmed';
        const retryAt = unconfirmed
          ? now
          : Date.parse(record.secured?.at ?? '') + BRAKE_ALONE_RETRY_SWEEPS * settings.sweepIntervalMs || now;
        if (retryAt > now) {
          quietUntil = Math.min(quietUntil, retryAt);
          continue;
        }
        quietUntil = now;
        const reasons = [
          unconfirmed
            ? `the part ended (${record.status}) and its securing was not confirmed`
            : `the part ended (${record.status}) held by the brake alone: its pause is tried again`,
        ];
        actions.push(await this.secure(record, reasons, true, 'sweeper', watch.execution));
        continue;
      }
      const window = windowStateAt(watch.window, now, settings.closingMarginMs);
      const nextLook = Date.parse(watch.nextLookAt);
      // A campaign scheduled for a later start is quiet until then, and dials from then on its own.
      const quiet = quietAt(watch, now);
      // Nothing new before the look is overdue or the window changes. A quiet part only when its workflow ends,
      // which is a workflow acting, or when its scheduled start comes.
      if (!quiet)
        quietUntil = Math.min(
          quietUntil,
          nextLook + settings.overdueGraceMs,
          window.changesAt ?? Number.POSITIVE_INFINITY,
        );
      else {
        if (watch.quietUntil) quietUntil = Math.min(quietUntil, Date.parse(watch.quietUntil));
        // From its close on, a quiet part's campaign is watched through the calls list (`watchCalls`).
        if (window.open && window.changesAt !== null) quietUntil = Math.min(quietUntil, window.changesAt);
      }
      const reasons: string[] = [];
      const closesBeforeNextSweep =
        !window.open || (window.changesAt !== null && window.changesAt - now <= settings.sweepIntervalMs);
      // The workflow looks at the close itself; act only when it will not (its next look is later) or is late.
      const workflowAboutToLook = nextLook <= now && now < nextLook + WORKFLOW_SLACK_MS;
      if (!window.open && !quiet && !workflowAboutToLook)
        reasons.push('the calling window is closed and the campaign was not confirmed paused');
      const running = await this.runningExecution(watch.execution);
      if (!running) reasons.push('its workflow is not running');
      // An overdue look matters while the campaign may be dialling; a quiet one waits for its workflow.
      if (!quiet && now > nextLook + settings.overdueGraceMs)
        reasons.push(`its workflow has not looked at it since ${watch.observedAt} (due ${watch.nextLookAt})`);
      if (reasons.length === 0) {
        // Calls are stray until shortly before the opening, where the workflow resumes it (or its start comes).
        const until = Math.min(now, (window.changesAt ?? Number.POSITIVE_INFINITY) - CALL_WATCH_SKEW_MS);
        const campaignId = watch.campaignId ?? record.campaignId;
        if (quiet && !window.open && campaignId)
          watched.push({
            partKey: record.partKey,
            campaignId,
            since: quietSince(record),
            until,
            startsAt: watch.quietUntil ? Date.parse(watch.quietUntil) : null,
            record,
          });
        continue;
      }
      const current = running
        ? record
        : await this.endBeforeSecuring(record.partKey, 'workflow_stopped', 'the workflow stopped', 'sweeper');
      const action = await this.secure(current, reasons, closesBeforeNextSweep || !running, 'sweeper', watch.execution);
      if (!running) {
        const failure = {
          code: 'workflow_stopped',
          message: securedFailure('stopped without finishing', 'sweeper', action),
        };
        const last = await this.deps.campaigns.finish(record.partKey, 'failed', this.deps.now(), failure);
        await this.reportEnded(await this.planOf(watch.execution), record.partKey, last, failure);
      }
      actions.push(action);
      quietUntil = now;
    }
    // Parts acted on above are left to the next sweep.
    const actedOn = new Set(actions.map((a) => a.partKey));
    const ended = await endedRead;
    for (const part of ended.parts) {
      if (!part.campaignId || actedOn.has(part.partKey)) continue;
      watched.push({
        partKey: part.partKey,
        campaignId: part.campaignId,
        since: endedSince(part),
        until: now,
        startsAt: null,
        ended: part.status,
      });
    }
    let callsUnchecked: string | undefined;
    if (watched.length > 0) {
      const watchedOut = await this.watchCalls(watched, now);
      actions.push(...watchedOut.actions);
      callsUnchecked = watchedOut.unchecked;
    }
    if (ended.error) throw ended.error;
    return {
      actions,
      quietUntil: Number.isFinite(quietUntil) ? quietUntil : null,
      watching: watched.map(({ campaignId, startsAt }) => ({ campaignId, startsAt })),
      ...(scanned === undefined ? {} : { scanned }),
      ...(callsUnchecked === undefined ? {} : { callsUnchecked }),
    };
  }

  /**
   * A part paused for the night is trusted to be paused until its window opens: the workflow asks nothing of the API
   * meanwhile; a part that ended is not looked at again. A campaign resumed behind callsheet's back would dial
   * unnoticed (through the closed window, or past the next close with no workflow to pause it), so each sweep reads
   * the calls placed in the last two sweep intervals (one request, a few when the account is busy) and secures every
   * watched part whose campaign placed one. A few calls may have started by then: this limits the harm, the rule is
   * for people not to resume a campaign outside callsheet (docs/operations.md). A list that cannot be read is
   * answered as `unchecked`; a securing that throws is thrown once the others are done.
   */
  private async watchCalls(
    watched: WatchedPart[],
    now: number,
  ): Promise<{ actions: GuardAction[]; unchecked?: string }> {
    const lookBack = now - 2 * this.deps.settings.sweepIntervalMs;
    const since = Math.max(lookBack, Math.min(...watched.map((w) => w.since)));
    let calls: Call[];
    try {
      calls = await recentCalls(this.deps.calls, new Date(since));
    } catch (err) {
      return { actions: [], unchecked: (err as Error).message };
    }
    const actions: GuardAction[] = [];
    let failed: { error: unknown } | null = null;
    for (const { part, callId, at } of strayCalls(watched, calls)) {
      const reason = part.ended
        ? `its campaign placed call ${callId} at ${at} after its part ended (${part.ended}): it was resumed ` +
          'outside callsheet'
        : `its campaign placed call ${callId} at ${at} while callsheet held it paused for its closed window: it ` +
          'was resumed or started outside callsheet';
      try {
        const record = part.record ?? (await this.deps.campaigns.get(part.partKey));
        if (!record) continue;
        actions.push(await this.secure(record, [reason], true, 'sweeper', record.watch?.execution ?? ''));
      } catch (error) {
        failed ??= { error };
      }
    }
    if (failed) throw failed.error;
    return { actions };
  }

  private async secure(
    record: CampaignRecord,
    reasons: string[],
    brakeOnFailure: boolean,
    by: 'guard' | 'sweeper',
    execution: string,
  ): Promise<GuardAction> {
    const campaignId = record.campaignId ?? null;
    const mayExist = campaignId !== null || record.create?.state === 'sent' || record.create?.state === 'ambiguous';
    if (!mayExist) {
      const message = 'no campaign was created';
      // An ended part (marked unconfirmed when it was ended, or held by the brake alone): nothing to try again at
      // the next sweep.
      if (isEnded(record) && record.secured?.outcome !== 'nothing')
        await this.deps.campaigns.markSecured(record.partKey, {
          at: this.deps.now().toISOString(),
          by,
          outcome: 'nothing',
          reason: message,
        });
      return { partKey: record.partKey, campaignId, reasons, outcome: 'none', message };
    }
    const agentId = record.watch?.agentId ?? (await this.agentOf(execution));
    if (!agentId)
      return { partKey: record.partKey, campaignId, reasons, outcome: 'unconfirmed', message: 'agent unknown' };
    // A resume in doubt may still land after the pause: the agent is switched off too. An ended part the brake
    // alone held has its pause tried again and the brake checked only when that fails: a pause that holds needs no
    // brake, and an operator's `campaign release` (which pauses first) is never undone.
    const inDoubt = record.watch?.resumeInDoubt;
    const why = [...reasons, ...(inDoubt !== undefined ? [`a resume sent at ${inDoubt} is in doubt`] : [])];
    const reason = why.join('; ');
    const { outcome, message, pauseHeld } = await this.deps.safety.secure(
      { campaignId, agentId, holder: record.partKey },
      by,
      { brakeOnFailure, brakeAnyway: inDoubt !== undefined, reason },
    );
    await this.deps.campaigns.markSecured(
      record.partKey,
      { at: this.deps.now().toISOString(), by, outcome, reason, pauseHeld },
      // Secured: the next sweeps need not act again until the workflow looks and says otherwise (unless it did
      // while this action ran).
      outcome !== 'unconfirmed' ? record.watch : undefined,
    );
    return { partKey: record.partKey, campaignId, reasons: why, outcome, message, pauseHeld };
  }

  /**
   * A workflow that ended badly wrote no part report: write one saying why, so `callsheet report`, `run` and an
   * auditor see the part as failed with its reason instead of no report at all. Never in place of a report the
   * workflow wrote. A report that cannot be written is logged by the caller's error boundary, after the campaign
   * was secured.
   */
  private async reportEnded(
    plan: CampaignPlan | null,
    partKey: string,
    record: CampaignRecord,
    failure: Failure,
  ): Promise<void> {
    if (!plan?.bucket || !plan.reportPrefix) return;
    const now = this.deps.now();
    const startedMs = Date.parse(record.startedAt ?? '') || now.getTime();
    const report = buildPartReport({
      plan,
      status: 'failed',
      failure,
      stats: null,
      record,
      window: null,
      campaignId: record.campaignId ?? null,
      closingMarginMs: this.deps.settings.closingMarginMs,
      transitions: 0,
      executions: 1,
      startedMs,
      now,
      outcomes: null,
    });
    await this.deps.reports.writeIfMissing(plan, labelOfPartKey(plan.uploadId, partKey), report);
  }

  private async planOf(executionArn: string): Promise<CampaignPlan | null> {
    const seen = await this.deps.executions.describe(executionArn).catch(() => null);
    try {
      const plan = (JSON.parse(seen?.input ?? '{}') as { plan?: CampaignPlan }).plan;
      return plan ?? null;
    } catch {
      return null;
    }
  }

  /** The execution, or the continuation it started, still running. */
  private async runningExecution(executionArn: string): Promise<boolean> {
    const seen = await this.deps.executions.describe(executionArn);
    if (seen?.status === 'RUNNING') return true;
    if (seen?.status !== 'SUCCEEDED') return false;
    // Continued as new: the next generation carries on (its first look records its own ARN).
    const name = executionArn.split(':').pop() ?? '';
    const generation = Number(/-g(\d+)$/.exec(name)?.[1] ?? 0) + 1;
    const next = executionArn.replace(/:[^:]+$/, `:${continuationName(partKeyOfExecution(name), generation)}`);
    return (await this.deps.executions.describe(next))?.status === 'RUNNING';
  }

  private async agentOf(executionArn: string): Promise<string | null> {
    return (await this.planOf(executionArn))?.agentId ?? null;
  }
}
