import middy from '@middy/core';
import type { Log } from '../commons/log.ts';
import { asRetryable } from './errors.ts';
import { type LifecycleSteps, partKeyOf, type StepInput } from './lifecycle-steps.ts';

/**
 * One function behind every Task state of the lifecycle state machine; `action` names the state. Errors are
 * thrown with their name (TransientError, PermanentError) so the state machine's Retry and Catch can tell them
 * apart; an AWS SDK throttle or 5xx inside a step becomes a TransientError, so it is retried and not fatal.
 */
export function makeLifecycleHandler(steps: LifecycleSteps, log: Log) {
  return middy(async (input: StepInput): Promise<unknown> => {
    const where = { action: input.action, part: partKeyOf(input.plan), execution: input.execution };
    try {
      switch (input.action) {
        case 'checkAgent':
          return await steps.checkAgent(input);
        case 'createCampaign':
          return await steps.createCampaign(input);
        case 'step':
          return await steps.step(input);
        case 'continueAsNew':
          return await steps.continueAsNew(input);
        case 'secure':
          return await steps.secure(input);
        case 'finish':
          return await steps.finish(input);
        case 'fail':
          return await steps.fail(input);
        default:
          throw new Error(`unknown action ${JSON.stringify((input as { action: unknown }).action)}`);
      }
    } catch (err) {
      const mapped = asRetryable(err);
      log.warn('lifecycle step failed', { ...where, error: mapped.name, reason: mapped.message });
      throw mapped;
    }
  });
}
