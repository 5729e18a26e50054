import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { VoiceApiClient } from '#commons/voice-api/index.ts';
import { startEmulator } from '#local/emulator/server.ts';
import { localDataDir, localDynamoPath } from '#local/stack/data-dir.ts';
import { CALLSHEET_BUS } from '#local/stack/event-bus.ts';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '#local/stack/local-aws.ts';
import { checkStackSettings, startLocalStack } from '#local/stack/local-stack.ts';
import { PacedScheduler } from '#local/stack/paced-scheduler.ts';
import { keepReportPages } from '#local/stack/report-pages.ts';
import { claimDataDir, describeStack } from '#local/stack/running-stack.ts';
import { STATS_EVERY_MS, sampleStats } from '#local/stack/stats-sampler.ts';
import { deliverEmulatorWebhooks } from '#local/stack/webhook-receiver.ts';
import { type Command, numberOption, UsageError } from '../command.ts';
import { fileLog } from '../file-log.ts';
import { shellSettings, shortTimeoutNote } from '../shell-settings.ts';
import { onStopSignal } from '../stop-signals.ts';
import { parseNow } from '../time-option.ts';

/** The ports from --port-base: S3, DynamoDB, Step Functions, webhooks, the Voice API emulator, EventBridge. */
export const PORT_OFFSETS = { s3: 0, dynamodb: 1, sfn: 2, webhooks: 3, api: 4, events: 5 } as const;
const LAST_OFFSET = Math.max(...Object.values(PORT_OFFSETS));
const DEFAULT_PORT_BASE = 4566;

/**
 * The AWS CLI's settings for the stand-ins: path-style addressing (s3rver has no virtual hosts) and checksums only
 * when an operation requires them (newer botocore sends aws-chunked uploads with trailing checksums by default,
 * which s3rver would store as they arrive on the wire).
 */
const AWS_CONFIG = `[default]
region = ${LOCAL_REGION}
request_checksum_calculation = when_required
response_checksum_validation = when_required
s3 =
    addressing_style = path
`;

export const localCommand: Command = {
  name: 'local',
  summary: 'run the whole stack on 127.0.0.1 until interrupted, for the AWS CLI and the operator commands',
  usage: 'local [--port-base N] [--speed X] [--now ISO] [--credits N] [--concurrency N]',
  options: {
    'port-base': { type: 'string' },
    speed: { type: 'string' },
    now: { type: 'string' },
    credits: { type: 'string' },
    concurrency: { type: 'string' },
  },
  help: [
    'options:',
    `  --port-base N    first of six ports on 127.0.0.1 (default ${DEFAULT_PORT_BASE}): S3 N, DynamoDB N+1,`,
    '                   Step Functions N+2, webhook receiver N+3, Voice API emulator N+4, EventBridge N+5;',
    '                   0 picks free ports',
    '  --speed X        simulated seconds per real second (default 1: real time); 600 plays a day in 2.4 min',
    '  --now ISO        simulated start with an offset, e.g. 2026-12-07T10:00:00-05:00 (default: now)',
    "  --credits N      the emulator account's starting credit balance in INR (default 10000)",
    '  --concurrency N  calls the emulator has on the line at once, account-wide (default 10)',
    '',
    'Starts S3 (s3rver), DynamoDB (dynalite), Step Functions running the campaign lifecycle with its guard and',
    'sweeper, EventBridge, contact sync, the webhook receiver and the Voice API emulator with an agent ready, then',
    'prints `export` lines. With them the AWS CLI needs no flags:',
    '  aws s3 cp sheet.xlsx s3://$CALLSHEET_BUCKET/incoming/$CALLSHEET_AGENT_ID/   starts intake and campaigns',
    '  aws s3 cp events.jsonl s3://$CALLSHEET_BUCKET/contacts/                    syncs contacts (or a sheet)',
    '  aws events put-events --entries file://entries.json                         Contact Upserted events, bus',
    '                                                                              $CALLSHEET_EVENT_BUS',
    '  aws s3 ls --recursive s3://$CALLSHEET_BUCKET/reports/                       lists the reports',
    '  aws dynamodb scan --table-name callsheet-campaigns                          reads a table',
    "and callsheet's operator commands (status, campaign, report, contacts) reach this stack through its data",
    'directory. Every caller of the API (lifecycle, contact sync, outcomes) draws on one budget, as deployed.',
    'State stays in $CALLSHEET_DATA_DIR (default .callsheet/); reports are also copied to <data dir>/reports/.',
    'Ctrl-C stops it; running workflows stop with it (their campaigns stay on the emulator, which stops too).',
  ],
  async run(values) {
    const base = numberOption(values['port-base'], 'port-base', DEFAULT_PORT_BASE);
    if (!Number.isInteger(base) || base < 0 || base > 65535 - LAST_OFFSET)
      throw new UsageError(`--port-base must be a whole number from 0 to ${65535 - LAST_OFFSET}`);
    const speed = numberOption(values.speed, 'speed', 1);
    if (!(speed > 0)) throw new UsageError('--speed must be more than 0');
    const now = parseNow(values.now as string | undefined);
    const credits = values.credits === undefined ? undefined : numberOption(values.credits, 'credits', 10_000);
    if (credits !== undefined && credits < 0) throw new UsageError('--credits must be 0 or more');
    const concurrency =
      values.concurrency === undefined ? undefined : numberOption(values.concurrency, 'concurrency', 10);
    if (concurrency !== undefined && (!Number.isInteger(concurrency) || concurrency < 1))
      throw new UsageError('--concurrency must be a whole number of 1 or more');
    const port = (name: keyof typeof PORT_OFFSETS) => (base === 0 ? 0 : base + PORT_OFFSETS[name]);

    const dataDir = localDataDir();
    // A directory another stack holds is refused (DataDirBusyError: printed by main, exit status 1), before the
    // ports: a second `local` on it would find them taken too, and be sent to --port-base for nothing.
    const claim = await claimDataDir(dataDir, 'local');
    // s3rver crashes on a taken port instead of failing its start: find out before starting anything.
    if (base !== 0)
      try {
        for (const name of Object.keys(PORT_OFFSETS) as (keyof typeof PORT_OFFSETS)[]) await checkFree(port(name));
      } catch (err) {
        await claim.release();
        throw err;
      }
    const stopping = new Promise<string>((resolve) => {
      onStopSignal(resolve);
    });
    const apiKey = `local-${randomBytes(12).toString('hex')}`;
    const simulated = speed !== 1 || now !== undefined;
    const closers: (() => Promise<unknown>)[] = [claim.release];
    const closeAll = async () => {
      for (const close of closers.reverse()) await close().catch(() => undefined);
    };
    try {
      // A bad setting stops the stack before anything starts.
      const settings = shellSettings();
      checkStackSettings(settings);
      // Every line to local.log; warnings and errors to this terminal too (stdout carries the export lines).
      const log = fileLog(join(dataDir, 'local.log'), { service: 'callsheet-local', info: true, terminal: true });
      closers.push(log.close);
      const shortTimeout = shortTimeoutNote(settings);
      if (shortTimeout) log.warn(shortTimeout);
      const emulator = await startEmulator({
        port: port('api'),
        apiKey,
        speed,
        // A new seed each start: ids (campaigns, calls) must not repeat those kept in the data directory.
        seed: `local-${randomBytes(6).toString('hex')}`,
        startTime: now ?? Date.now(),
        settings: {
          ...(credits === undefined ? {} : { credits }),
          ...(concurrency === undefined ? {} : { concurrency }),
        },
      });
      closers.push(() => emulator.close());
      const scheduler = simulated ? new PacedScheduler(emulator.core.clock) : undefined;
      const stack = await startLocalStack({
        voiceApi: { url: emulator.url, apiKey },
        ...(simulated
          ? { clock: emulator.core.clock, scheduler, mayDial: (id, startsAt) => emulator.core.mayDial(id, startsAt) }
          : {}),
        dynamoPath: localDynamoPath(),
        checkDocuments: false,
        s3Directory: join(dataDir, 's3'),
        settings,
        ports: {
          s3: port('s3'),
          dynamodb: port('dynamodb'),
          sfn: port('sfn'),
          webhooks: port('webhooks'),
          events: port('events'),
        },
        log,
      });
      closers.push(async () => {
        scheduler?.stop();
        await stack.close();
      });
      // The agent from the shared budget; the stats samples for the report pages read the workflows' records.
      const api = new VoiceApiClient({ baseUrl: emulator.url, apiKey, budget: stack.budget('shared') });
      const sampler = sampleStats(stack, { everyMs: STATS_EVERY_MS, log });
      const pages = keepReportPages(stack, join(dataDir, 'reports'), log, sampler.samples);
      closers.push(async () => {
        sampler.stop();
        await pages.close();
      });
      await deliverEmulatorWebhooks(emulator.url, stack.webhooks);
      const agent = await api.agents.create({
        name: 'callsheet local',
        agent_prompt: 'Remind the contact of their appointment.',
      });
      const awsConfig = join(dataDir, 'aws-config');
      await writeFile(awsConfig, AWS_CONFIG);
      await claim.publish(describeStack(stack, { url: emulator.url, apiKey }, agent.id));
      const exports: [string, string][] = [
        ['AWS_ENDPOINT_URL_S3', stack.s3.endpoint],
        ['AWS_ENDPOINT_URL_DYNAMODB', stack.dynamo.endpoint],
        ['AWS_ENDPOINT_URL_SFN', stack.env.AWS_ENDPOINT_URL_SFN as string],
        ['AWS_ENDPOINT_URL_EVENTBRIDGE', stack.env.AWS_ENDPOINT_URL_EVENTBRIDGE as string],
        ['AWS_ACCESS_KEY_ID', LOCAL_CREDENTIALS.accessKeyId],
        ['AWS_SECRET_ACCESS_KEY', LOCAL_CREDENTIALS.secretAccessKey],
        ['AWS_REGION', LOCAL_REGION],
        ['AWS_CONFIG_FILE', awsConfig],
        ['CALLSHEET_DATA_DIR', dataDir],
        ['CALLSHEET_BUCKET', stack.bucket],
        ['CALLSHEET_EVENT_BUS', CALLSHEET_BUS],
        ['CALLSHEET_AGENT_ID', agent.id],
        ['CALLSHEET_STATE_MACHINE_ARN', stack.stateMachineArn],
      ];
      console.log('# callsheet local: paste these into another shell, then use the AWS CLI and callsheet there');
      for (const [name, value] of exports) console.log(`export ${name}=${shellQuote(value)}`);
      console.log(
        `# Voice API emulator ${emulator.url} (${simulated ? `simulated time from ${emulator.core.clock.iso()}, ${speed}x` : 'real time'});` +
          ` webhooks ${stack.webhooks.url}; tables ${Object.values(stack.dynamo.tables).join(', ')}`,
      );
      console.log(
        `# reports are copied to ${join(dataDir, 'reports')}/; logs go to ${join(dataDir, 'local.log')} (warnings to this terminal too)`,
      );
      console.log('# Ctrl-C stops the stack');
      console.log('# ready');
      const signal = await stopping;
      console.log(`# ${signal}: stopping`);
      return 0;
    } catch (err) {
      const e = err as NodeJS.ErrnoException & { port?: number };
      if (e.code === 'EADDRINUSE') throw new Error(portTaken(e.port ?? 0));
      throw err;
    } finally {
      await closeAll();
      // Everything is stopped and saved; a stopped workflow's in-flight retry timer must not keep the process up.
      setTimeout(() => process.exit(), 1500).unref();
    }
  },
};

const shellQuote = (s: string) => (/^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, "'\\''")}'`);

const portTaken = (port: number) =>
  `port ${port} on 127.0.0.1 is taken (another callsheet local, or another program): ` +
  `choose other ports with --port-base N (it uses N to N+${LAST_OFFSET}), or --port-base 0 for free ones`;

/** Fails with the taken port named, as the stand-ins' own start would (EADDRINUSE). */
function checkFree(port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', (err: NodeJS.ErrnoException) =>
      reject(new Error(err.code === 'EADDRINUSE' ? portTaken(port) : `port ${port} on 127.0.0.1: ${err.message}`)),
    );
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve()));
  });
}
