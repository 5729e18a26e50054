import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { apiBudget } from '../api-budget/config.ts';
import { documentClient } from '../aws/clients.ts';
import { type Log, silentLog } from '../log.ts';
import { SuppressionList } from '../suppression-list.ts';
import { CallsApi } from '../voice-api/calls.ts';
import { Transport, type VoiceApiOptions } from '../voice-api/http.ts';
import type { Clock } from '../voice-api/rate-limiter.ts';
import { resolveVoiceApiAccess, type VoiceApiAccess } from '../voice-api-access.ts';
import { CallResolver } from './call-resolver.ts';
import type { OutcomesConfig } from './config.ts';
import { OutcomeService } from './outcome-service.ts';
import { OutcomeStore } from './outcome-store.ts';

/** What a caller that already holds them lends: the key and its cache, the DynamoDB client. */
export interface SharedAccess {
  access: VoiceApiAccess;
  db: DynamoDBDocumentClient;
}

/**
 * Wires outcomes to DynamoDB (or dynalite) and the Voice API; the lead calls `reconcileOutcomes` on the result.
 * Inside the lifecycle function `shared` is the lifecycle's own: one secret read and one connection pool at start.
 */
export async function buildOutcomeService(
  config: OutcomesConfig,
  options: {
    now?: () => Date;
    log?: Log;
    api?: Partial<VoiceApiOptions>;
    /** The clock the budget's waits run on, when not the client's (the embedded stack's simulated clock). */
    budgetClock?: Clock;
  } = {},
  shared?: SharedAccess,
): Promise<OutcomeService> {
  const access = shared?.access ?? (await resolveVoiceApiAccess(config.voiceApi, config.aws));
  const db = shared?.db ?? documentClient(config.aws);
  const calls = new CallsApi(
    new Transport({
      baseUrl: access.baseUrl,
      apiKey: access.apiKey,
      // The current key (re-read after a rotation, on 401) and the API answer metrics.
      fetch: access.fetch,
      // Reads of finished calls share the account's per-minute budget with contact sync (never the lifecycle's share).
      ...(config.budget
        ? {
            budget: apiBudget(db, config.budget, 'shared', {
              clock: options.budgetClock ?? options.api?.clock,
              maxWaitMs: config.budgetWaitMs,
            }),
          }
        : {}),
      ...options.api,
    }),
  );
  return new OutcomeService({
    resolver: new CallResolver(calls),
    calls,
    store: new OutcomeStore(db, config.outcomesTable),
    suppression: new SuppressionList(db, config.suppressionTable),
    log: options.log ?? silentLog,
    now: options.now ?? (() => new Date()),
  });
}
