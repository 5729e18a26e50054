import { Duration } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { Architecture, Runtime, Tracing } from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, type NodejsFunctionProps, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import type { TableName } from '../functions/commons/tables.ts';
import { TABLES } from '../functions/commons/tables.ts';
import { acknowledge, BASIC_EXECUTION_ROLE } from './nag.ts';

export interface CallsheetFunctionProps {
  /** The folder under functions/ whose index.ts is the handler. */
  folder: string;
  description: string;
  timeout?: Duration;
  memorySize?: number;
  environment?: Record<string, string>;
  /** Files copied next to the bundle, e.g. data a dependency reads at run time. */
  copyFiles?: { from: string; to: string }[];
}

/**
 * One Lambda function with callsheet's defaults: Node 22 on ARM, an ESM bundle (top-level await reads config at
 * cold start), X-Ray tracing, a log group kept for a month.
 */
export class CallsheetFunction extends Construct {
  public readonly fn: NodejsFunction;

  constructor(scope: Construct, id: string, props: CallsheetFunctionProps) {
    super(scope, id);
    const root = new URL('..', import.meta.url).pathname;
    const copies = props.copyFiles ?? [];
    const fnProps: NodejsFunctionProps = {
      entry: `${root}functions/${props.folder}/index.ts`,
      projectRoot: root,
      depsLockFilePath: `${root}package-lock.json`,
      runtime: Runtime.NODEJS_22_X,
      architecture: Architecture.ARM_64,
      description: props.description,
      timeout: props.timeout ?? Duration.seconds(60),
      memorySize: props.memorySize ?? 1024,
      tracing: Tracing.ACTIVE,
      environment: { NODE_OPTIONS: '--enable-source-maps', ...props.environment },
      logGroup: new LogGroup(this, 'Logs', { retention: RetentionDays.ONE_MONTH }),
      bundling: {
        format: OutputFormat.ESM,
        target: 'node22',
        sourceMap: true,
        mainFields: ['module', 'main'],
        // CommonJS dependencies in an ESM bundle still call require().
        banner: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);",
        externalModules: ['@aws-sdk/*'],
        commandHooks: {
          beforeBundling: () => [],
          beforeInstall: () => [],
          afterBundling: (input: string, output: string) =>
            copies.map((c) => `cp "${input}/${c.from}" "${output}/${c.to}"`),
        },
      },
    };
    this.fn = new NodejsFunction(this, 'Function', fnProps);
    acknowledge(this.fn, 'AWSLambdaBasicExecutionRole only allows writing this function’s own logs.', [
      BASIC_EXECUTION_ROLE,
    ]);
    acknowledge(this.fn, 'X-Ray tracing needs xray:PutTraceSegments on *; AWS offers no narrower resource.', [
      'IAM5[Resource::*]',
    ]);
    acknowledge(this.fn, 'Node.js 22 is the runtime callsheet is built and tested for (middy 6, AWS SDK v3).', ['L1']);
  }

  /** Names the table in the function's environment and grants exactly the access asked for. */
  bindTable(name: TableName, table: ITable, access: 'read' | 'readWrite'): void {
    this.fn.addEnvironment(TABLES[name].env, table.tableName);
    if (access === 'read') table.grantReadData(this.fn);
    else table.grantReadWriteData(this.fn);
  }
}
