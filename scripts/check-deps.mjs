#!/usr/bin/env node
/**
 * `npm run deps`: package.json lists what the code uses, in the right place. Fails, naming each, when
 * - production code (functions, local, infra, state-machines, bin and the CLI builder it runs) imports a package that
 *   is not a dependency, or any code imports one that is not listed at all;
 * - a dependency is not imported by production code (it belongs in devDependencies, or nowhere);
 * - a devDependency is used nowhere: not imported, not a type package of an import, not a tool the npm scripts or
 *   cdk.json run.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join } from 'node:path';

const ROOT = new URL('..', import.meta.url).pathname;
const PRODUCTION = ['functions', 'local', 'infra', 'state-machines', 'bin', 'scripts/build-cli.mjs'];
const DEVELOPMENT = ['test', 'bench', 'scripts', 'examples', 'vitest.config.ts'];
const SOURCE = /\.(ts|mts|mjs|js)$/;
const IMPORT =
  /(?:\bfrom\s+|\bimport\s*\(\s*|\bimport\s+|import\.meta\.resolve\(\s*|\brequire\(\s*)['"]([^'"./#][^'"]*)['"]/g;
const BUILTIN = new Set(builtinModules);

function files(path) {
  const full = join(ROOT, path);
  if (statSync(full).isFile()) return SOURCE.test(path) ? [path] : [];
  return readdirSync(full).flatMap((name) =>
    name === 'node_modules' || name.startsWith('.') ? [] : files(join(path, name)),
  );
}

const packageOf = (spec) => (spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]);

function imports(paths) {
  const used = new Map();
  for (const file of paths.flatMap(files)) {
    for (const m of readFileSync(join(ROOT, file), 'utf8').matchAll(IMPORT)) {
      const spec = m[1];
      if (spec.includes('${')) continue; // a template: not a package name
      if (spec.startsWith('node:') || BUILTIN.has(packageOf(spec))) continue;
      const name = packageOf(spec);
      if (!used.has(name)) used.set(name, file);
    }
  }
  return used;
}

const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
const deps = new Set(Object.keys(pkg.dependencies ?? {}));
const devDeps = new Set(Object.keys(pkg.devDependencies ?? {}));
const prod = imports(PRODUCTION);
const dev = imports(DEVELOPMENT);
const commands = `${Object.values(pkg.scripts ?? {}).join('\n')}\n${readFileSync(join(ROOT, 'cdk.json'), 'utf8')}`;
const problems = [];

// An import of `aws-lambda` is served by @types/aws-lambda alone.
const listed = (name) => deps.has(name) || devDeps.has(name) || devDeps.has(`@types/${name}`);
for (const [name, file] of prod) {
  if (!listed(name)) problems.push(`${name} is imported by ${file} but not listed in package.json`);
  else if (!deps.has(name) && !devDeps.has(`@types/${name}`))
    problems.push(`${name} is imported by production code (${file}): move it to dependencies`);
}
for (const [name, file] of dev) if (!listed(name)) problems.push(`${name} is imported by ${file} but not listed`);
for (const name of deps) if (!prod.has(name)) problems.push(`dependency ${name} is not imported by production code`);

function binsOf(name) {
  try {
    const bin = JSON.parse(readFileSync(join(ROOT, 'node_modules', name, 'package.json'), 'utf8')).bin;
    return typeof bin === 'string' ? [name.split('/').pop()] : Object.keys(bin ?? {});
  } catch {
    return [];
  }
}
for (const name of devDeps) {
  if (prod.has(name) || dev.has(name)) continue;
  const typed = name.startsWith('@types/') ? name.slice(7) : null;
  if (typed && (typed === 'node' || prod.has(typed) || dev.has(typed) || deps.has(typed) || devDeps.has(typed)))
    continue;
  if (binsOf(name).some((bin) => new RegExp(`(^|[\\s"'])${bin}(\\s|$)`, 'm').test(commands))) continue;
  problems.push(`devDependency ${name} is used nowhere (no import, no type package of one, no tool the scripts run)`);
}

if (problems.length > 0) {
  console.error(`package.json and the code disagree:\n${problems.map((p) => `- ${p}`).join('\n')}`);
  process.exit(1);
}
console.log(`dependencies checked: ${deps.size} for production, ${devDeps.size} for development`);
