import { App, type AppProps, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { CallsheetStack } from './callsheet-stack.ts';

/** The CDK app with the AWS Solutions checks; synthesis fails on any finding that is neither fixed nor acknowledged. */
export function buildApp(props: AppProps = {}): { app: App; stack: CallsheetStack } {
  const app = new App(props);
  const stack = new CallsheetStack(app, 'Callsheet', {
    env: { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION },
  });
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  return { app, stack };
}
