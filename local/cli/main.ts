import { type Command, helpText, runCommand, UsageError } from './command.ts';

interface CommandEntry {
  name: string;
  summary: string;
  load(): Promise<Command>;
}

/**
 * Each command's module is loaded only when that command runs (or shows its help): between them they load the AWS
 * SDK, exceljs and the local stack, which `callsheet --help` does not need. The summaries are repeated here for the
 * overview; test/cli-bundle.test.ts checks them against each command's own.
 */
const COMMANDS: CommandEntry[] = [
  {
    name: 'run',
    summary: 'run the whole pipeline on a sheet: intake, campaign lifecycle, reports (embedded stack, simulated time)',
    load: async () => (await import('./commands/run.ts')).runCommand,
  },
  {
    name: 'local',
    summary: 'run the whole stack on 127.0.0.1 until interrupted, for the AWS CLI and the operator commands',
    load: async () => (await import('./commands/local.ts')).localCommand,
  },
  {
    name: 'campaign',
    summary:
      'list campaigns, show one, pause, resume or cancel one (a pause is sent to the API at once), release a brake',
    load: async () => (await import('./commands/campaign.ts')).campaignCommand,
  },
  {
    name: 'caps',
    summary: 'frequency caps: fold call counts kept before an upgrade into the shards intake reads (caps reindex)',
    load: async () => (await import('./commands/caps.ts')).capsCommand,
  },
  {
    name: 'contacts',
    summary: 'push contact changes (a sheet or JSON lines) to the API, show one contact, list contacts',
    load: async () => (await import('./commands/contacts.ts')).contactsCommand,
  },
  {
    name: 'demo',
    summary: 'start the emulator and walk every part of the API once: agent, call with live transcript, campaign, TTS',
    load: async () => (await import('./commands/demo.ts')).demoCommand,
  },
  {
    name: 'emulator',
    summary: 'run the Voice Agent API emulator on 127.0.0.1 until interrupted',
    load: async () => (await import('./commands/emulator.ts')).emulatorCommand,
  },
  {
    name: 'hours',
    summary: 'when numbers may be called on a date, and every rule (with its source) that says so',
    load: async () => (await import('./commands/hours.ts')).hoursCommand,
  },
  {
    name: 'status',
    summary: 'uploads and their campaigns: progress, calling window and when it next changes',
    load: async () => (await import('./commands/status.ts')).statusCommand,
  },
  {
    name: 'report',
    summary: "a campaign's report: summary, and its JSON, HTML page and per-contact exports copied to a folder",
    load: async () => (await import('./commands/report.ts')).reportCommand,
  },
  {
    name: 'suppress',
    summary: 'add, remove or list numbers on the do-not-call list that intake removes from every upload',
    load: async () => (await import('./commands/suppress.ts')).suppressCommand,
  },
  {
    name: 'validate',
    summary: 'check a contact sheet as intake would: E.164 numbers, duplicates, rejected rows, parts',
    load: async () => (await import('./commands/validate.ts')).validateCommand,
  },
];

/** The command table, for the test that keeps its summaries true. */
export const COMMAND_TABLE: readonly CommandEntry[] = COMMANDS;

function overview(): string {
  const width = Math.max(...COMMANDS.map((c) => c.name.length));
  return [
    'callsheet: campaign orchestrator for the Voice Agent Developer API',
    '',
    'usage: callsheet <command> [options]',
    '',
    'commands:',
    ...COMMANDS.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    '',
    "Run 'callsheet <command> --help' for a command's options, 'callsheet --version' for the version.",
  ].join('\n');
}

/** The package's version (this file's location is the source's, also when it runs from the bundle). */
async function version(): Promise<string> {
  const { readFile } = await import('node:fs/promises');
  const pkg = JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}

export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    const target = COMMANDS.find((c) => c.name === rest[0]);
    console.log(target ? helpText(await target.load()) : overview());
    return name === undefined ? 2 : 0;
  }
  if (name === '--version' || name === '-V' || name === 'version') {
    console.log(`callsheet ${await version()}`);
    return 0;
  }
  const entry = COMMANDS.find((c) => c.name === name);
  if (!entry) {
    console.error(`callsheet: unknown command ${JSON.stringify(name)}\n\n${overview()}`);
    return 2;
  }
  const cmd = await entry.load();
  try {
    return await runCommand(cmd, rest);
  } catch (err) {
    if (err instanceof UsageError) {
      console.error(`callsheet ${cmd.name}: ${err.message}\nRun 'callsheet ${cmd.name} --help' for usage.`);
      return 2;
    }
    console.error(`callsheet ${cmd.name}: ${(err as Error).message}`);
    return 1;
  }
}
