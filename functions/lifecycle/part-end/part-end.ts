import type { ObjectStore } from '#commons/aws/object-store.ts';
import { type CampaignPlan, followUpKey, labelOfPartKey, stateMachineOf } from '#commons/campaign-plan.ts';
import type { FrequencyCapStore } from '#commons/frequency-cap-store.ts';
import type { LifecycleStarter } from '#commons/lifecycle-starter.ts';
import type { Log } from '#commons/log.ts';
import type { ContactOutcome } from '#commons/outcomes/call-outcome.ts';
import type { OutcomeService } from '#commons/outcomes/outcome-service.ts';
import type { FollowUpStarted, OutcomeReporter, PartEnd, PartOutcomes } from '#commons/part-outcomes.ts';
import { partReportKey } from '#commons/report-keys.ts';
import type { PartRow } from '#commons/spreadsheet/part-file.ts';
import type { SuppressionList } from '#commons/suppression-list.ts';
import { writeOutcomeReport } from './campaign-report.ts';
import { type FollowUpGroup, planFollowUp } from './follow-up.ts';
import { type FollowUpRegister, RootReport } from './root-report.ts';

export interface PartEndDeps {
  outcomes: OutcomeService;
  suppression: Pick<SuppressionList, 'matching'>;
  caps: Pick<FrequencyCapStore, 'admitAll'>;
  objects: ObjectStore;
  /** Where the rounds started under a root part are recorded, for its report. */
  rounds: FollowUpRegister;
  /** Starts executions on the state machine of the given ARN, at most once per name. */
  starter: (stateMachineArn: string) => LifecycleStarter;
  log: Log;
  now: () => Date;
}

const XLSX_TYPE = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

/** `YYYY-MM-DDTHH:MM:SS` in UTC, rounded up to the second. */
const utcWall = (ms: number) => new Date(Math.ceil(ms / 1000) * 1000).toISOString().slice(0, 19);

/**
 * At a part's end: reconciles its outcomes from the calls list, writes the per-contact export next to the part's
 * report, names the numbers suppressed while it ran and, when the upload asked for follow-up rounds and the
 * campaign completed, starts the next round of each rule as a new lifecycle execution of just those contacts
 * (minus suppressed and capped numbers). Safe to repeat: the same files are written and Step Functions refuses a
 * second execution of a round's name.
 */
export class PartEndOutcomes implements OutcomeReporter {
  private readonly rootReport: RootReport;

  constructor(private readonly deps: PartEndDeps) {
    this.rootReport = new RootReport(deps);
  }

  async atPartEnd(end: PartEnd): Promise<PartOutcomes> {
    const { plan } = end;
    const report = await writeOutcomeReport(this.deps.outcomes, this.deps.objects, {
      bucket: plan.bucket,
      reportPrefix: plan.reportPrefix,
      part: end.label,
      campaignId: end.campaignId,
      since: end.startedAt,
    });
    const suppressedNow = await this.deps.suppression.matching(report.contacts.map((c) => c.phone));
    const suppressedMidCampaign = [...new Set([...report.suppressedMidCampaign, ...suppressedNow])].sort();
    const byLastStatus: Record<string, number> = {};
    for (const c of report.contacts) byLastStatus[c.lastStatus] = (byLastStatus[c.lastStatus] ?? 0) + 1;
    return {
      contacts: report.contacts.length,
      attempts: report.contacts.reduce((s, c) => s + c.attempts, 0),
      byLastStatus,
      exports: report.keys,
      suppressedMidCampaign,
      followUp: plan.followUp ? await this.followUp(end, report.contacts, new Set(suppressedMidCampaign)) : null,
    };
  }

  private async followUp(
    end: PartEnd,
    contacts: ContactOutcome[],
    suppressed: ReadonlySet<string>,
  ): Promise<NonNullable<PartOutcomes['followUp']>> {
    const { plan } = end;
    const follow = plan.followUp as NonNullable<CampaignPlan['followUp']>;
    const rootLabel = `${plan.part.index}`;
    const out: NonNullable<PartOutcomes['followUp']> = {
      round: follow.round,
      rootPartKey: follow.rootPartKey,
      rootReport: `s3://${plan.bucket}/${partReportKey(plan.reportPrefix, rootLabel)}`,
      started: [],
      skipped: [],
      none: null,
    };
    if (end.status !== 'completed') {
      out.none = `the campaign ended ${end.status}: no follow-up round`;
      return out;
    }
    const next = planFollowUp(contacts, follow.policy, follow.round, end.endedAt, suppressed);
    if (!next) {
      out.none =
        follow.round > follow.policy.maxRounds
          ? `the last of ${follow.policy.maxRounds} follow-up round(s)`
          : 'no contact needs another call';
      return out;
    }
    out.skipped.push(...next.skipped);
    const sheet = next.groups.length > 0 ? await this.sheetRows(plan) : new Map<string, PartRow>();
    for (const group of next.groups) {
      const started = await this.startRound(end, next.round, group, sheet, out.skipped);
      if (started) out.started.push(started);
    }
    if (out.started.length === 0) out.none = 'every contact to call again was suppressed or over its cap';
    await this.rootReport.listRounds(plan, out.started);
    return out;
  }

  private async startRound(
    end: PartEnd,
    round: number,
    group: FollowUpGroup,
    sheet: Map<string, PartRow>,
    skipped: NonNullable<PartOutcomes['followUp']>['skipped'],
  ): Promise<FollowUpStarted | null> {
    const { plan } = end;
    const follow = plan.followUp as NonNullable<CampaignPlan['followUp']>;
    const index = group.ruleIndex;
    const key = followUpKey(end.partKey, round, index);
    const label = labelOfPartKey(plan.uploadId, key);
    // The round counts against every number's cap like any campaign: 1 + retries calls each, under its own key.
    const caps = await this.deps.caps.admitAll(
      group.contacts.map((c) => c.phone),
      key,
      1 + plan.campaign.retries,
      this.deps.now(),
    );
    skipped.push(...caps.skipped);
    const admitted = new Set(caps.admitted);
    const chosen = group.contacts
      .filter((c) => admitted.has(c.phone))
      .map((c) => ({
        phone: c.phone,
        name: sheet.get(c.phone)?.name ?? c.name,
        customInstruction: sheet.get(c.phone)?.customInstruction ?? null,
      }));
    if (chosen.length === 0) return null;
    const sheetKey = `${plan.part.key.replace(/\.xlsx$/, '')}${key.slice(end.partKey.length)}.xlsx`;
    const { partWorkbook } = await import('#commons/spreadsheet/part-file.ts');
    await this.deps.objects.put(plan.bucket, sheetKey, await partWorkbook({ contacts: chosen }), XLSX_TYPE);
    const baseName = plan.campaign.name.replace(/ \(follow-up round \d+[a-z]?\)$/, '');
    const roundPlan: CampaignPlan = {
      ...plan,
      part: { ...plan.part, key: sheetKey, rows: chosen.length },
      campaign: {
        ...plan.campaign,
        name: `${baseName} (follow-up round ${round}${index > 0 ? String.fromCharCode(97 + index) : ''})`,
        startDateTime: utcWall(group.notBefore.getTime()),
        timeZone: 'UTC',
      },
      followUp: { ...follow, round, partKey: key },
    };
    const result = await this.deps.starter(stateMachineOf(end.execution)).start(key, roundPlan);
    this.deps.log.info('follow-up round started', { partKey: key, round, contacts: chosen.length, result });
    return {
      round,
      partKey: key,
      outcomes: group.rule.outcomes,
      contacts: chosen.length,
      notBefore: group.notBefore.toISOString(),
      sheet: `s3://${plan.bucket}/${sheetKey}`,
      report: `s3://${plan.bucket}/${partReportKey(plan.reportPrefix, label)}`,
    };
  }

  /** The part's sheet by number (name, custom instruction), so a round calls each contact as the first did. */
  private async sheetRows(plan: CampaignPlan): Promise<Map<string, PartRow>> {
    const file = await this.deps.objects.get(plan.bucket, plan.part.key);
    if (!file) return new Map();
    // Loaded on first use, not at the lifecycle's cold start: most steps are polls that read no sheet.
    const { readPartFile } = await import('#commons/spreadsheet/part-file.ts');
    return new Map((await readPartFile(file.bytes)).map((r) => [r.phone, r]));
  }
}
