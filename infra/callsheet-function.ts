import { basename, join } from 'node:path';
import { AssetHashType, Duration, Stack } from 'aws-cdk-lib';
import type { CfnTable, ITable } from 'aws-cdk-lib/aws-dynamodb';
import type { CfnRole } from 'aws-cdk-lib/aws-iam';
import { Architecture, Code, Function as LambdaFunction, Runtime, Tracing } from 'aws-cdk-lib/aws-lambda';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import type { TableName } from '#commons/tables.ts';
import { TABLES } from '#commons/tables.ts';
import { type DataFile, deployedPath, FunctionBundle } from './bundling.ts';
import { acknowledge } from './nag.ts';
import { FUNCTION_ENTRIES, type FunctionFolder, settingsOf } from './settings.ts';

export interface CallsheetFunctionProps {
  /** The function's name: its handler is functions/<FUNCTION_ENTRIES[folder]>; its settings go by this name. */
  folder: FunctionFolder;
  description: string;
  timeout?: Duration;
  memorySize?: number;
  environment?: Record<string, string>;
  /** Instances at most (reserved concurrency), sized to the Voice API budget by the settings. */
  reservedConcurrency?: number;
  /** Data its dependencies read at run time: each shipped beside the bundle and named in its variable. */
  dataFiles?: readonly DataFile[];
  /** Whether the function reads uploaded sheets, so needs SheetJS beside its bundle for legacy .xls files. */
  readsSheets?: boolean;
}

/** CloudWatch Logs offers these retentions only; a setting is rounded up to the next. */
const RETENTIONS = Object.values(RetentionDays)
  .filter((v): v is RetentionDays => typeof v === 'number' && v > 0)
  .sort((a, b) => a - b);

export function retentionOf(days: number): RetentionDays {
  return RETENTIONS.find((r) => r >= days) ?? RetentionDays.INFINITE;
}

/**
 * One Lambda function with callsheet's defaults: Node 22 on ARM, an ESM bundle with the AWS SDK inside
 * (infra/bundling.ts), X-Ray tracing when the TRACING setting is on, its own log group, a role that may write only that log group, and the
 * settings its folder reads (infra/settings.ts) in its environment.
 *
 * The bundle is built here with esbuild's own API rather than by NodejsFunction, whose esbuild command always
 * writes one file (`--outfile`): code splitting (bundling.ts) needs an output folder.
 */
export class CallsheetFunction extends Construct {
  public readonly fn: LambdaFunction;
  public readonly logGroup: LogGroup;

  constructor(scope: Construct, id: string, props: CallsheetFunctionProps) {
    super(scope, id);
    const root = new URL('..', import.meta.url).pathname;
    const dataFiles = props.dataFiles ?? [];
    const copies = dataFiles.map((f) => ({ from: f.from, to: basename(f.from) }));
    const settings = settingsOf(this);
    const sourceMaps = settings?.get('SOURCE_MAPS') === true;
    const tracing = settings?.get('TRACING') === true;
    this.logGroup = new LogGroup(this, 'Logs', {
      retention: retentionOf(settings?.integer('LOG_RETENTION_DAYS') ?? 30),
    });
    const entry = join(root, 'functions', FUNCTION_ENTRIES[props.folder]);
    const code = Code.fromAsset(root, {
      assetHashType: AssetHashType.OUTPUT,
      bundling: {
        // Required by the type, never run: esbuild is a dependency, so the bundle is always built locally.
        image: Runtime.NODEJS_22_X.bundlingImage,
        local: new FunctionBundle(root, entry, sourceMaps, copies, props.readsSheets ?? false),
      },
    });
    this.fn = new LambdaFunction(this, 'Function', {
      code,
      handler: 'index.handler',
      runtime: Runtime.NODEJS_22_X,
      architecture: Architecture.ARM_64,
      description: props.description,
      timeout: props.timeout ?? Duration.seconds(60),
      memorySize: props.memorySize ?? 1024,
      tracing: tracing ? Tracing.ACTIVE : Tracing.DISABLED,
      reservedConcurrentExecutions: props.reservedConcurrency ?? settings?.concurrencyFor(props.folder),
      environment: {
        ...(sourceMaps ? { NODE_OPTIONS: '--enable-source-maps' } : {}),
        // functions/commons/observability.ts then does not even load the X-Ray SDK's chunk.
        ...(tracing ? {} : { POWERTOOLS_TRACE_ENABLED: 'false' }),
        ...settings?.environmentFor(props.folder),
        ...Object.fromEntries(dataFiles.map((f) => [f.env, deployedPath(f)])),
        ...props.environment,
      },
      logGroup: this.logGroup,
    });
    // Instead of AWSLambdaBasicExecutionRole (logs on every log group): write access to this function's group only.
    // The role stays the function's own child, so acknowledgements made on the function cover it.
    (this.fn.role?.node.defaultChild as CfnRole).managedPolicyArns = undefined;
    this.logGroup.grantWrite(this.fn);
    acknowledge(
      this.fn,
      'X-Ray has no resource-level permissions: xray:PutTraceSegments and PutTelemetryRecords take only *.',
      ['IAM5[Resource::*]'],
    );
    acknowledge(
      this.fn,
      'callsheet pins nodejs22.x: its bundles target node22 and it is tested on Node 20/22; a newer runtime is adopted deliberately, not by a redeploy.',
      ['L1'],
    );
  }

  /**
   * Names the table in the function's environment and grants exactly the access asked for. On a table with an index
   * the CDK grants its indexes too (`<table>/index/*`): an index holds only the table's own items, so reading it
   * reaches nothing the table's grant does not.
   */
  bindTable(name: TableName, table: ITable, access: 'read' | 'readWrite'): void {
    this.fn.addEnvironment(TABLES[name].env, table.tableName);
    if (access === 'read') table.grantReadData(this.fn);
    else table.grantReadWriteData(this.fn);
    const spec = TABLES[name];
    if ('indexes' in spec) {
      const id = Stack.of(table).getLogicalId(table.node.defaultChild as CfnTable);
      acknowledge(
        this.fn,
        `The ${name} table's own indexes (${spec.indexes.map((i) => i.name).join(', ')}): they hold only items of the table this function may already read.`,
        [`IAM5[Resource::<${id}.Arn>/index/*]`],
      );
    }
  }

  /**
   * Takes tokens from the account-wide Voice API budget (functions/commons/api-budget/): its table named in the
   * environment, and the one item read and conditionally updated per token; nothing else of the table.
   */
  bindBudget(table: ITable): void {
    this.fn.addEnvironment(TABLES.apiBudget.env, table.tableName);
    table.grant(this.fn, 'dynamodb:GetItem', 'dynamodb:UpdateItem');
  }
}
