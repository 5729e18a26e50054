import { type AwsSettings, readAwsSettings } from '#commons/aws/clients.ts';
import { type Env, EnvReader } from '#commons/config.ts';
import { TABLES } from '#commons/tables.ts';

/** Set by the stack: the longest timeout of the functions that write the suppression and outcomes tables. */
export const DRAIN_SECONDS = 'REINDEX_DRAIN_SECONDS';

export interface ReindexConfig {
  aws: AwsSettings;
  suppressionTable: string;
  outcomesTable: string;
  /** The lifecycle, whose executions started before an upgrade still run the code they started with. */
  stateMachineArn: string;
  /** How long an invocation of the version before a deploy may still be writing these tables after it. */
  drainMs: number;
}

/** What the reindex reads at start-up; every problem reported together. */
export function readReindexConfig(source: Env): ReindexConfig {
  const env = new EnvReader(source);
  // No default: too short a wait could lose the last write of the version before. Unset, it is reported missing.
  if (env.optional(DRAIN_SECONDS) === undefined) env.required(DRAIN_SECONDS);
  const drain =
    env.checked(DRAIN_SECONDS, (v) => (/^\d+$/.test(v) ? Number(v) : { problem: 'a whole number of seconds' })) ?? 0;
  const config: ReindexConfig = {
    aws: readAwsSettings(env),
    suppressionTable: env.required(TABLES.suppression.env),
    outcomesTable: env.required(TABLES.outcomes.env),
    stateMachineArn: env.required('LIFECYCLE_STATE_MACHINE_ARN'),
    drainMs: drain * 1000,
  };
  env.done();
  return config;
}
