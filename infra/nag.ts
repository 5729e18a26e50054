import { Validations } from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';

/**
 * Acknowledges AwsSolutions findings on a construct and everything under it, each with the reason it is
 * accepted. Findings are named as cdk-nag reports them (`IAM5[Resource::*]`).
 */
export function acknowledge(scope: IConstruct, reason: string, findings: string[]): void {
  for (const finding of findings)
    Validations.of(scope).acknowledge({ id: `AwsSolutions::AwsSolutions-${finding}`, reason });
}

export const BASIC_EXECUTION_ROLE =
  'IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]';
