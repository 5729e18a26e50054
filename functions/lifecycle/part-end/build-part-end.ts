import type { SFNClient } from '@aws-sdk/client-sfn';
import { documentClient } from '#commons/aws/clients.ts';
import type { ObjectStore } from '#commons/aws/object-store.ts';
import type { CapLimits } from '#commons/frequency-cap.ts';
import { FrequencyCapStore } from '#commons/frequency-cap-store.ts';
import { StepFunctionsStarter } from '#commons/lifecycle-starter.ts';
import { type Log, silentLog } from '#commons/log.ts';
import { buildOutcomeService, type SharedAccess } from '#commons/outcomes/build-service.ts';
import type { OutcomesConfig } from '#commons/outcomes/config.ts';
import { SuppressionList } from '#commons/suppression-list.ts';
import type { VoiceApiOptions } from '#commons/voice-api/http.ts';
import type { Clock } from '#commons/voice-api/rate-limiter.ts';
import { PartEndOutcomes } from './part-end.ts';
import type { FollowUpRegister } from './root-report.ts';

/** What the lifecycle calls at a part's end (its OutcomeReporter): exports, suppressed numbers, follow-up rounds. */
export async function buildPartEndOutcomes(
  config: OutcomesConfig,
  caps: CapLimits,
  aws: { sfn: SFNClient; objects: ObjectStore; rounds: FollowUpRegister },
  options: { now?: () => Date; log?: Log; api?: Partial<VoiceApiOptions>; budgetClock?: Clock } = {},
  shared?: SharedAccess,
): Promise<PartEndOutcomes> {
  const db = shared?.db ?? documentClient(config.aws);
  const now = options.now ?? (() => new Date());
  return new PartEndOutcomes({
    outcomes: await buildOutcomeService(config, options, shared),
    suppression: new SuppressionList(db, config.suppressionTable),
    caps: new FrequencyCapStore(db, config.outcomesTable, caps),
    objects: aws.objects,
    rounds: aws.rounds,
    starter: (arn) => new StepFunctionsStarter(aws.sfn, arn),
    log: options.log ?? silentLog,
    now,
  });
}
