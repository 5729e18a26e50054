import { jsonLog, type Log } from '#commons/log.ts';
import type { SafetySignals } from './campaign-safety.ts';

/** CloudWatch metric names of safety actions, one per actor; alarms watch them (infra/campaign-guard.ts). */
export const SAFETY_METRICS = {
  workflow: 'WorkflowSafetyActions',
  'secure-step': 'SecureStepActions',
  guard: 'GuardActions',
  sweeper: 'SweeperActions',
} as const;

export const SAFETY_NAMESPACE = 'callsheet';

/**
 * Each safety action as one log line that is also a CloudWatch metric (embedded metric format), so an alarm can
 * count guard and sweeper actions and a person can read what was done and why.
 */
export function logSafetySignals(log: Log = jsonLog('safety')): SafetySignals {
  return {
    action(by, what, details) {
      const metric = SAFETY_METRICS[by];
      const line = {
        ...details,
        actor: by,
        outcome: what,
        [metric]: 1,
        _aws: {
          Timestamp: Date.now(),
          CloudWatchMetrics: [
            { Namespace: SAFETY_NAMESPACE, Dimensions: [['outcome']], Metrics: [{ Name: metric, Unit: 'Count' }] },
          ],
        },
      };
      if (what === 'unconfirmed' || what === 'braked') log.error(`safety: ${by} ${what}`, line);
      // The workflow pausing at a close (or letting go of its brake) is its routine: counted, not a warning.
      else if (by === 'workflow') log.info(`safety: ${by} ${what}`, line);
      else log.warn(`safety: ${by} ${what}`, line);
    },
  };
}
