import type { BuildOptions } from 'esbuild';

/**
 * How a function's code is bundled, in one place for the CDK (infra/callsheet-function.ts) and the bundle
 * benchmark (bench/bundles.ts), so the benchmark measures exactly what is deployed.
 * - ESM, so index.ts can read its settings with top-level await at cold start.
 * - The AWS SDK is bundled, not taken from the runtime: the version tested is the version run, and esbuild keeps
 *   only the clients used.
 * - Minified, without source maps unless the SOURCE_MAPS setting asks (they cost ~40 % of module load).
 */
export const BUNDLE_TARGET = 'node22';

// CommonJS dependencies in an ESM bundle still call require().
export const REQUIRE_BANNER =
  "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);";

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
    logLevel: 'silent',
  };
}
