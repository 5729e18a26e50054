// Lambda entry of the guard (EventBridge rule on lifecycle execution status); configuration read at cold start.
import { buildCampaignGuard } from './build-guard.ts';
import { readGuardConfig } from './config.ts';
import { makeGuardHandler } from './handler.ts';

const guard = await buildCampaignGuard(readGuardConfig(process.env));

// Logs, metrics and traces through Powertools (functions/commons/observability.ts).
export const handler = makeGuardHandler(guard);
