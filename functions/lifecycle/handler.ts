import middy from '@middy/core';
import type { Log } from '#commons/log.ts';
import {
  asLog,
  countCampaignState,
  type Observability,
  observabilityFor,
  observe,
  tagLogs,
} from '#commons/observability.ts';
import { asRetryable } from './errors.ts';
import { type LifecycleSteps, partKeyOf, type StepInput } from './lifecycle-steps.ts';

/** What the campaign reached after an action, for the Campaigns metric (dimension `state`). */
function stateAfter(action: StepInput['action'], out: unknown): string | null {
  if (action === 'createCampaign') return (out as { phase?: string }).phase === 'ended' ? 'held' : 'created';
  if (action === 'finish' || action === 'fail') return (out as { status?: string }).status ?? null;
  return null;
}

/**
 * One function behind every Task state of the lifecycle state machine; `action` names the state. Errors are
 * thrown with their name (TransientError, PermanentError) so the state machine's Retry and Catch can tell them
 * apart; an AWS SDK throttle or 5xx inside a step becomes a TransientError, so it is retried and not fatal.
 */
export function makeLifecycleHandler(
  steps: LifecycleSteps,
  log?: Log,
  obs: Observability = observabilityFor('lifecycle'),
) {
  const out = log ?? asLog(obs.logger);
  const handler = middy(async (input: StepInput): Promise<unknown> => {
    const where = { action: input.action, part: partKeyOf(input.plan), execution: input.execution };
    const carried = input.carry as { campaignId?: string } | undefined;
    tagLogs(obs, {
      uploadId: input.plan.uploadId,
      part: where.part,
      executionId: input.execution,
      campaignId: carried?.campaignId ?? undefined,
    });
    try {
      const result = await run(steps, input);
      const state = stateAfter(input.action, result);
      if (state) countCampaignState(obs, state);
      return result;
    } catch (err) {
      const mapped = asRetryable(err);
      out.warn('lifecycle step failed', { ...where, error: mapped.name, reason: mapped.message });
      throw mapped;
    }
  });
  return observe(handler, obs);
}

function run(steps: LifecycleSteps, input: StepInput): Promise<unknown> {
  switch (input.action) {
    case 'checkAgent':
      return steps.checkAgent(input);
    case 'createCampaign':
      return steps.createCampaign(input);
    case 'step':
      return steps.step(input);
    case 'continueAsNew':
      return steps.continueAsNew(input);
    case 'secure':
      return steps.secure(input);
    case 'finish':
      return steps.finish(input);
    case 'fail':
      return steps.fail(input);
    default:
      throw new Error(`unknown action ${JSON.stringify((input as { action: unknown }).action)}`);
  }
}
