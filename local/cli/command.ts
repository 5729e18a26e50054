import { type ParseArgsConfig, parseArgs } from 'node:util';

export interface Command {
  name: string;
  summary: string;
  usage: string;
  options: NonNullable<ParseArgsConfig['options']>;
  /** Lines explaining each option, shown by --help. */
  help: string[];
  allowPositionals?: boolean;
  run(values: Record<string, string | boolean | undefined>, positionals: string[]): Promise<number>;
}

/** A mistake in how the command was called: printed with a pointer to --help, exit status 2. */
export class UsageError extends Error {}

export function helpText(cmd: Command): string {
  return [
    `callsheet ${cmd.name}: ${cmd.summary}`,
    '',
    `usage: callsheet ${cmd.usage}`,
    '',
    ...cmd.help,
    '  -h, --help  show this help',
  ].join('\n');
}

export async function runCommand(cmd: Command, argv: string[]): Promise<number> {
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({
      args: argv,
      options: { ...cmd.options, help: { type: 'boolean', short: 'h' } },
      allowPositionals: cmd.allowPositionals ?? false,
      strict: true,
    });
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  if (parsed.values.help) {
    console.log(helpText(cmd));
    return 0;
  }
  return cmd.run(parsed.values as Record<string, string | boolean | undefined>, parsed.positionals);
}

export function numberOption(value: string | boolean | undefined, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (typeof value !== 'string' || value.trim() === '' || !Number.isFinite(n))
    throw new UsageError(`--${name} must be a number, got ${JSON.stringify(value)}`);
  return n;
}
