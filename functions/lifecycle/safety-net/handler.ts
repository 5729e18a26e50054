import middy from '@middy/core';
import type { Log } from '#commons/log.ts';
import {
  asLog,
  count,
  METRIC,
  type Observability,
  observabilityFor,
  observe,
  tagLogs,
} from '#commons/observability.ts';
import type { CampaignGuard } from './campaign-guard.ts';
import type { ExecutionStatusEvent } from './event-pattern.ts';

/** EventBridge → guard: an execution failed, timed out or was stopped; secure the campaign it watched. */
export function makeGuardHandler(guard: CampaignGuard, log?: Log, obs: Observability = observabilityFor('guard')) {
  const out = log ?? asLog(obs.logger);
  return observe(
    middy(async (event: ExecutionStatusEvent) => {
      const { executionArn, name, status } = event.detail;
      tagLogs(obs, { executionId: executionArn });
      const action = await guard.executionEnded({ executionArn, name, status });
      out.warn('guard: execution ended without finishing', { execution: executionArn, status, ...action });
      return action;
    }),
    obs,
  );
}

/** What the sweeper logs when it found the parts by scanning the table: an index missing, or still being built. */
export const SCANNED_WARNING = 'sweeper: scanned the whole campaigns table, an index of it not readable';

/** Schedule → sweeper: check every unfinished part. */
export function makeSweeperHandler(guard: CampaignGuard, log?: Log, obs: Observability = observabilityFor('sweeper')) {
  const out = log ?? asLog(obs.logger);
  return observe(
    middy(async () => {
      const { actions, quietUntil, watching, scanned, callsUnchecked } = await guard.sweep();
      // Until DynamoDB has built the status index (after the deploy that added it), or on a table without it.
      if (scanned) out.warn(SCANNED_WARNING, { scanned });
      if (callsUnchecked) {
        // Counted, so an alarm sees a watch that keeps failing (a night of it would let a resumed campaign dial).
        count(obs, METRIC.callsWatchUnread);
        out.warn('sweeper: could not read the calls list; campaigns resumed outside callsheet go unseen until it can', {
          reason: callsUnchecked,
        });
      }
      for (const action of actions) out.warn('sweeper: secured a campaign', { ...action });
      return { actions: actions.length, quietUntil, watching };
    }),
    obs,
  );
}
