#!/usr/bin/env node
/**
 * Compiles the CLI (local/cli/main.ts and the project code it imports) into .build/cli/ with esbuild, so `callsheet`
 * starts from JavaScript instead of compiling TypeScript on every run. `npm ci` runs this (`prepare`), and so does
 * `npm test` (`pretest`); bin/callsheet.mjs runs it too whenever a source is newer than the bundle, so a stale
 * bundle never runs.
 *
 * - Packages are compiled in, except those in `EXTERNAL`. Node resolves and compiles an unbundled package's files
 *   one by one on every start, and scans CommonJS files for their exports when ES modules import them: the stand-ins
 *   alone (s3rver with koa and winston, aws-local-stepfunctions with its validators) took 0.8 s of CPU before a
 *   `callsheet run` did anything; bundled, only the code the CLI calls is compiled, in its command's chunks.
 *   CommonJS code finds `require` through the banner.
 * - ESM with splitting: each command is its own chunk, loaded when that command runs.
 * - `import.meta.url` in a source means that source's own location (it finds data files such as the state machine
 *   or the sample sheet next to it), not the bundle's.
 * - Each build goes to a folder named by its content hash and becomes current when `current.json` is renamed into
 *   place, so processes starting while another rebuilds never see half a bundle.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const OUT = join(ROOT, '.build', 'cli');
const CURRENT = join(OUT, 'current.json');
const ENTRY = 'local/cli/main.ts';
/** Besides the bundled sources: files whose change can change how the sources compile or resolve. */
const CONFIG_INPUTS = ['package.json', 'tsconfig.json', 'scripts/build-cli.mjs'];
/**
 * Packages left to Node at run time: native or self-locating ones (dynalite's LevelDB binding, esbuild's binary),
 * optional native helpers that may be absent (ws's), and the test tools the CLI never loads.
 */
const EXTERNAL = ['dynalite', 'esbuild', 'bufferutil', 'utf-8-validate', 'fsevents', 'exceljs', 'playwright-core'];
/** Old builds are removed once they are this old (a running `callsheet` may still load a chunk from its build). */
const KEEP_OLD_MS = 60 * 60 * 1000;

/**
 * The current bundle's entry as a file URL, or null when there is none or any of its inputs changed after it was
 * built (edited, added to by an edit that imports a new file, or deleted).
 */
export function freshBundle() {
  let current;
  try {
    current = JSON.parse(readFileSync(CURRENT, 'utf8'));
  } catch {
    return null;
  }
  for (const input of current.inputs) {
    let mtime;
    try {
      mtime = statSync(join(ROOT, input)).mtimeMs;
    } catch {
      return null;
    }
    if (mtime >= current.startedAt) return null;
  }
  return pathToFileURL(join(OUT, current.dir, 'main.js')).href;
}

/** `import.meta.url` in a source, as the URL of that source, computed from the chunk's own location at run time. */
function sourceUrlPlugin(chunkDir) {
  return {
    name: 'source-import-meta-url',
    setup(build) {
      build.onLoad({ filter: /\.ts$/ }, (args) => {
        if (args.path.includes(`${join('node_modules', '')}`)) return undefined;
        const text = readFileSync(args.path, 'utf8');
        if (!text.includes('import.meta.url')) return undefined;
        const fromChunk = relative(chunkDir, args.path).split('\\').join('/');
        return {
          contents: text.replaceAll('import.meta.url', `new URL(${JSON.stringify(fromChunk)}, import.meta.url).href`),
          loader: 'ts',
        };
      });
    },
  };
}

/** Every package in `EXTERNAL` stays an import, resolved by Node at run time. */
const externalPackages = {
  name: 'external-packages',
  setup(build) {
    // Bare specifiers only: relative paths and the package's own `#` aliases are sources to compile.
    build.onResolve({ filter: /^[^./#]/ }, (args) => {
      const external = EXTERNAL.some((name) => args.path === name || args.path.startsWith(`${name}/`));
      return external ? { path: args.path, external: true } : undefined;
    });
  },
};

/** `node_modules/<package>/package.json` for a file of an installed package (scoped or nested); other paths as given. */
function packageFile(input) {
  const match = /^(.*node_modules\/(?:@[^/]+\/)?[^/]+)\//.exec(input);
  return match ? `${match[1]}/package.json` : input;
}

/** Builds the bundle and makes it current; returns its entry as a file URL. */
export async function buildCli({ quiet = false } = {}) {
  let esbuild;
  try {
    esbuild = await import('esbuild');
  } catch {
    throw new Error(
      'the compiled CLI in .build/cli is missing or older than its sources, and esbuild (a dev dependency) is not installed to rebuild it. Run `npm ci` in the callsheet folder.',
    );
  }
  const startedAt = Date.now();
  mkdirSync(OUT, { recursive: true });
  // Every build is laid out as if in .build/cli/<hash>/; the hash is only known after building.
  const chunkDir = join(OUT, 'pending');
  const result = await esbuild.build({
    absWorkingDir: ROOT,
    entryPoints: { main: ENTRY },
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    outdir: chunkDir,
    chunkNames: '[name]-[hash]',
    write: false,
    metafile: true,
    logLevel: quiet ? 'silent' : 'error',
    legalComments: 'none',
    banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
    plugins: [externalPackages, sourceUrlPlugin(chunkDir)],
  });
  const files = [...result.outputFiles].sort((a, b) => a.path.localeCompare(b.path));
  const hash = createHash('sha256');
  for (const f of files) hash.update(relative(chunkDir, f.path)).update(f.contents);
  const dir = hash.digest('hex').slice(0, 16);
  const target = join(OUT, dir);
  try {
    statSync(join(target, 'main.js'));
  } catch {
    const tmp = join(OUT, `.tmp-${process.pid}-${startedAt}`);
    for (const f of files) {
      const path = join(tmp, relative(chunkDir, f.path));
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, f.contents);
    }
    try {
      renameSync(tmp, target);
    } catch {
      // Another process finished the same build first: its copy is identical.
      rmSync(tmp, { recursive: true, force: true });
    }
  }
  // A package's files are all written when it is installed: its package.json stands for them (a thousand fewer
  // files to look at on every start).
  const inputs = [...new Set([...Object.keys(result.metafile.inputs).map(packageFile), ...CONFIG_INPUTS])];
  const tmpCurrent = `${CURRENT}.${process.pid}`;
  writeFileSync(tmpCurrent, `${JSON.stringify({ dir, startedAt, inputs }, null, 1)}\n`);
  renameSync(tmpCurrent, CURRENT);
  for (const name of readdirSync(OUT)) {
    // Also what a crashed build left half-written; one being written now is young.
    if (name === dir || name === 'current.json') continue;
    const path = join(OUT, name);
    if (Date.now() - statSync(path).mtimeMs > KEEP_OLD_MS) rmSync(path, { recursive: true, force: true });
  }
  return pathToFileURL(join(target, 'main.js')).href;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const t = performance.now();
  try {
    const entry = await buildCli();
    console.log(
      `callsheet CLI compiled to ${relative(ROOT, fileURLToPath(entry))} in ${(performance.now() - t).toFixed(0)} ms`,
    );
  } catch (err) {
    // `npm ci` and `npm test` go on: bin/callsheet.mjs then says so and runs the sources, and whatever uses the
    // broken code fails with its own error.
    if (!process.argv.includes('--allow-failure')) throw err;
    console.warn(`callsheet CLI not compiled (the CLI will run its TypeScript sources): ${err.message}`);
  }
}
