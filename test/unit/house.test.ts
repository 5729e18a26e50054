import { readdirSync, readFileSync } from 'node:fs';
import { posix } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * The one-way house: a capability (functions/<name>/) imports functions/commons/ and itself only, commons imports
 * no capability, and no import anywhere climbs more than one folder (others name their target through the
 * package.json `imports` aliases). Read from the sources themselves, so a new file is checked the day it lands.
 */
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CHECKED = ['functions', 'local', 'infra', 'test', 'bench'];

type Aliases = { alias: string; dir: string }[];

/** `"#commons/*": "./functions/commons/*"` → `{ alias: '#commons/', dir: 'functions/commons/' }`. */
function aliasesOf(imports: Record<string, string>): Aliases {
  return Object.entries(imports)
    .filter(([name, target]) => name.endsWith('/*') && target.startsWith('./') && target.endsWith('/*'))
    .map(([name, target]) => ({ alias: name.slice(0, -1), dir: target.slice(2, -1) }));
}

/** Every specifier a source imports: static and type imports, re-exports, side effects, import(), vi.mock(). */
function specifiers(text: string): string[] {
  const found: { at: number; spec: string }[] = [];
  const patterns = [
    /(?:^|[\s;])(?:import|export)\b[^'"`;]*?\bfrom\s*(['"])([^'"\n]+)\1/g,
    /(?:^|[\s;])import\s*(['"])([^'"\n]+)\1/g,
    /\bimport\s*\(\s*(['"])([^'"\n]+)\1/g,
    /\bvi\.(?:mock|doMock|unmock|doUnmock|importActual|importMock)(?:<[^>()]*>)?\(\s*(['"])([^'"\n]+)\1/g,
  ];
  for (const pattern of patterns)
    for (const m of text.matchAll(pattern)) found.push({ at: m.index, spec: m[2] as string });
  return found.sort((a, b) => a.at - b.at).map((f) => f.spec);
}

/** The capability a path is in (`commons` included), or null outside functions/. */
const capabilityOf = (path: string): string | null => /^functions\/([^/]+)\//.exec(path)?.[1] ?? null;

/** What is wrong with one import of `file` (a path from the repository root), or null. */
function problemOf(file: string, spec: string, aliases: Aliases): string | null {
  if (spec.startsWith('../../')) return `${file}: '${spec}' climbs more than one folder`;
  let target: string | null = null;
  if (spec.startsWith('./') || spec.startsWith('../')) target = posix.normalize(posix.join(posix.dirname(file), spec));
  else if (spec.startsWith('#')) {
    const hit = aliases.find((a) => spec.startsWith(a.alias));
    if (!hit) return `${file}: '${spec}' is no alias of package.json "imports"`;
    target = hit.dir + spec.slice(hit.alias.length);
  }
  const from = capabilityOf(file);
  if (target === null || from === null) return null;
  const to = capabilityOf(target);
  if (to === null) return `${file}: '${spec}' reaches outside functions/`;
  if (to === 'commons' || to === from) return null;
  return from === 'commons'
    ? `${file}: commons imports the ${to} capability ('${spec}')`
    : `${file}: the ${from} capability imports the ${to} capability ('${spec}')`;
}

function sources(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(posix.join(ROOT, dir), { withFileTypes: true })) {
    const path = posix.join(dir, e.name);
    if (e.isDirectory()) {
      if (e.name !== 'node_modules' && e.name !== 'fixtures' && !e.name.startsWith('.')) out.push(...sources(path));
    } else if (/\.(ts|mts|mjs)$/.test(e.name)) out.push(path);
  }
  return out;
}

const pkg = JSON.parse(readFileSync(posix.join(ROOT, 'package.json'), 'utf8')) as { imports: Record<string, string> };
const ALIASES = aliasesOf(pkg.imports);

describe('the one-way house', () => {
  it('has capabilities that import only commons and themselves, and no import that climbs two folders', () => {
    const files = CHECKED.flatMap(sources);
    expect(files.filter((f) => f.startsWith('functions/')).length).toBeGreaterThan(100);
    const problems = files.flatMap((file) =>
      specifiers(readFileSync(posix.join(ROOT, file), 'utf8'))
        .map((spec) => problemOf(file, spec, ALIASES))
        .filter((p) => p !== null),
    );
    expect(problems).toEqual([]);
  });

  it('has an alias for commons and for every capability', () => {
    const capabilities = readdirSync(posix.join(ROOT, 'functions'), { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => e.name);
    for (const name of capabilities) expect(ALIASES).toContainEqual({ alias: `#${name}/`, dir: `functions/${name}/` });
  });

  it('catches each kind of wrong import', () => {
    // The specifier apart from its line, so no tool that reads imports (rewrite scripts, `npm run deps`) takes these
    // lines for imports of this file.
    const lines: [string, string][] = [
      ['import { a } from %;', '../intake/report.ts'],
      ['import type { B } from %;', '#lifecycle/config.ts'],
      ['export { c } from %;', '../../commons/log.ts'],
      ['const d = await import(%);', '#outcomes/handler.ts'],
      ['vi.mock(%);', '../webhooks/receiver.ts'],
      ['import %;', '#local/stack/s3.ts'],
      ['import { e } from %;', '#commons/log.ts'],
      ['import { f } from %;', './handler.ts'],
      ['import { g } from %;', '@aws-sdk/client-sqs'],
    ];
    const source = lines.map(([line, spec]) => line.replace('%', `'${spec}'`)).join('\n');
    const found = specifiers(source);
    expect(found).toHaveLength(9);
    expect(found.map((s) => problemOf('functions/contacts/x.ts', s, ALIASES))).toEqual([
      "functions/contacts/x.ts: the contacts capability imports the intake capability ('../intake/report.ts')",
      "functions/contacts/x.ts: the contacts capability imports the lifecycle capability ('#lifecycle/config.ts')",
      "functions/contacts/x.ts: '../../commons/log.ts' climbs more than one folder",
      "functions/contacts/x.ts: the contacts capability imports the outcomes capability ('#outcomes/handler.ts')",
      "functions/contacts/x.ts: the contacts capability imports the webhooks capability ('../webhooks/receiver.ts')",
      "functions/contacts/x.ts: '#local/stack/s3.ts' reaches outside functions/",
      null,
      null,
      null,
    ]);
    expect(problemOf('functions/commons/campaign/x.ts', '#intake/report.ts', ALIASES)).toBe(
      "functions/commons/campaign/x.ts: commons imports the intake capability ('#intake/report.ts')",
    );
    expect(problemOf('functions/commons/campaign/x.ts', '../phone/phone.ts', ALIASES)).toBeNull();
    expect(problemOf('test/unit/x.test.ts', '../../functions/intake/report.ts', ALIASES)).toMatch(/climbs/);
    expect(problemOf('local/cli/x.ts', '#intake/report.ts', ALIASES)).toBeNull();
  });
});
