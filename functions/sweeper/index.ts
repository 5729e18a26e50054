// Lambda entry of the sweeper (scheduled every SWEEP_INTERVAL_MINUTES); configuration read at cold start.
import { jsonLog } from '../commons/log.ts';
import { buildCampaignGuard } from '../guard/build-guard.ts';
import { readGuardConfig } from '../guard/config.ts';
import { makeSweeperHandler } from '../guard/handler.ts';

const log = jsonLog('sweeper');
const guard = await buildCampaignGuard(readGuardConfig(process.env), { log });

export const handler = makeSweeperHandler(guard, log);
