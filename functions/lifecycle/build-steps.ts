import { apiBudget } from '#commons/api-budget/config.ts';
import { documentClient, eventsClient, s3Client, sfnClient } from '#commons/aws/clients.ts';
import { ObjectStore } from '#commons/aws/object-store.ts';
import type { Log } from '#commons/log.ts';
import { VoiceApiClient } from '#commons/voice-api/client.ts';
import type { Clock } from '#commons/voice-api/rate-limiter.ts';
import { resolveVoiceApiAccess } from '#commons/voice-api-access.ts';
import { CampaignSafety } from './campaign-safety.ts';
import { CampaignStore } from './campaign-store.ts';
import type { LifecycleConfig } from './config.ts';
import { LifecycleSteps } from './lifecycle-steps.ts';
import { buildPartEndOutcomes } from './part-end/build-part-end.ts';
import { logSafetySignals } from './safety-signals.ts';
import { EventBridgeEvents, StepFunctionsWorkflow } from './workflow.ts';

export interface BuildOptions {
  now?: () => Date;
  /** Client options for the Voice API (the local runner hands the emulator's clock to the rate limiter). */
  api?: Partial<ConstructorParameters<typeof VoiceApiClient>[0]>;
  /**
   * The clock the API budget's waits run on, when not the client's: the embedded stack's simulated clock, on which
   * a wait is a sleep of the workflow waiting, while the client's back-off stays as short as it is.
   */
  budgetClock?: Clock;
  log?: Log;
}

/**
 * The Voice API client of the lifecycle: one retry per request at most, because the workflow itself looks again
 * within seconds on simulated or real time, and a step must end well within its timeout.
 */
async function lifecycleApi(config: LifecycleConfig, options: BuildOptions): Promise<VoiceApiClient> {
  const access = await resolveVoiceApiAccess(config.voiceApi, config.aws);
  return new VoiceApiClient({
    baseUrl: access.baseUrl,
    apiKey: access.apiKey,
    // The current key (re-read after a rotation, on 401) and the API answer metrics.
    fetch: access.fetch,
    timeoutMs: config.apiTimeoutMs,
    maxRetries: 1,
    // The lifecycle's reserved share of the account's budget; a short wait, then the step looks again soon.
    ...(config.budget
      ? {
          budget: apiBudget(documentClient(config.aws), config.budget, 'lifecycle', {
            clock: options.budgetClock ?? options.api?.clock,
            maxWaitMs: 5_000,
          }),
        }
      : {}),
    ...options.api,
  });
}

export async function buildCampaignSafety(config: LifecycleConfig, options: BuildOptions = {}) {
  const api = await lifecycleApi(config, options);
  const campaigns = new CampaignStore(documentClient(config.aws), config.campaignsTable);
  const now = options.now ?? (() => new Date());
  return {
    api,
    campaigns,
    safety: new CampaignSafety(api.campaigns, api.agents, campaigns, logSafetySignals(options.log), now),
  };
}

export async function buildLifecycleSteps(config: LifecycleConfig, options: BuildOptions = {}) {
  const { api, campaigns, safety } = await buildCampaignSafety(config, options);
  const objects = new ObjectStore(s3Client(config.aws));
  const sfn = sfnClient(config.aws);
  const now = options.now ?? (() => new Date());
  return new LifecycleSteps({
    api,
    campaigns,
    safety,
    objects,
    workflow: new StepFunctionsWorkflow(sfn),
    events: new EventBridgeEvents(eventsClient(config.aws), config.eventBusName),
    now,
    settings: config.settings,
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
        )
      : null,
  });
}
