import { apiBudget } from '#commons/api-budget/config.ts';
import { PollRoll } from '#commons/api-budget/poll-roll.ts';
import { type BudgetShare, SharedApiBudget } from '#commons/api-budget/shared-budget.ts';
import { documentClient, eventsClient, s3Client, sfnClient } from '#commons/aws/clients.ts';
import { ObjectStore } from '#commons/aws/object-store.ts';
import type { Log } from '#commons/log.ts';
import type { SharedAccess } from '#commons/outcomes/build-service.ts';
import { AgentsApi } from '#commons/voice-api/agents.ts';
import { CallsApi } from '#commons/voice-api/calls.ts';
import { CampaignsApi } from '#commons/voice-api/campaigns.ts';
import { Transport, type VoiceApiOptions } from '#commons/voice-api/http.ts';
import type { Clock } from '#commons/voice-api/rate-limiter.ts';
import { resolveVoiceApiAccess } from '#commons/voice-api-access.ts';
import { CampaignSafety } from './campaign-safety.ts';
import { CampaignStore } from './campaign-store.ts';
import type { LifecycleConfig } from './config.ts';
import { type LifecycleApi, LifecycleSteps } from './lifecycle-steps.ts';
import { buildPartEndOutcomes } from './part-end/build-part-end.ts';
import { logSafetySignals } from './safety-signals.ts';
import { EventBridgeEvents, StepFunctionsWorkflow } from './workflow.ts';

export interface BuildOptions {
  now?: () => Date;
  /** Client options for the Voice API (the local runner hands the emulator's clock to the rate limiter). */
  api?: Partial<VoiceApiOptions>;
  /**
   * The clock the API budget's waits run on, when not the client's: the embedded stack's simulated clock, on which
   * a wait is a sleep of the workflow waiting, while the client's back-off stays as short as it is.
   */
  budgetClock?: Clock;
  log?: Log;
}

/**
 * The Voice API clients of the lifecycle, on one key and secret cache: one retry per request at most, because the
 * workflow itself looks again within seconds on simulated or real time, and a step must end well within its
 * timeout. With a shared budget they draw in three shares, in order of precedence: `safe` (pauses, their
 * confirmation, the brake) on the whole plan; `api` (launches, resumes) on all but the safety reserve; `polls`
 * (the stats of each look) on what is left after the lifecycle's reserve too, as a contact sync does, so polls
 * can never starve a resume (seen on 100 parts: no part resumed the next morning).
 */
function lifecycleApis(
  config: LifecycleConfig,
  options: BuildOptions,
  { db, access }: SharedAccess,
): { api: LifecycleApi; safe: LifecycleApi; polls: LifecycleApi } {
  const client = (share: BudgetShare): LifecycleApi => {
    const http = new Transport({
      baseUrl: access.baseUrl,
      apiKey: access.apiKey,
      // The current key (re-read after a rotation, on 401) and the API answer metrics.
      fetch: access.fetch,
      timeoutMs: config.apiTimeoutMs,
      maxRetries: 1,
      // A short wait for a token, then the step looks again soon.
      ...(config.budget
        ? {
            budget: apiBudget(db, config.budget, share, {
              clock: options.budgetClock ?? options.api?.clock,
              maxWaitMs: 5_000,
            }),
          }
        : {}),
      ...options.api,
    });
    return { agents: new AgentsApi(http), campaigns: new CampaignsApi(http), calls: new CallsApi(http) };
  };
  const api = client('lifecycle');
  if (!config.budget) return { api, safe: api, polls: api };
  return { api, safe: client('safety'), polls: client('shared') };
}

/** What every part of the lifecycle function shares: one DynamoDB client and one key with its secret cache. */
async function sharedOf(config: LifecycleConfig): Promise<SharedAccess> {
  return { db: documentClient(config.aws), access: await resolveVoiceApiAccess(config.voiceApi, config.aws) };
}

export async function buildCampaignSafety(config: LifecycleConfig, options: BuildOptions = {}, shared?: SharedAccess) {
  const access = shared ?? (await sharedOf(config));
  const { api, safe, polls } = lifecycleApis(config, options, access);
  const campaigns = new CampaignStore(access.db, config.campaignsTable);
  const now = options.now ?? (() => new Date());
  return {
    api,
    polls,
    campaigns,
    safety: new CampaignSafety(safe.campaigns, safe.agents, campaigns, logSafetySignals(options.log), now, api.agents),
  };
}

export async function buildLifecycleSteps(config: LifecycleConfig, options: BuildOptions = {}) {
  const shared = await sharedOf(config);
  const { api, polls, campaigns, safety } = await buildCampaignSafety(config, options, shared);
  const { db } = shared;
  const objects = new ObjectStore(s3Client(config.aws));
  const sfn = sfnClient(config.aws);
  const now = options.now ?? (() => new Date());
  return new LifecycleSteps({
    api,
    polls,
    campaigns,
    safety,
    objects,
    workflow: new StepFunctionsWorkflow(sfn),
    events: new EventBridgeEvents(eventsClient(config.aws), config.eventBusName),
    now,
    settings: config.settings,
    pollRoll: config.budget ? new PollRoll(db, config.budget.table) : null,
    pauseBook: config.budget ? new SharedApiBudget(db, config.budget.table, config.budget.limits) : null,
    outcomes: config.outcomes
      ? await buildPartEndOutcomes(
          config.outcomes.config,
          config.outcomes.caps,
          { sfn, objects, rounds: campaigns },
          {
            now,
            ...(options.log ? { log: options.log } : {}),
            ...(options.api ? { api: options.api } : {}),
            ...(options.budgetClock ? { budgetClock: options.budgetClock } : {}),
          },
          // The part end runs in this function on its settings: the same key, cache and connections.
          shared,
        )
      : null,
  });
}
