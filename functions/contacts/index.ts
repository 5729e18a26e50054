// Lambda entry: configuration is read and the API key resolved once, at cold start; a bad setting fails here.
import { jsonLog } from '#commons/log.ts';
import { buildContactSync } from './build-sync.ts';
import { readContactsConfig } from './config.ts';
import { makeContactsHandler } from './handler.ts';

const { sync } = await buildContactSync(readContactsConfig(process.env));

export const handler = makeContactsHandler(sync, jsonLog('contacts'));
