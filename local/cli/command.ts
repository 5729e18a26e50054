import { mkdir } from 'node:fs/promises';
import { type ParseArgsConfig, parseArgs } from 'node:util';
import { parseWindowRules, WindowSpecError } from '#commons/calling-window.ts';
import { ConfigError, type Env, EnvReader } from '#commons/config.ts';

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

/**
 * Settings read from this shell as a function reads them (`read`, then `done`): a bad value is a usage mistake, with
 * every problem named.
 */
export function readShellSettings<T>(read: (env: EnvReader) => T, env: Env = process.env): T {
  const reader = new EnvReader(env);
  try {
    const out = read(reader);
    reader.done();
    return out;
  } catch (err) {
    if (err instanceof ConfigError) throw new UsageError(err.problems.join('; '));
    throw err;
  }
}

const READ_ERRORS: Record<string, string> = {
  ENOENT: 'no such file',
  EISDIR: 'that is a folder; give a file',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
};

/** A file the user named that could not be read, said in words (`what` names the flag, when a flag named it). */
export function cannotRead(file: string, err: unknown, what?: string): UsageError {
  const e = err as NodeJS.ErrnoException;
  const why = (e.code && READ_ERRORS[e.code]) ?? e.message ?? String(err);
  return new UsageError(`${what ? `${what}: ` : ''}cannot read ${file}: ${why}`);
}

/** Makes the folder `--out` names (and its parents); a file of that name is a usage mistake said in words. */
export async function outFolder(dir: string): Promise<string> {
  if (dir.trim() === '') throw new UsageError('--out needs the name of a folder');
  try {
    await mkdir(dir, { recursive: true });
    return dir;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EEXIST' || code === 'ENOTDIR')
      throw new UsageError(`--out ${dir}: a file is in the way (${dir} or a folder above it is a file): name a folder`);
    throw new UsageError(`--out ${dir}: cannot create the folder: ${(code && READ_ERRORS[code]) ?? String(err)}`);
  }
}

/** A `--window` value checked as intake checks the setting, its mistake blamed on the flag. */
export function windowOption(spec: string | undefined): string | undefined {
  if (spec === undefined) return undefined;
  try {
    parseWindowRules(spec);
    return spec;
  } catch (err) {
    if (err instanceof WindowSpecError) throw new UsageError(`--window: ${err.message}`);
    throw err;
  }
}

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
      args: joinNegativeValues(cmd, argv),
      options: { ...cmd.options, help: { type: 'boolean', short: 'h' } },
      allowPositionals: cmd.allowPositionals ?? false,
      strict: true,
    });
  } catch (err) {
    throw new UsageError(parseProblem(cmd, err as Error & { code?: string }));
  }
  if (parsed.values.help) {
    console.log(helpText(cmd));
    return 0;
  }
  return cmd.run(parsed.values as Record<string, string | boolean | undefined>, parsed.positionals);
}

/**
 * `--retries -1` as `--retries=-1`: node:util's parser takes a value starting with `-` for an option, so a negative
 * number read as a missing value instead of reaching the option's own check (which says what is allowed).
 */
function joinNegativeValues(cmd: Command, argv: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === '--') {
      out.push(...argv.slice(i));
      break;
    }
    const next = argv[i + 1];
    const name = arg.startsWith('--') && !arg.includes('=') ? arg.slice(2) : null;
    if (name && cmd.options[name]?.type === 'string' && next !== undefined && /^-\d/.test(next)) {
      out.push(`${arg}=${next}`);
      i++;
    } else out.push(arg);
  }
  return out;
}

export function numberOption(value: string | boolean | undefined, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (typeof value !== 'string' || value.trim() === '' || !Number.isFinite(n))
    throw new UsageError(`--${name} must be a number, got ${JSON.stringify(value)}`);
  return n;
}

/** node:util's parser errors in the words of this command (its raw text talks about positionals and `--`). */
function parseProblem(cmd: Command, err: Error & { code?: string }): string {
  const quoted = /'([^']+)'/.exec(err.message)?.[1] ?? '';
  const known = Object.entries(cmd.options)
    .map(([name, o]) => `--${name}${o.type === 'string' ? ' <value>' : ''}`)
    .join(', ');
  switch (err.code) {
    case 'ERR_PARSE_ARGS_UNKNOWN_OPTION':
      return `unknown option ${quoted}${known ? ` (this command takes ${known})` : ' (this command takes no options)'}`;
    case 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE': {
      const name = quoted.split(' ')[0] ?? quoted;
      return cmd.options[name.replace(/^-+/, '')]?.type === 'boolean'
        ? `${name} takes no value`
        : `${name} needs a value`;
    }
    case 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL':
      return `unexpected argument ${JSON.stringify(quoted)}: this command takes none`;
    default:
      return err.message;
  }
}
