import type { FrequencyCapStore } from '#commons/frequency-cap-store.ts';
import type { SuppressionList } from '#commons/suppression-list.ts';

/**
 * The two lookups intake reads by shard once their table is marked indexed (suppression-list.ts,
 * frequency-cap-store.ts), and what the reindex needs of them.
 */
export interface ShardedLookups {
  suppression: Pick<SuppressionList, 'indexed' | 'fold' | 'markIndexed'>;
  caps: Pick<FrequencyCapStore, 'indexed' | 'fold' | 'markIndexed'>;
  /** Whether the suppression and outcomes tables hold no item at all: a new install, which no version wrote. */
  empty(): Promise<boolean>;
}

/** What the deploy that brought the shards left behind: the moment it was first seen, and its older campaigns. */
export interface Upgrade {
  /** When the reindex first found the tables in use and not marked, if it has. */
  started(): Promise<Date | undefined>;
  /** Records `at` as that moment unless one is recorded already; answers the one recorded. */
  start(at: Date): Promise<Date>;
  /**
   * Whether a lifecycle execution started before `at` still runs: it keeps calling the step function's version it
   * started with (architecture.md, Redeploys), and a follow-up round of a version before the cap shards counts its
   * calls in per-number items only.
   */
  campaignsStartedBefore(at: Date): Promise<boolean>;
}

export type ReindexResult =
  | { outcome: 'already-indexed' }
  | {
      outcome: 'indexed' | 'waiting';
      /** A new install: nothing to fold and no earlier version that could write. */
      fresh: boolean;
      /** When the upgrade was first seen (not on a new install). */
      since?: string;
      /** Why a table is not marked yet: earlier functions may still be running, or earlier campaigns are. */
      waitingFor?: 'functions' | 'campaigns';
      /** Numbers of the do-not-call list put in its shards now (absent: marked before, or not yet). */
      listed?: number;
      /** Numbers with calls counted before the cap shards, and reservations added now (absent: as `listed`). */
      caps?: { numbers: number; added: number };
    };

/**
 * Run after every deploy and every 15 minutes (infra/reindex.ts): folds the do-not-call list and the call counts kept
 * before the shards into them and marks each table indexed once nothing can write the old way any more, so intake
 * and follow-up rounds stop reading them number by number. Marked tables are left alone.
 *
 * A new install (both tables empty) is marked at once. On an upgrade the first run records when it saw it, and a
 * table is marked only when no function of the version before can still be writing the per-number items a fold
 * already done would miss: after `drainMs` (the longest timeout of the functions that write these tables, which the
 * deploy has replaced), and for the caps only once no lifecycle execution started before the upgrade still runs.
 * Until then intake keeps reading those items as well, which is exact, only slower. Each fold runs just before its
 * mark; folding again counts nothing twice, and admissions running meanwhile stay exact (each shard is written
 * conditionally on the version read).
 */
export async function reindexAfterDeploy(
  lookups: ShardedLookups,
  upgrade: Upgrade,
  now: Date,
  drainMs: number,
): Promise<ReindexResult> {
  const [listIndexed, capsIndexed] = await Promise.all([lookups.suppression.indexed(), lookups.caps.indexed()]);
  if (listIndexed && capsIndexed) return { outcome: 'already-indexed' };

  const recorded = await upgrade.started();
  const fresh = recorded === undefined && (await lookups.empty());
  const since = fresh ? undefined : (recorded ?? (await upgrade.start(now)));
  const drained = since === undefined || now.getTime() - since.getTime() >= drainMs;
  const campaignsDone = since === undefined || capsIndexed || !(await upgrade.campaignsStartedBefore(since));

  let listed: number | undefined;
  let caps: { numbers: number; added: number } | undefined;
  if (!listIndexed && drained) {
    listed = await lookups.suppression.fold();
    await lookups.suppression.markIndexed(now);
  }
  if (!capsIndexed && drained && campaignsDone) {
    caps = await lookups.caps.fold(now);
    await lookups.caps.markIndexed(caps.numbers, now);
  }
  const done = (listIndexed || listed !== undefined) && (capsIndexed || caps !== undefined);
  const waitingFor: 'functions' | 'campaigns' = drained ? 'campaigns' : 'functions';
  return {
    outcome: done ? 'indexed' : 'waiting',
    fresh,
    ...(since ? { since: since.toISOString() } : {}),
    ...(done ? {} : { waitingFor }),
    ...(listed !== undefined ? { listed } : {}),
    ...(caps !== undefined ? { caps } : {}),
  };
}
