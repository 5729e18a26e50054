// Lambda entry for the outcomes queue: configuration is read and the API key resolved once, at cold start.
import { jsonLog } from '../commons/log.ts';
import { buildOutcomeService } from './build-service.ts';
import { readOutcomesConfig } from './config.ts';
import { makeOutcomesHandler } from './handler.ts';

const log = jsonLog('outcomes');

export const handler = makeOutcomesHandler(await buildOutcomeService(readOutcomesConfig(process.env), { log }), log);
