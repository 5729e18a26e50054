import { DescribeExecutionCommand, ExecutionDoesNotExist, type SFNClient } from '@aws-sdk/client-sfn';
import { sfnClient } from '#commons/aws/clients.ts';
import { type BuildOptions, buildCampaignSafety } from '../build-steps.ts';
import { CampaignGuard, type ExecutionReader } from './campaign-guard.ts';
import type { GuardConfig } from './config.ts';

/** DescribeExecution, with "no such execution" as null. */
export function sfnExecutionReader(sfn: SFNClient): ExecutionReader {
  return {
    async describe(executionArn) {
      try {
        const out = await sfn.send(new DescribeExecutionCommand({ executionArn }));
        return { status: out.status ?? 'UNKNOWN', input: out.input ?? '{}' };
      } catch (err) {
        if (err instanceof ExecutionDoesNotExist || (err as Error).name === 'ExecutionDoesNotExist') return null;
        throw err;
      }
    },
  };
}

export async function buildCampaignGuard(config: GuardConfig, options: BuildOptions = {}): Promise<CampaignGuard> {
  const { campaigns, safety } = await buildCampaignSafety(config.lifecycle, options);
  return new CampaignGuard({
    campaigns,
    safety,
    executions: sfnExecutionReader(sfnClient(config.lifecycle.aws)),
    now: options.now ?? (() => new Date()),
    settings: config.guard,
  });
}
