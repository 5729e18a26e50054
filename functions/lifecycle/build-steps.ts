import { documentClient, eventsClient, s3Client, sfnClient } from '../commons/aws/clients.ts';
import { ObjectStore } from '../commons/aws/object-store.ts';
import { VoiceApiClient } from '../commons/voice-api/client.ts';
import { resolveVoiceApiAccess } from '../commons/voice-api-access.ts';
import { CampaignStore } from './campaign-store.ts';
import type { LifecycleConfig } from './config.ts';
import { LifecycleSteps } from './lifecycle-steps.ts';

export interface BuildOptions {
  now?: () => Date;
  /** Client options for the Voice API (the local runner hands the emulator's clock to the rate limiter). */
  api?: Partial<ConstructorParameters<typeof VoiceApiClient>[0]>;
}

export async function buildLifecycleSteps(config: LifecycleConfig, options: BuildOptions = {}) {
  const access = await resolveVoiceApiAccess(config.voiceApi, config.aws);
  return new LifecycleSteps({
    api: new VoiceApiClient({
      baseUrl: access.baseUrl,
      apiKey: access.apiKey,
      timeoutMs: config.apiTimeoutMs,
      ...options.api,
    }),
    campaigns: new CampaignStore(documentClient(config.aws), config.campaignsTable),
    objects: new ObjectStore(s3Client(config.aws)),
    sfn: sfnClient(config.aws),
    events: eventsClient(config.aws),
    now: options.now ?? (() => new Date()),
    settings: config.settings,
  });
}
