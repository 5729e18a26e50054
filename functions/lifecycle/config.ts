import { type AwsSettings, readAwsSettings } from '../commons/aws/clients.ts';
import { parseWindowRules, WindowSpecError } from '../commons/calling-window.ts';
import { type Env, EnvReader } from '../commons/config.ts';
import { TABLES } from '../commons/tables.ts';
import { isValidTimeZone } from '../commons/voice-api/contract.ts';
import { readVoiceApiSource, type VoiceApiSource } from '../commons/voice-api-access.ts';
import type { LifecycleSettings } from './lifecycle-steps.ts';
import { DEFAULT_WINDOWS } from './window-plan.ts';

export interface LifecycleConfig {
  aws: AwsSettings;
  campaignsTable: string;
  voiceApi: VoiceApiSource;
  /** Per-request timeout of Voice API calls; a create that times out is reconciled, never re-sent. */
  apiTimeoutMs: number;
  settings: LifecycleSettings;
}

const whole = (min: number) => (v: string) =>
  /^\d+$/.test(v) && Number(v) >= min ? Number(v) : { problem: `a whole number ≥ ${min}` };

/** `DEFAULT_WINDOWS`: JSON from country (or `*`) to a window spec, merged over the built-in table. */
function windows(v: string): Record<string, string> | { problem: string } {
  try {
    const table = JSON.parse(v) as Record<string, string>;
    for (const spec of Object.values(table)) parseWindowRules(spec);
    return { ...DEFAULT_WINDOWS, ...table };
  } catch (err) {
    return { problem: err instanceof WindowSpecError ? err.message : 'not a JSON object of window specs' };
  }
}

export function readLifecycleConfig(source: Env): LifecycleConfig {
  const env = new EnvReader(source);
  const config: LifecycleConfig = {
    aws: readAwsSettings(env),
    campaignsTable: env.required(TABLES.campaigns.env),
    voiceApi: readVoiceApiSource(env),
    apiTimeoutMs: (env.checked('VOICE_API_TIMEOUT_SECONDS', whole(1)) ?? 30) * 1000,
    settings: {
      windows: env.checked('DEFAULT_WINDOWS', windows) ?? DEFAULT_WINDOWS,
      fallbackZone:
        env.checked('DEFAULT_TIME_ZONE', (v) => (isValidTimeZone(v) ? v : { problem: 'not an IANA time zone' })) ??
        'UTC',
      poll: {
        minSeconds: env.checked('POLL_MIN_SECONDS', whole(1)) ?? 30,
        maxSeconds: env.checked('POLL_MAX_SECONDS', whole(1)) ?? 900,
      },
      continueAfterSteps: env.checked('CONTINUE_AFTER_STEPS', whole(1)) ?? 1000,
      reconcileMinutes: env.checked('RECONCILE_MINUTES', whole(1)) ?? 30,
      eventBusName: env.optional('EVENT_BUS_NAME') ?? 'default',
    },
  };
  env.done();
  return config;
}
