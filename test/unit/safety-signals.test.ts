import { describe, expect, it } from 'vitest';
import type { Log } from '#commons/log.ts';
import { logSafetySignals, SAFETY_METRICS } from '#lifecycle/safety-signals.ts';

/** Each safety action: one line that is also a metric; its level says whether a person should look. */
describe('safety signals', () => {
  it.each([
    ['workflow', 'paused', 'info'],
    ['workflow', 'brake_released', 'info'],
    ['workflow', 'braked', 'error'],
    ['workflow', 'unconfirmed', 'error'],
    ['guard', 'paused', 'warn'],
    ['sweeper', 'paused', 'warn'],
    ['secure-step', 'paused', 'warn'],
    ['guard', 'braked', 'error'],
  ] as const)('%s %s: %s, with its metric', (by, what, level) => {
    const lines: { level: string; message: string; fields: Record<string, unknown> }[] = [];
    const at =
      (l: string) =>
      (message: string, fields: Record<string, unknown> = {}) => {
        lines.push({ level: l, message, fields });
      };
    const log: Log = { info: at('info'), warn: at('warn'), error: at('error') };
    logSafetySignals(log).action(by, what, { campaignId: 'cmp_1', reason: 'window' });
    expect(lines).toEqual([
      {
        level,
        message: `safety: ${by} ${what}`,
        fields: expect.objectContaining({ actor: by, outcome: what, [SAFETY_METRICS[by]]: 1, campaignId: 'cmp_1' }),
      },
    ]);
  });
});
