// Lambda entry for the outcomes queue: configuration is read and the API key resolved once, at cold start.
import { asLog, observabilityFor } from '#commons/observability.ts';
import { buildOutcomeService } from '#commons/outcomes/build-service.ts';
import { readOutcomesConfig } from '#commons/outcomes/config.ts';
import { makeOutcomesHandler } from './handler.ts';

const obs = observabilityFor('outcomes');
const service = await buildOutcomeService(readOutcomesConfig(process.env), { log: asLog(obs.logger) });

// Logs, metrics and traces through Powertools (functions/commons/observability.ts).
export const handler = makeOutcomesHandler(service, undefined, obs);
