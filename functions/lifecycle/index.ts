// Lambda entry: configuration is read and the API key resolved once, at cold start; a bad setting fails here.
import { asLog, observabilityFor } from '#commons/observability.ts';
import { buildLifecycleSteps } from './build-steps.ts';
import { readLifecycleConfig } from './config.ts';
import { makeLifecycleHandler } from './handler.ts';

const obs = observabilityFor('lifecycle');
const steps = await buildLifecycleSteps(readLifecycleConfig(process.env));

// Logs, metrics and traces through Powertools (functions/commons/observability.ts).
export const handler = makeLifecycleHandler(steps, asLog(obs.logger), obs);
