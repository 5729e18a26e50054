// Lambda entry of the guard (EventBridge rule on lifecycle execution status); configuration read at cold start.
import { jsonLog } from '../commons/log.ts';
import { buildCampaignGuard } from './build-guard.ts';
import { readGuardConfig } from './config.ts';
import { makeGuardHandler } from './handler.ts';

const log = jsonLog('guard');
const guard = await buildCampaignGuard(readGuardConfig(process.env), { log });

export const handler = makeGuardHandler(guard, log);
