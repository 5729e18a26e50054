import { PutObjectCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll } from 'vitest';
import { type LocalStack, startLocalStack } from '../../local/stack/local-stack.ts';
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
    });
  });
  afterAll(async () => {
    await fixture.stack?.close();
  });
  return fixture;
}

/** Uploads a sheet as a user would and waits until intake has handled it and every execution has ended. */
export async function uploadAndRun(
  p: PipelineFixture,
  key: string,
  body: Buffer,
  metadata: Record<string, string> = {},
): Promise<void> {
  await p.stack.s3Client.send(
    new PutObjectCommand({ Bucket: p.stack.bucket, Key: key, Body: body, Metadata: metadata }),
  );
  await p.stack.intakeQueue.idle();
  await p.stack.sfn.settled();
}

export async function readJson<T>(p: PipelineFixture, key: string): Promise<T> {
  const obj = await p.stack.objects.get(p.stack.bucket, key);
  if (!obj) throw new Error(`s3://${p.stack.bucket}/${key} does not exist`);
  return JSON.parse(obj.bytes.toString('utf8')) as T;
}
