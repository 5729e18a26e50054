// Lambda entry: configuration is read and the API key resolved once, at cold start; a bad setting fails here.
import { jsonLog } from '../commons/log.ts';
import { buildLifecycleSteps } from './build-steps.ts';
import { readLifecycleConfig } from './config.ts';
import { makeLifecycleHandler } from './handler.ts';

const steps = await buildLifecycleSteps(readLifecycleConfig(process.env));

export const handler = makeLifecycleHandler(steps, jsonLog('lifecycle'));
