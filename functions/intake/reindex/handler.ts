import middy from '@middy/core';
import type { Log } from '#commons/log.ts';
import { asLog, type Observability, observabilityFor, observe } from '#commons/observability.ts';
import type { ReindexResult } from './after-deploy.ts';

/** The deploy's trigger, and a schedule → the reindex. A failure under the trigger fails the deploy. */
export function makeReindexHandler(
  reindex: () => Promise<ReindexResult>,
  log?: Log,
  obs: Observability = observabilityFor('reindex'),
) {
  const out = log ?? asLog(obs.logger);
  return observe(
    middy(async () => {
      const result = await reindex();
      // Every 15 minutes on marked tables: nothing worth a line.
      if (result.outcome !== 'already-indexed') out.info('reindex', { ...result });
      return result;
    }),
    obs,
  );
}
