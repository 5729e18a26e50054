// Lambda entry of the reindex the deploy triggers (infra/reindex.ts); configuration read at cold start.
import { buildReindex } from './reindex/build.ts';
import { readReindexConfig } from './reindex/config.ts';
import { makeReindexHandler } from './reindex/handler.ts';

// Logs through Powertools (functions/commons/observability.ts).
export const handler = makeReindexHandler(buildReindex(readReindexConfig(process.env)));
