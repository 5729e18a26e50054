import { apiBudget } from '#commons/api-budget/config.ts';
import { documentClient, s3Client, sfnClient, sqsClient } from '#commons/aws/clients.ts';
import { ObjectStore } from '#commons/aws/object-store.ts';
import { SqsEventSink } from '#commons/contact-events.ts';
import { FrequencyCapStore } from '#commons/frequency-cap-store.ts';
import { StepFunctionsStarter } from '#commons/lifecycle-starter.ts';
import { SuppressionList } from '#commons/suppression-list.ts';
import { AgentsApi } from '#commons/voice-api/agents.ts';
import { Transport } from '#commons/voice-api/http.ts';
import type { Clock } from '#commons/voice-api/rate-limiter.ts';
import { resolveVoiceApiAccess } from '#commons/voice-api-access.ts';
import { CampaignContactEvents } from './campaign-contacts.ts';
import type { IntakeConfig } from './config.ts';
import { IntakeService } from './intake-service.ts';
import { UploadStore } from './upload-store.ts';

/** Intake's tables: the upload claims, the do-not-call list and, when configured, the frequency caps. */
export function intakeTables(config: IntakeConfig, db = documentClient(config.aws)) {
  return {
    uploads: new UploadStore(db, config.uploadsTable),
    suppression: new SuppressionList(db, config.suppressionTable),
    ...(config.caps ? { caps: new FrequencyCapStore(db, config.caps.table, config.caps.limits) } : {}),
  };
}

/** Wires intake to AWS (or the local stand-ins the endpoints point at) and the Voice API. */
export async function buildIntakeService(
  config: IntakeConfig,
  now: () => Date = () => new Date(),
  options: { budgetClock?: Clock } = {},
) {
  const access = await resolveVoiceApiAccess(config.voiceApi, config.aws);
  const db = documentClient(config.aws);
  // The agent look-up is one request per upload, drawn on the account's budget like every other caller's.
  const budget = config.budget
    ? apiBudget(db, config.budget.config, 'shared', { clock: options.budgetClock, maxWaitMs: config.budget.maxWaitMs })
    : undefined;
  return new IntakeService({
    ...intakeTables(config, db),
    objects: new ObjectStore(s3Client(config.aws)),
    // The current key (re-read after a rotation, on 401) and the API answer metrics.
    agents: new AgentsApi(
      new Transport({
        baseUrl: access.baseUrl,
        apiKey: access.apiKey,
        fetch: access.fetch,
        ...(budget ? { budget } : {}),
      }),
    ),
    starter: new StepFunctionsStarter(sfnClient(config.aws), config.stateMachineArn),
    defaults: config.defaults,
    leaseMs: config.leaseMs,
    plan: config.plan,
    now,
    ...(config.contacts ? { contacts: campaignContacts(config) } : {}),
  });
}

/** The contact queue as intake's hook sees it: one `Contact Upserted` event per accepted row. */
function campaignContacts(config: IntakeConfig): CampaignContactEvents | undefined {
  if (!config.contacts) return undefined;
  const sqs = sqsClient(config.aws, config.contacts.sqsEndpoint);
  return new CampaignContactEvents(new SqsEventSink(sqs, config.contacts.queueUrl));
}
