import { Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { buildApp } from '../infra/build-app.ts';

describe('CDK app', () => {
  it('synthesizes with every cdk-nag AwsSolutions finding fixed or acknowledged', () => {
    const { app, stack } = buildApp({ outdir: `${process.env.TMPDIR ?? '/tmp'}/callsheet-cdk-test-${process.pid}` });
    expect(() => app.synth()).not.toThrow();
    const template = Template.fromStack(stack);
    template.resourceCountIs('AWS::SecretsManager::Secret', 1);
    template.hasResource('AWS::SecretsManager::Secret', { DeletionPolicy: 'Retain' });
  });
});
