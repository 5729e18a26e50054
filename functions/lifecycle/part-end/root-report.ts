import type { ObjectStore } from '#commons/aws/object-store.ts';
import type { CampaignPlan } from '#commons/campaign-plan.ts';
import type { FollowUpStarted } from '#commons/part-outcomes.ts';
import { partReportKey } from '#commons/report-keys.ts';

export interface RootReportDeps {
  objects: ObjectStore;
}

/**
 * The root part's report lists every follow-up round started after it: the root's own end writes the first
 * rounds into it (functions/lifecycle/part-report.ts), and each later round's end adds the rounds it started.
 */
export class RootReport {
  constructor(private readonly deps: RootReportDeps) {}

  /** Adds the rounds a part's end started to its root part's report (read, merged by key, written back). */
  async listRounds(plan: CampaignPlan, started: FollowUpStarted[]): Promise<void> {
    const follow = plan.followUp;
    if (!follow || follow.round <= 1 || started.length === 0) return;
    const key = partReportKey(plan.reportPrefix, `${plan.part.index}`);
    const file = await this.deps.objects.get(plan.bucket, key);
    if (!file) return;
    const report = JSON.parse(file.bytes.toString('utf8')) as { followUpRounds?: FollowUpStarted[] };
    const known = new Map((report.followUpRounds ?? []).map((r) => [r.partKey, r]));
    for (const s of started) known.set(s.partKey, s);
    report.followUpRounds = [...known.values()].sort((a, b) => a.partKey.localeCompare(b.partKey));
    await this.deps.objects.put(plan.bucket, key, `${JSON.stringify(report, null, 2)}\n`, 'application/json');
  }
}
