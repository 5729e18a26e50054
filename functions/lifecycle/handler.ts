import middy from '@middy/core';
import type { Log } from '../commons/log.ts';
import { type LifecycleSteps, partKeyOf, type StepInput } from './lifecycle-steps.ts';

/**
 * One function behind every Task state of the lifecycle state machine; `action` names the state. Errors are
 * thrown with their name (TransientError, PermanentError) so the state machine's Retry and Catch can tell them apart.
 */
export function makeLifecycleHandler(steps: LifecycleSteps, log: Log) {
  return middy(async (input: StepInput): Promise<unknown> => {
    const where = { action: input.action, part: partKeyOf(input.plan) };
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
        case 'finish':
          return await steps.finish(input);
        case 'fail':
          return await steps.fail(input);
        default:
          throw new Error(`unknown action ${JSON.stringify((input as { action: unknown }).action)}`);
      }
    } catch (err) {
      log.warn('lifecycle step failed', { ...where, error: (err as Error).name, reason: (err as Error).message });
      throw err;
    }
  });
}
