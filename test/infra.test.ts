import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TABLES } from '#commons/tables.ts';
import { buildApp } from '#infra/build-app.ts';
import { PHONE_METADATA, PHONE_ZONE_TABLE } from '#infra/bundling.ts';
import { FUNCTION_ENTRIES } from '#infra/settings.ts';
import { DEFAULT_EXECUTION_TIMEOUT_SECONDS } from '#state-machines/lifecycle-document.ts';

let template: Template;

/** The asset folders of the functions' bundles. */
const functionBundles = () =>
  readdirSync(outdir)
    .filter((d) => d.startsWith('asset.') && existsSync(join(outdir, d, 'index.mjs')))
    .map((d) => join(outdir, d));

/** A bundle's own files (its entry and chunks, not the lazy packages shipped beside it). */
const bundleFiles = (dir: string): string[] =>
  readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => !f.startsWith('node_modules') && /\.(mjs|map)$/.test(f))
    .map((f) => join(dir, f));
let synth: () => void;
// A folder of its own: one named by the process id could hold an earlier run's assets.
const outdir = mkdtempSync(join(tmpdir(), 'callsheet-cdk-test-'));
afterAll(() => rmSync(outdir, { recursive: true, force: true }));

beforeAll(() => {
  const { app, stack } = buildApp({
    outdir,
    context: { 'callsheet:VOICE_API_URL': 'https://voice.example.test' },
  });
  synth = () => app.synth();
  synth();
  template = Template.fromStack(stack);
}, 120_000);

describe('CDK app', () => {
  it('synthesizes with every cdk-nag AwsSolutions finding fixed or acknowledged', () => {
    expect(synth).not.toThrow();
    // The Voice API secret is the operator's (imported by name): the template holds no resource for it.
    template.resourceCountIs('AWS::SecretsManager::Secret', 0);
  });

  it('deploys the one lifecycle document, with the step function substituted in', () => {
    // The file plus the execution timeout the stack renders into it (state-machines/lifecycle-document.ts).
    const document = {
      ...JSON.parse(readFileSync('state-machines/campaign-lifecycle.asl.json', 'utf8')),
      TimeoutSeconds: DEFAULT_EXECUTION_TIMEOUT_SECONDS,
    };
    const [machine] = Object.values(template.findResources('AWS::StepFunctions::StateMachine'));
    const props = (machine as { Properties: Record<string, unknown> }).Properties;
    expect(props.StateMachineName).toBe('callsheet-lifecycle');
    expect(JSON.parse(props.DefinitionString as string)).toEqual(document);
    expect(Object.keys(props.DefinitionSubstitutions as object)).toEqual(['LifecycleFunctionArn']);
  });

  it('sends only incoming/ uploads of a versioned bucket through a queue with a dead-letter queue', () => {
    template.hasResourceProperties('AWS::S3::Bucket', { VersioningConfiguration: { Status: 'Enabled' } });
    // incoming/ to intake's queue, contacts/ to the contact queue (infra/contacts.ts); nothing else.
    const queueConfigurations = (prefix: string) =>
      Match.objectLike({
        Events: ['s3:ObjectCreated:*'],
        Filter: { Key: { FilterRules: [{ Name: 'prefix', Value: prefix }] } },
      });
    template.hasResourceProperties('Custom::S3BucketNotifications', {
      NotificationConfiguration: {
        QueueConfigurations: [queueConfigurations('incoming/'), queueConfigurations('contacts/')],
      },
    });
    template.hasResourceProperties('AWS::SQS::Queue', { RedrivePolicy: Match.objectLike({ maxReceiveCount: 5 }) });
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      BatchSize: 1,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
    });
  });

  it('bundles every function with the AWS SDK inside and no source maps', () => {
    const bundles = functionBundles();
    expect(bundles.length).toBe(Object.keys(FUNCTION_ENTRIES).length);
    for (const dir of bundles) {
      const files = bundleFiles(dir);
      // The entry and the chunks it loads on demand (infra/bundling.ts), the X-Ray SDK's among them.
      expect(files.length, dir).toBeGreaterThan(1);
      expect(files.filter((f) => f.endsWith('.map'))).toEqual([]);
      for (const file of files) {
        const code = readFileSync(file, 'utf8');
        // Nothing left for the runtime to provide: no import of an @aws-sdk package from outside the bundle.
        expect(code, file).not.toMatch(/(from|import\()\s*["']@aws-sdk\//);
        expect(code, file).not.toMatch(/sourceMappingURL/);
      }
    }
  });

  it('ships SheetJS beside the bundles that load it, where their import finds it and reads an .xls', () => {
    const bundles = functionBundles();
    // The bundle's file that imports SheetJS, if any.
    const importer = (dir: string) =>
      bundleFiles(dir).find((f) => readFileSync(f, 'utf8').includes('import("@e965/xlsx")'));
    const loading = bundles.filter((dir) => importer(dir));
    // intake and contacts read sheets; no bundle carries SheetJS inside (it was 0.5 MB of every cold start):
    // the string is one of SheetJS's own messages, and minification keeps it.
    expect(loading.length).toBe(2);
    for (const dir of bundles)
      for (const file of bundleFiles(dir))
        expect(readFileSync(file, 'utf8'), file).not.toContain('Unsupported ZIP Compression');
    for (const dir of loading) {
      // Resolved from the importing file as Node resolves the bundle's own import, then used on a real legacy .xls.
      const probe = `import { createRequire } from 'node:module';
        const file = createRequire(${JSON.stringify(importer(dir))}).resolve('@e965/xlsx');
        const XLSX = await import(file);
        const wb = XLSX.read(await (await import('node:fs/promises')).readFile('test/fixtures/libreoffice/leads.xls'));
        process.stdout.write(JSON.stringify([file, wb.SheetNames.length]));`;
      const [file, sheets] = JSON.parse(
        execFileSync(process.execPath, ['--input-type=module', '-e', probe], { encoding: 'utf8' }),
      ) as [string, number];
      expect(file).toBe(join(dir, 'node_modules/@e965/xlsx/xlsx.mjs'));
      expect(sheets).toBeGreaterThan(0);
    }
  });

  it.each([
    // intake and contacts parse numbers; intake alone places them in zones.
    [PHONE_METADATA, 2],
    [PHONE_ZONE_TABLE, 1],
  ])('ships $env beside the bundles that read it, where their environment names it', (file, readers) => {
    const functions = Object.values(template.findResources('AWS::Lambda::Function')) as {
      Properties: { Environment?: { Variables?: Record<string, string> }; Code: { S3Key?: string } };
    }[];
    const named = functions.filter((f) => f.Properties.Environment?.Variables?.[file.env]);
    expect(named.length).toBe(readers);
    const expected = readFileSync(file.from);
    for (const f of named) {
      const path = f.Properties.Environment?.Variables?.[file.env] as string;
      expect(path.startsWith('/var/task/')).toBe(true);
      // The asset's folder in the assembly is named by the hash its zip is uploaded under.
      const asset = join(outdir, `asset.${f.Properties.Code.S3Key?.replace(/\.zip$/, '')}`);
      expect(readFileSync(join(asset, path.slice('/var/task/'.length))).equals(expected)).toBe(true);
    }
  });

  it('refuses to synthesize without the Voice API URL', () => {
    expect(() => buildApp({ outdir: `${process.env.TMPDIR ?? '/tmp'}/callsheet-cdk-nourl-${process.pid}` })).toThrow(
      /callsheet:VOICE_API_URL/,
    );
  });

  it('creates the tables the local stack creates, and Node 22 functions that name them', () => {
    template.resourceCountIs('AWS::DynamoDB::GlobalTable', Object.keys(TABLES).length);
    const functions = Object.values(template.findResources('AWS::Lambda::Function')).filter(
      (f) => (f as { Properties: { Runtime?: string } }).Properties.Runtime === 'nodejs22.x',
    );
    expect(functions.length).toBeGreaterThanOrEqual(2);
    const env = functions.map((f) =>
      Object.keys(
        (f as { Properties: { Environment?: { Variables?: object } } }).Properties.Environment?.Variables ?? {},
      ),
    );
    expect(env.flat()).toEqual(
      expect.arrayContaining(['UPLOADS_TABLE', 'SUPPRESSION_TABLE', 'CAMPAIGNS_TABLE', 'VOICE_API_SECRET_ARN']),
    );
  });
});

describe('CDK app: contacts', () => {
  it('routes Contact Upserted events from the bus to the contact queue and syncs it in batches', () => {
    template.hasResourceProperties('AWS::Events::Rule', { EventPattern: { 'detail-type': ['Contact Upserted'] } });
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      BatchSize: 500,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
    });
    template.hasResourceProperties('AWS::SQS::Queue', { RedrivePolicy: Match.objectLike({ maxReceiveCount: 7 }) });
  });
});
