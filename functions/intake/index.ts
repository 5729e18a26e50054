// Lambda entry: configuration is read and the API key resolved once, at cold start; a bad setting fails here.
import { buildIntakeService } from './build-service.ts';
import { readIntakeConfig } from './config.ts';
import { makeIntakeHandler } from './handler.ts';

const service = await buildIntakeService(readIntakeConfig(process.env));

// Logs, metrics and traces through Powertools (functions/commons/observability.ts).
export const handler = makeIntakeHandler(service);
