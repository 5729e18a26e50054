import { documentClient, sfnClient } from '#commons/aws/clients.ts';
import { isEmptyTable } from '#commons/aws/empty-table.ts';
import { DEFAULT_CAP_LIMITS } from '#commons/frequency-cap.ts';
import { FrequencyCapStore } from '#commons/frequency-cap-store.ts';
import { SuppressionList } from '#commons/suppression-list.ts';
import { type ReindexResult, reindexAfterDeploy } from './after-deploy.ts';
import type { ReindexConfig } from './config.ts';
import { RecordedUpgrade } from './upgrade.ts';

/** The reindex on the configured tables, at the time `now` tells. */
export function buildReindex(config: ReindexConfig, now: () => Date = () => new Date()): () => Promise<ReindexResult> {
  const db = documentClient(config.aws);
  const lookups = {
    suppression: new SuppressionList(db, config.suppressionTable),
    // The limits play no part in folding reservations.
    caps: new FrequencyCapStore(db, config.outcomesTable, DEFAULT_CAP_LIMITS),
    empty: async () =>
      (await isEmptyTable(db, config.suppressionTable)) && (await isEmptyTable(db, config.outcomesTable)),
  };
  const upgrade = new RecordedUpgrade(db, config.outcomesTable, sfnClient(config.aws), config.stateMachineArn);
  return () => reindexAfterDeploy(lookups, upgrade, now(), config.drainMs);
}
