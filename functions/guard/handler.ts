import middy from '@middy/core';
import type { Log } from '../commons/log.ts';
import type { CampaignGuard } from './campaign-guard.ts';
import type { ExecutionStatusEvent } from './event-pattern.ts';

/** EventBridge → guard: an execution failed, timed out or was stopped; secure the campaign it watched. */
export function makeGuardHandler(guard: CampaignGuard, log: Log) {
  return middy(async (event: ExecutionStatusEvent) => {
    const { executionArn, name, status } = event.detail;
    const action = await guard.executionEnded({ executionArn, name, status });
    log.warn('guard: execution ended without finishing', { execution: executionArn, status, ...action });
    return action;
  });
}

/** Schedule → sweeper: check every unfinished part. */
export function makeSweeperHandler(guard: CampaignGuard, log: Log) {
  return middy(async () => {
    const { actions, quietUntil } = await guard.sweep();
    for (const action of actions) log.warn('sweeper: secured a campaign', { ...action });
    return { actions: actions.length, quietUntil };
  });
}
