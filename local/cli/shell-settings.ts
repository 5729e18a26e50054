import { checkSetting, SETTINGS, timeoutProblem } from '#infra/setting-specs.ts';
import { executionTimeoutSeconds } from '#local/stack/local-stack.ts';

/**
 * The function settings this shell sets (docs/configuration.md), for the embedded stack's functions as the
 * deployed stack would set them: a stricter LEGAL_HOURS or other call caps are rehearsed locally too. Each function
 * checks them at its start, as deployed. The Voice API's address and key are the run's own. Stack settings the
 * embedded stack honours too (`local`, such as the workflow's timeout) come along, checked by the stack.
 */
export function shellSettings(env: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, spec] of Object.entries(SETTINGS)) {
    if ((spec.readBy.length === 0 && !('local' in spec)) || name === 'VOICE_API_URL') continue;
    const value = env[name];
    if (value !== undefined && value !== '') out[name] = value;
  }
  return out;
}

/**
 * What to tell a user whose workflow timeout is shorter than the waits it must outlast: a deploy refuses that
 * (`cdk synth`); here it is a rehearsal of what the guard does when a workflow times out. Null when it is long enough.
 */
export function shortTimeoutNote(settings: Readonly<Record<string, string>>): string | null {
  // A bad value is the stack's to refuse (checkStackSettings): the note reads the default instead.
  const days = (name: 'START_HORIZON_DAYS' | 'HOLD_HORIZON_DAYS') => {
    const checked = checkSetting(SETTINGS[name], settings[name]);
    return typeof checked === 'number' ? checked : SETTINGS[name].default;
  };
  const problem = timeoutProblem({
    timeoutSeconds: executionTimeoutSeconds(settings),
    startHorizonDays: days('START_HORIZON_DAYS'),
    holdHorizonDays: days('HOLD_HORIZON_DAYS'),
  });
  return problem
    ? `${problem}. A deploy refuses this; here a workflow that waits longer times out, and the guard secures its campaign.`
    : null;
}
