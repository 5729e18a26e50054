import { PutObjectCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll } from 'vitest';
import { jsonLog } from '../../functions/commons/log.ts';
import { type LocalStack, startLocalStack } from '../../local/stack/local-stack.ts';
import type { LocalExecution } from '../../local/stack/step-functions.ts';
import { type EmulatorFixture, TEST_KEY, useEmulator } from './emulator.ts';

export interface PipelineFixture {
  f: EmulatorFixture;
  stack: LocalStack;
}

/**
 * The whole local pipeline per test file: the emulator on simulated time, the embedded stack following that
 * clock, intake fed by real S3 events, and the lifecycle document run by the local Step Functions.
 */
export function usePipeline(settings: Record<string, string> = {}): PipelineFixture {
  const fixture = { f: useEmulator() } as PipelineFixture;
  beforeAll(async () => {
    fixture.stack = await startLocalStack({
      voiceApi: { url: fixture.f.emu.url, apiKey: TEST_KEY },
      clock: fixture.f.emu.core.clock,
      settings: { DEFAULT_COUNTRY: 'US', ...settings },
      // CALLSHEET_TEST_LOG=1 prints the handlers' log lines, for finding out why a run went wrong.
      ...(process.env.CALLSHEET_TEST_LOG ? { log: jsonLog('test', (l) => console.log(l)) } : {}),
    });
  });
  afterAll(async () => {
    await fixture.stack?.close();
  });
  return fixture;
}

/**
 * Uploads a sheet as a user would, waits until intake has handled it and every execution has ended, and answers
 * the executions this upload started (continuations included).
 */
export async function uploadAndRun(
  p: PipelineFixture,
  key: string,
  body: Buffer,
  metadata: Record<string, string> = {},
): Promise<LocalExecution[]> {
  const started = await uploadOnly(p, key, body, metadata);
  await p.stack.sfn.settled();
  return started();
}

/** Uploads and waits for intake only, so a test can script operator actions before the run plays out. */
export async function uploadOnly(
  p: PipelineFixture,
  key: string,
  body: Buffer,
  metadata: Record<string, string> = {},
): Promise<() => LocalExecution[]> {
  const before = new Set(p.stack.sfn.executions.keys());
  await p.stack.s3Client.send(
    new PutObjectCommand({ Bucket: p.stack.bucket, Key: key, Body: body, Metadata: metadata }),
  );
  await p.stack.intakeQueue.idle();
  return () => [...p.stack.sfn.executions.values()].filter((e) => !before.has(e.executionArn));
}

export async function readJson<T>(p: PipelineFixture, key: string): Promise<T> {
  const obj = await p.stack.objects.get(p.stack.bucket, key);
  if (!obj) throw new Error(`s3://${p.stack.bucket}/${key} does not exist`);
  return JSON.parse(obj.bytes.toString('utf8')) as T;
}
