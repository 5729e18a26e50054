import type { Context } from 'aws-lambda';
import { describe, expect, it, vi } from 'vitest';
import { silentLog } from '#commons/log.ts';
import { makeObservability } from '#commons/observability.ts';
import type { CampaignGuard } from '#lifecycle/safety-net/campaign-guard.ts';
import { makeSweeperHandler } from '#lifecycle/safety-net/handler.ts';

const context = { functionName: 'callsheet-sweeper', awsRequestId: 'req-1' } as unknown as Context;

describe('the sweeper handler', () => {
  it('warns when a sweep scanned the campaigns table instead of reading its status index, and only then', async () => {
    for (const scanned of ['Cannot read from backfilling global secondary index: by-status', undefined]) {
      const warnings: { message: string; fields?: Record<string, unknown> }[] = [];
      const guard = {
        sweep: async () => ({ actions: [], quietUntil: null, ...(scanned ? { scanned } : {}) }),
      } as unknown as CampaignGuard;
      const log = {
        ...silentLog,
        warn: (message: string, fields?: Record<string, unknown>) => void warnings.push({ message, fields }),
      };
      const handler = makeSweeperHandler(guard, log, makeObservability('sweeper-test', {}));
      expect(await handler({}, context)).toEqual({ actions: 0, quietUntil: null });
      expect(warnings).toEqual(
        scanned
          ? [
              {
                message: 'sweeper: scanned the whole campaigns table, an index of it not readable',
                fields: { scanned },
              },
            ]
          : [],
      );
    }
  });

  it('warns when the calls list could not be read, so no campaign resumed outside callsheet was looked for', async () => {
    const warnings: { message: string; fields?: Record<string, unknown> }[] = [];
    const watched = { campaignId: 'cmp_1', startsAt: null };
    const guard = {
      sweep: async () => ({ actions: [], quietUntil: null, watching: [watched], callsUnchecked: 'GET /calls: 503' }),
    } as unknown as CampaignGuard;
    const log = {
      ...silentLog,
      warn: (message: string, fields?: Record<string, unknown>) => void warnings.push({ message, fields }),
    };
    const obs = makeObservability('sweeper-test', {});
    const metrics = vi.spyOn(obs.metrics, 'addMetric');
    const handler = makeSweeperHandler(guard, log, obs);
    expect(await handler({}, context)).toEqual({ actions: 0, quietUntil: null, watching: [watched] });
    // Counted for the SweeperCallsUnread alarm: a watch that keeps failing is a night nobody watches.
    expect(metrics).toHaveBeenCalledWith('SweeperCallsUnread', 'Count', 1);
    expect(warnings).toEqual([
      {
        message: 'sweeper: could not read the calls list; campaigns resumed outside callsheet go unseen until it can',
        fields: { reason: 'GET /calls: 503' },
      },
    ]);
  });
});
