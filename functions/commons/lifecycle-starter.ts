import { ExecutionAlreadyExists, type SFNClient, StartExecutionCommand } from '@aws-sdk/client-sfn';
import type { CampaignPlan } from './campaign-plan.ts';

export type StartResult = 'started' | 'already_started';

/** Starts the campaign lifecycle for one part. Must start at most one execution per name, whatever is retried. */
export interface LifecycleStarter {
  start(executionName: string, plan: CampaignPlan): Promise<StartResult>;
}

/**
 * Step Functions keeps execution names unique per state machine (for 90 days after an execution closes), so the
 * name derived from the upload version and part is the exactly-once guard; a repeat is answered, not started.
 */
export class StepFunctionsStarter implements LifecycleStarter {
  constructor(
    private readonly sfn: SFNClient,
    private readonly stateMachineArn: string,
  ) {}

  async start(executionName: string, plan: CampaignPlan): Promise<StartResult> {
    try {
      await this.sfn.send(
        new StartExecutionCommand({
          stateMachineArn: this.stateMachineArn,
          name: executionName,
          input: JSON.stringify({ plan }),
        }),
      );
      return 'started';
    } catch (err) {
      if (err instanceof ExecutionAlreadyExists || (err as Error).name === 'ExecutionAlreadyExists')
        return 'already_started';
      throw err;
    }
  }
}
