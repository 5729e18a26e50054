import { cp, mkdir, mkdtemp, readFile, rm, symlink, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMMAND_TABLE } from '#local/cli/main.ts';
import { runCli, runScript } from './helpers/cli.ts';

const REPO = fileURLToPath(new URL('..', import.meta.url));

const run = (bin: string, args: string[] = []) => runScript(bin, args);

/**
 * A tiny project laid out like this one (the real bin and build script, a main.ts of its own), so the test can edit
 * and break sources without touching the real ones.
 */
describe('the CLI runs compiled JavaScript, never an out-of-date build', () => {
  let dir: string;
  let bin: string;
  const main = (version: string) => `import { readFileSync } from 'node:fs';
import { greeting } from './greeting.ts';
export async function main(argv: string[]): Promise<number> {
  const frame = new Error().stack?.split('\\n')[1] ?? '';
  console.log(JSON.stringify({
    version: '${version}',
    greeting,
    data: readFileSync(new URL('./data.txt', import.meta.url), 'utf8').trim(),
    compiled: frame.includes('/.build/cli/'),
    argv,
  }));
  return 0;
}
`;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'callsheet-bundle-'));
    await mkdir(join(dir, 'local/cli'), { recursive: true });
    await cp(join(REPO, 'bin'), join(dir, 'bin'), { recursive: true });
    await cp(join(REPO, 'scripts'), join(dir, 'scripts'), { recursive: true });
    await cp(join(REPO, 'tsconfig.json'), join(dir, 'tsconfig.json'));
    // The real bin finds the build script (and the sources it falls back to) through the package's aliases.
    const { imports } = JSON.parse(await readFile(join(REPO, 'package.json'), 'utf8')) as { imports: unknown };
    await writeFile(join(dir, 'package.json'), `${JSON.stringify({ type: 'module', imports })}\n`);
    await symlink(join(REPO, 'node_modules'), join(dir, 'node_modules'));
    await writeFile(join(dir, 'local/cli/main.ts'), main('1'));
    await writeFile(join(dir, 'local/cli/greeting.ts'), "export const greeting = 'hello';\n");
    await writeFile(join(dir, 'local/cli/data.txt'), 'found next to its source\n');
    bin = join(dir, 'bin/callsheet.mjs');
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('compiles on first use, then runs the bundle, which finds data files next to their sources', async () => {
    const first = await run(bin, ['--x']);
    expect(first.stderr).toBe('');
    expect(JSON.parse(first.stdout)).toEqual({
      version: '1',
      greeting: 'hello',
      data: 'found next to its source',
      compiled: true,
      argv: ['--x'],
    });
    const current = JSON.parse(await readFile(join(dir, '.build/cli/current.json'), 'utf8'));
    expect(current.inputs).toEqual(expect.arrayContaining(['local/cli/main.ts', 'local/cli/greeting.ts']));
    expect(JSON.parse((await run(bin)).stdout).compiled).toBe(true);
  });

  it('compiles again when any source is newer than the bundle, including one imported by another', async () => {
    await writeFile(join(dir, 'local/cli/main.ts'), main('2'));
    expect(JSON.parse((await run(bin)).stdout)).toMatchObject({ version: '2', greeting: 'hello', compiled: true });
    await writeFile(join(dir, 'local/cli/greeting.ts'), "export const greeting = 'bonjour';\n");
    // A timestamp clearly after the last build, whatever the file system's clock resolution.
    const future = new Date(Date.now() + 5_000);
    await utimes(join(dir, 'local/cli/greeting.ts'), future, future);
    expect(JSON.parse((await run(bin)).stdout)).toMatchObject({ version: '2', greeting: 'bonjour', compiled: true });
  });

  it('when a source does not compile, says so and stops instead of running the old bundle', async () => {
    await writeFile(join(dir, 'local/cli/greeting.ts'), "export const greeting = 'broken\n");
    const broken = await run(bin);
    expect(broken.stderr).toContain('callsheet: could not compile the CLI (fix the source, then run it again)');
    expect(broken.stdout).not.toContain('bonjour');
    expect(broken.code).not.toBe(0);
  });

  it('summaries in the command table are each command’s own', async () => {
    for (const entry of COMMAND_TABLE) {
      const command = await entry.load();
      expect([command.name, command.summary]).toEqual([entry.name, entry.summary]);
    }
  });

  it('the real CLI runs from its bundle', async () => {
    const help = await runCli(['--help']);
    expect(help.code).toBe(0);
    expect(help.stderr).toBe('');
    const current = JSON.parse(await readFile(join(REPO, '.build/cli/current.json'), 'utf8'));
    expect(current.inputs).toEqual(expect.arrayContaining(['local/cli/main.ts', 'local/cli/commands/validate.ts']));
  });

  it('--help loads no AWS SDK or spreadsheet code: only what main.js imports before any command runs', async () => {
    await runCli(['--help']);
    const { dir } = JSON.parse(await readFile(join(REPO, '.build/cli/current.json'), 'utf8'));
    /** A chunk and every chunk it imports statically (a command's chunks come by `import()` when it runs). */
    const loaded = async (file: string, seen = new Map<string, string>()): Promise<Map<string, string>> => {
      if (seen.has(file)) return seen;
      const text = await readFile(join(REPO, '.build/cli', dir, file), 'utf8');
      seen.set(file, text);
      for (const m of text.matchAll(/^(?:import|export)\s[^;]*?\sfrom\s*"\.\/([^"]+)"|^import\s*"\.\/([^"]+)"/gm))
        await loaded((m[1] ?? m[2]) as string, seen);
      return seen;
    };
    // Bundled packages leave a `// node_modules/<package>/…` line at each of their modules; others are imports.
    const heavy =
      /\/\/ node_modules\/(@aws-sdk|@smithy|@e965\/xlsx|s3rver|aws-local-stepfunctions)\/|from\s*"(@aws-sdk\/[^"]+|exceljs|@e965\/xlsx|s3rver|dynalite|aws-local-stepfunctions)"/;
    const atStart = await loaded('main.js');
    expect([...atStart].filter(([, text]) => heavy.test(text)).map(([file]) => file)).toEqual([]);
    // The same check finds the SDK where it is: in the chunks `callsheet run` loads.
    const run = /import\("\.\/(run-[^"]+)"\)/.exec(atStart.get('main.js') ?? '')?.[1] as string;
    expect([...(await loaded(run))].some(([, text]) => heavy.test(text))).toBe(true);
  });
});
