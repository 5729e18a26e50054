import { type Command, helpText, runCommand, UsageError } from './command.ts';
import { campaignCommand } from './commands/campaign.ts';
import { demoCommand } from './commands/demo.ts';
import { emulatorCommand } from './commands/emulator.ts';
import { runCommand as runPipelineCommand } from './commands/run.ts';
import { suppressCommand } from './commands/suppress.ts';
import { validateCommand } from './commands/validate.ts';

const COMMANDS: Command[] = [
  runPipelineCommand,
  campaignCommand,
  demoCommand,
  emulatorCommand,
  suppressCommand,
  validateCommand,
];

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
    "Run 'callsheet <command> --help' for a command's options.",
  ].join('\n');
}

export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    const target = COMMANDS.find((c) => c.name === rest[0]);
    console.log(target ? helpText(target) : overview());
    return name === undefined ? 2 : 0;
  }
  const cmd = COMMANDS.find((c) => c.name === name);
  if (!cmd) {
    console.error(`callsheet: unknown command ${JSON.stringify(name)}\n\n${overview()}`);
    return 2;
  }
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
