import { DescribeExecutionCommand, ExecutionDoesNotExist, type SFNClient } from '@aws-sdk/client-sfn';
import { s3Client, sfnClient } from '#commons/aws/clients.ts';
import { ObjectStore } from '#commons/aws/object-store.ts';
import { partReportKey } from '#commons/report-keys.ts';
import { type BuildOptions, buildCampaignSafety } from '../build-steps.ts';
import { CampaignGuard, type ExecutionReader, type PartReports } from './campaign-guard.ts';
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

/** Part reports in the upload bucket; a report the workflow wrote is never replaced. */
export function bucketPartReports(objects: ObjectStore): PartReports {
  return {
    async writeIfMissing(plan, label, report) {
      const key = partReportKey(plan.reportPrefix, label);
      if (await objects.head(plan.bucket, key)) return false;
      await objects.put(plan.bucket, key, `${JSON.stringify(report, null, 2)}\n`, 'application/json');
      return true;
    },
  };
}

export async function buildCampaignGuard(config: GuardConfig, options: BuildOptions = {}): Promise<CampaignGuard> {
  const { campaigns, safety, api } = await buildCampaignSafety(config.lifecycle, options);
  return new CampaignGuard({
    campaigns,
    safety,
    // The lifecycle's own share (launches, resumes): a contact sync cannot starve it, and it leaves the pauses theirs.
    calls: api.calls,
    executions: sfnExecutionReader(sfnClient(config.lifecycle.aws)),
    reports: bucketPartReports(new ObjectStore(s3Client(config.lifecycle.aws))),
    now: options.now ?? (() => new Date()),
    settings: config.guard,
  });
}
