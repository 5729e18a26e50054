// Lambda entry of the guard (EventBridge rule on lifecycle execution status); configuration read at cold start.
import { buildCampaignGuard } from './safety-net/build-guard.ts';
import { readGuardConfig } from './safety-net/config.ts';
import { makeGuardHandler } from './safety-net/handler.ts';

const guard = await buildCampaignGuard(readGuardConfig(process.env));

// Logs, metrics and traces through Powertools (functions/commons/observability.ts).
export const handler = makeGuardHandler(guard);
