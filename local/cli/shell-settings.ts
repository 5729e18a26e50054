import { SETTINGS } from '#infra/setting-specs.ts';

/**
 * The function settings this shell sets (docs/configuration.md), for the embedded stack's functions as the
 * deployed stack would set them: a stricter LEGAL_HOURS or other call caps are rehearsed locally too. Each function
 * checks them at its start, as deployed. The Voice API's address and key are the run's own.
 */
export function shellSettings(env: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, spec] of Object.entries(SETTINGS)) {
    if (spec.readBy.length === 0 || name === 'VOICE_API_URL') continue;
    const value = env[name];
    if (value !== undefined && value !== '') out[name] = value;
  }
  return out;
}
