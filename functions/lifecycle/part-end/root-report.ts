import type { ObjectStore } from '#commons/aws/object-store.ts';
import type { CampaignPlan } from '#commons/campaign-plan.ts';
import type { Log } from '#commons/log.ts';
import type { FollowUpStarted } from '#commons/part-outcomes.ts';
import { partReportKey } from '#commons/report-keys.ts';

/** Where the rounds started under a root part are recorded (CampaignStore: on the root's campaign record). */
export interface FollowUpRegister {
  /** Records rounds without overwriting any other; answers every round recorded under the root, by part key. */
  addFollowUpRounds(rootPartKey: string, rounds: FollowUpStarted[]): Promise<FollowUpStarted[]>;
  followUpRounds(rootPartKey: string): Promise<FollowUpStarted[]>;
}

export interface RootReportDeps {
  objects: ObjectStore;
  rounds: FollowUpRegister;
  log: Log;
}

/** Writes of the root report one round's end makes at most while others keep adding rounds. */
const MAX_WRITES = 5;

const sameRounds = (a: FollowUpStarted[], b: FollowUpStarted[]) =>
  a.length === b.length && a.every((r, i) => r.partKey === b[i]?.partKey);

/**
 * The root part's report lists every follow-up round started after it: the root's own end writes the first
 * rounds into it (functions/lifecycle/part-report.ts), and each later round's end adds the rounds it started. Two
 * rounds may end at once, and an S3 object cannot be updated in place, so the list lives in the register, where
 * writers never overwrite each other, and the report shows it.
 */
export class RootReport {
  constructor(private readonly deps: RootReportDeps) {}

  /** Records the rounds a part's end started and, after round 1, writes every round recorded into the root report. */
  async listRounds(plan: CampaignPlan, started: FollowUpStarted[]): Promise<void> {
    const follow = plan.followUp;
    if (!follow || started.length === 0) return;
    let rounds = await this.deps.rounds.addFollowUpRounds(follow.rootPartKey, started);
    // The root's own end writes its report next, with these rounds.
    if (follow.round <= 1) return;
    const key = partReportKey(plan.reportPrefix, `${plan.part.index}`);
    for (let write = 0; write < MAX_WRITES; write++) {
      const file = await this.deps.objects.get(plan.bucket, key);
      if (!file) return;
      const report = JSON.parse(file.bytes.toString('utf8')) as { followUpRounds?: FollowUpStarted[] };
      // Rounds listed before they had a register stay listed.
      const known = new Map((report.followUpRounds ?? []).map((r) => [r.partKey, r]));
      for (const r of rounds) known.set(r.partKey, r);
      report.followUpRounds = [...known.values()].sort((a, b) => a.partKey.localeCompare(b.partKey));
      await this.deps.objects.put(plan.bucket, key, `${JSON.stringify(report, null, 2)}\n`, 'application/json');
      // Another end may have put an older list over ours, or added rounds since: whoever finds the register grown
      // past what it wrote writes again, so the last write lists every round.
      const now = await this.deps.rounds.followUpRounds(follow.rootPartKey);
      if (sameRounds(now, rounds)) return;
      rounds = now;
    }
    this.deps.log.warn('root report: rounds kept being added; the last round to end lists them', {
      rootPartKey: follow.rootPartKey,
      rounds: rounds.length,
    });
  }
}
