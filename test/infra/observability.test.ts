import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import middy from '@middy/core';
import type { Context, SQSEvent } from 'aws-lambda';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  count,
  countApiStatus,
  countCampaignState,
  METRIC,
  METRICS_NAMESPACE,
  makeObservability,
  observabilityFor,
  observe,
  tagLogs,
} from '#commons/observability.ts';
import { makeIntakeHandler } from '#intake/handler.ts';
import type { IntakeService } from '#intake/intake-service.ts';

const context = {
  functionName: 'callsheet-intake',
  functionVersion: '$LATEST',
  invokedFunctionArn: 'arn:aws:lambda:eu-west-1:123456789012:function:callsheet-intake',
  memoryLimitInMB: '1024',
  awsRequestId: 'req-1',
  logGroupName: '/aws/lambda/callsheet-intake',
  logStreamName: 's',
  callbackWaitsForEmptyEventLoop: true,
  getRemainingTimeInMillis: () => 60_000,
} as unknown as Context;

/** Everything written to stdout and stderr while `run` runs, one parsed JSON object per line. */
async function captured(run: () => Promise<unknown>): Promise<{ lines: Record<string, unknown>[]; error?: unknown }> {
  const raw: string[] = [];
  const keep = (chunk: string | Uint8Array) => {
    raw.push(`${String(chunk)}\n`);
    return true;
  };
  const spies = [
    vi.spyOn(process.stdout, 'write').mockImplementation(keep),
    vi.spyOn(process.stderr, 'write').mockImplementation(keep),
  ];
  let error: unknown;
  try {
    await run();
  } catch (err) {
    error = err;
  } finally {
    for (const spy of spies) spy.mockRestore();
  }
  const lines = raw
    .join('')
    .split('\n')
    .filter((l) => l.trim().startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  return { lines, error };
}

const lambdaEnv = {
  AWS_LAMBDA_FUNCTION_NAME: 'callsheet-intake',
  POWERTOOLS_LOG_LEVEL: 'INFO',
  POWERTOOLS_METRICS_DISABLED: 'false',
};

const run = promisify(execFile);

afterEach(() => vi.restoreAllMocks());

describe('observability', () => {
  it('prints nothing outside Lambda unless asked, and the handler still runs with the tracer off', async () => {
    const obs = makeObservability('quiet-test', {});
    expect(obs.tracer).toBeNull();
    const handler = observe(
      middy(async (event: { uploadId: string }) => {
        tagLogs(obs, { uploadId: event.uploadId });
        obs.logger.info('handled');
        count(obs, METRIC.uploads);
        countCampaignState(obs, 'completed');
        return 'ok';
      }),
      obs,
    );
    const out = await captured(async () => expect(await handler({ uploadId: 'u1' }, context)).toBe('ok'));
    expect(out.lines).toEqual([]);
  });

  it('puts the ids on every line of an invocation, drops them after it, and writes the metrics as EMF', async () => {
    const obs = makeObservability('intake', lambdaEnv);
    const handler = observe(
      middy(async (event: { uploadId?: string; contacts: number }) => {
        if (event.uploadId) tagLogs(obs, { uploadId: event.uploadId, campaignId: 'c-7', executionId: undefined });
        obs.logger.info('first');
        obs.logger.info('second');
        count(obs, METRIC.contactsAccepted, event.contacts);
        countApiStatus(obs, 429);
        countApiStatus(obs, 503);
        countApiStatus(obs, 200);
        return event.contacts;
      }),
      obs,
    );
    const first = await captured(() => handler({ uploadId: 'up-1', contacts: 3 }, context));
    const logs = first.lines.filter((l) => l.message === 'first' || l.message === 'second');
    expect(logs).toHaveLength(2);
    for (const l of logs) expect(l).toMatchObject({ uploadId: 'up-1', campaignId: 'c-7', service: 'intake' });
    expect(logs[0]).not.toHaveProperty('executionId');
    const emf = first.lines.find((l) => '_aws' in l) as Record<string, unknown>;
    expect(emf).toMatchObject({
      service: 'callsheet',
      [METRIC.contactsAccepted]: 3,
      [METRIC.apiRequests]: [1, 1, 1],
      [METRIC.apiThrottled]: 1,
      [METRIC.apiServerErrors]: 1,
    });
    expect(JSON.stringify(emf._aws)).toContain(METRICS_NAMESPACE);
    expect(emf).not.toHaveProperty(METRIC.apiClientErrors);

    const second = await captured(() => handler({ contacts: 1 }, context));
    const again = second.lines.filter((l) => l.message === 'first');
    expect(again).toHaveLength(1);
    expect(again[0]).not.toHaveProperty('uploadId');
  });

  it('counts campaigns by state under a state dimension', async () => {
    const obs = makeObservability('lifecycle', lambdaEnv);
    const out = await captured(async () => countCampaignState(obs, 'failed'));
    const emf = out.lines.find((l) => '_aws' in l) as Record<string, unknown>;
    expect(emf).toMatchObject({ state: 'failed', service: 'callsheet', [METRIC.campaigns]: 1 });
  });

  it('logs a failed invocation with its ids and lets the error through', async () => {
    const obs = makeObservability('lifecycle', lambdaEnv);
    const handler = observe(
      middy(async (): Promise<void> => {
        tagLogs(obs, { campaignId: 'c-9' });
        throw Object.assign(new Error('vendor said no'), { name: 'PermanentError' });
      }),
      obs,
    );
    const out = await captured(() => handler({}, context));
    expect((out.error as Error).name).toBe('PermanentError');
    const failure = out.lines.find((l) => l.message === 'invocation failed');
    expect(failure).toMatchObject({ level: 'ERROR', campaignId: 'c-9', error: { name: 'PermanentError' } });
  });

  it('makes one set per function name', () => {
    expect(observabilityFor('guard')).toBe(observabilityFor('guard'));
    expect(observabilityFor('guard')).not.toBe(observabilityFor('sweeper'));
  });
});

describe('intake handler wiring', () => {
  it('logs each upload through Powertools with its upload id and counts uploads and accepted contacts', async () => {
    const obs = makeObservability('intake', lambdaEnv);
    // A stand-in for the service: this test is about the handler's wiring, the service has its own tests.
    const service = {
      process: async () => ({
        status: 'launched' as const,
        uploadId: 'up-42',
        reportKey: 'reports/up-42/report.json',
        movedTo: 'processed/up-42/a.csv',
        parts: [
          { index: 0, executionName: 'e0', rows: 7, timeZone: 'Europe/Paris' },
          { index: 1, executionName: 'e1', rows: 5, timeZone: 'Asia/Kolkata' },
        ],
      }),
    } as unknown as IntakeService;
    const handler = makeIntakeHandler(service, undefined, obs);
    const body = JSON.stringify({
      Records: [
        {
          eventSource: 'aws:s3',
          eventName: 'ObjectCreated:Put',
          s3: { bucket: { name: 'b' }, object: { key: 'incoming/agent/a.csv', versionId: 'v1', eTag: 'e' } },
        },
      ],
    });
    const out = await captured(() => handler({ Records: [{ messageId: 'm1', body }] } as unknown as SQSEvent, context));
    expect(out.error).toBeUndefined();
    const handled = out.lines.find((l) => l.message === 'upload handled');
    expect(handled).toMatchObject({ uploadId: 'up-42', status: 'launched', service: 'intake', parts: 2 });
    const emf = out.lines.find((l) => '_aws' in l);
    expect(emf).toMatchObject({ [METRIC.uploads]: 1, [METRIC.contactsAccepted]: 12 });
  });
});

describe('the X-Ray tracer', () => {
  /** What a fresh process with `env` makes of observability (the tracer is decided at module load). */
  async function tracerIn(env: Record<string, string>): Promise<string> {
    const script = `const { makeObservability } = await import(${JSON.stringify(new URL('../../functions/commons/observability.ts', import.meta.url).href)});
const obs = makeObservability('intake');
process.stdout.write(obs.tracer === null ? 'none' : obs.tracer.constructor.name);`;
    const { stdout } = await run(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      env: { PATH: process.env.PATH, ...env },
      timeout: 60_000,
    });
    return stdout;
  }

  it('is loaded in Lambda, and not when tracing is off or outside Lambda', async () => {
    expect(await tracerIn({ AWS_LAMBDA_FUNCTION_NAME: 'callsheet-intake' })).toBe('Tracer');
    expect(await tracerIn({ AWS_LAMBDA_FUNCTION_NAME: 'callsheet-intake', POWERTOOLS_TRACE_ENABLED: 'false' })).toBe(
      'none',
    );
    expect(await tracerIn({})).toBe('none');
  }, 60_000);
});
