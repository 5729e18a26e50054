import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Template } from 'aws-cdk-lib/assertions';
import { expect } from 'vitest';
import { buildApp } from '#infra/build-app.ts';

export type Resource = { Type: string; Properties: Record<string, unknown>; DeletionPolicy?: string };

/**
 * Synthesizes the stack (cdk-nag included) with the bundling and CDK's built-in CloudFormation validation skipped:
 * these tests read the template, not the zips (bench/bundles.ts measures those), and test/infra.test.ts synthesizes
 * as `cdk synth` does, with both. The validation's WebAssembly engine costs seconds of CPU to start in each worker.
 */
export function synth(context: Record<string, unknown> = {}): Template {
  const outdir = mkdtempSync(join(tmpdir(), 'callsheet-cdk-stack-'));
  const { app, stack } = buildApp({
    outdir,
    builtinCloudFormationValidation: false,
    context: {
      'aws:cdk:bundling-stacks': [],
      'callsheet:VOICE_API_URL': 'https://voice.example.test',
      ...context,
    },
  });
  try {
    app.synth();
    return Template.fromStack(stack);
  } finally {
    rmSync(outdir, { recursive: true, force: true });
  }
}

export const resources = (t: Template, type: string) =>
  Object.entries(t.toJSON().Resources as Record<string, Resource>).filter(([, r]) => r.Type === type);

/** The function of a folder, found by its logical id (CallsheetFunction ids in infra/). */
export const FUNCTION_IDS: Record<string, RegExp> = {
  intake: /^IntakeFunction[0-9A-F]{8}$/,
  lifecycle: /^LifecycleStepsFunction[0-9A-F]{8}$/,
  guard: /^GuardFunction[0-9A-F]{8}$/,
  sweeper: /^GuardSweeperFunction[0-9A-F]{8}$/,
  webhooks: /^WebhooksReceiverFunction[0-9A-F]{8}$/,
  outcomes: /^WebhooksProcessorFunction[0-9A-F]{8}$/,
  contacts: /^ContactsFunction[0-9A-F]{8}$/,
  reindex: /^ReindexFunction[0-9A-F]{8}$/,
};

export function functionEntry(t: Template, folder: string): [string, Resource] {
  const found = resources(t, 'AWS::Lambda::Function').filter(([id]) => FUNCTION_IDS[folder]?.test(id));
  expect(found, folder).toHaveLength(1);
  return found[0] as [string, Resource];
}

export const functionOf = (t: Template, folder: string): Resource => functionEntry(t, folder)[1];

/** The alarm named `Callsheet-<name>`. */
export function alarmOf(t: Template, name: string): Resource {
  const found = resources(t, 'AWS::CloudWatch::Alarm').filter(
    ([, a]) => a.Properties.AlarmName === `Callsheet-${name}`,
  );
  expect(found, name).toHaveLength(1);
  return (found[0] as [string, Resource])[1];
}
