import { existsSync, readFileSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { Stack } from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';
import { ConfigError, type Env } from '#commons/config.ts';
import { readOutcomesConfig } from '#commons/outcomes/config.ts';
import { readContactsConfig } from '#contacts/config.ts';
import { readIntakeConfig } from '#intake/config.ts';
import { readReindexConfig } from '#intake/reindex/config.ts';
import { readLifecycleConfig } from '#lifecycle/config.ts';
import { readGuardConfig } from '#lifecycle/safety-net/config.ts';
import { DEFAULT_EXECUTION_TIMEOUT_SECONDS } from '#state-machines/lifecycle-document.ts';
import { readWebhookConfig } from '#webhooks/config.ts';
import {
  checkSetting,
  FUNCTION_ENTRIES,
  type FunctionFolder,
  SETTINGS,
  type SettingName,
  type SettingSpec,
  timeoutProblem,
} from './setting-specs.ts';

export { FUNCTION_ENTRIES, type FunctionFolder, SETTINGS, type SettingName, type SettingSpec };

/**
 * callsheet's deployment settings: one schema, read from `callsheet.config.json` at the repository root (or the
 * file named by `-c callsheet:config=path`), each overridable with `-c callsheet:NAME=value`. Checked at synth:
 * an unknown name, a bad value or a missing required one stops synthesis with every problem named. Function
 * settings go, as environment variables of the same name, to exactly the functions that read them (`readBy`,
 * by function name); stack settings shape the stack itself. docs/configuration.md lists them all.
 */

/** Lambda keeps this many of the account's concurrent executions for functions without a reservation. */
const UNRESERVED_MINIMUM = 100;
type Value = string | number | boolean;

export const CONFIG_FILE = 'callsheet.config.json';
const CONTEXT_PREFIX = 'callsheet:';
/** The setting a problem is about: the name it starts with. */
const settingOf = (problem: string): string => /^[A-Z0-9_]+/.exec(problem)?.[0] ?? '';

/** The checked settings of one synthesis. */
export class Settings {
  private constructor(private readonly values: Partial<Record<SettingName, Value>>) {}

  /**
   * Reads the settings file and context of `scope`'s app. `root` is where the default file is looked for.
   * Throws one ConfigError naming every problem.
   */
  static load(scope: IConstruct, root: string): Settings {
    const problems: string[] = [];
    const raw: Record<string, unknown> = {};
    const fileContext = scope.node.tryGetContext(`${CONTEXT_PREFIX}config`);
    const file =
      typeof fileContext === 'string'
        ? isAbsolute(fileContext)
          ? fileContext
          : resolve(fileContext)
        : resolve(root, CONFIG_FILE);
    if (existsSync(file)) {
      try {
        const parsed = JSON.parse(readFileSync(file, 'utf8')) as unknown;
        if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed))
          problems.push(`${file}: not a JSON object of settings`);
        else for (const [k, v] of Object.entries(parsed)) if (k !== '$comment') raw[k] = v;
      } catch (err) {
        problems.push(`${file}: ${(err as Error).message}`);
      }
    } else if (typeof fileContext === 'string') problems.push(`${file}: no such settings file`);
    // Every `-c callsheet:NAME=…`, a misspelt name too: it is refused below, as the same typo in the file is.
    const context = scope.node.getAllContext() as Record<string, unknown>;
    for (const [key, v] of Object.entries(context))
      if (key.startsWith(CONTEXT_PREFIX) && key !== `${CONTEXT_PREFIX}config` && v !== undefined)
        raw[key.slice(CONTEXT_PREFIX.length)] = v;
    const values: Partial<Record<SettingName, Value>> = {};
    for (const [name, value] of Object.entries(raw)) {
      if (!(name in SETTINGS)) {
        problems.push(`${name}: not a callsheet setting (see docs/configuration.md)`);
        continue;
      }
      const checked = checkSetting(SETTINGS[name as SettingName], value);
      if (typeof checked === 'object') problems.push(`${name}=${JSON.stringify(value)}: ${checked.problem}`);
      else if (checked !== undefined) values[name as SettingName] = checked;
    }
    for (const [name, spec] of Object.entries(SETTINGS) as [SettingName, SettingSpec][])
      if (spec.required && values[name] === undefined)
        problems.push(
          `${name} is required: set it in ${CONFIG_FILE} or with -c ${CONTEXT_PREFIX}${name}=… (docs/configuration.md)`,
        );
    const settings = new Settings(values);
    // The functions' checks and those between settings run on the rest too (a bad value left at its default), so
    // one synth names every problem; those about a setting already named are left out.
    const named = new Set(problems.map(settingOf));
    problems.push(...settings.functionProblems().filter((p) => !named.has(settingOf(p))));
    if (problems.length > 0) throw new ConfigError(problems);
    return settings;
  }

  /** A setting's value, or its default. */
  get<N extends SettingName>(name: N): Value | undefined {
    return this.values[name] ?? (SETTINGS[name] as SettingSpec).default;
  }

  integer(name: SettingName): number {
    const v = this.get(name);
    if (typeof v !== 'number') throw new Error(`${name} has no value`);
    return v;
  }

  /**
   * The environment variables of the function in `folder`: every function setting it reads that is set. Unset
   * ones are left to the function, which holds the default (one home for each default).
   */
  environmentFor(folder: string): Record<string, string> {
    const env: Record<string, string> = {};
    const reads = folder in READERS ? namesReadBy(folder as FunctionFolder) : null;
    for (const [name, spec] of Object.entries(SETTINGS) as [SettingName, SettingSpec][]) {
      // What the function's own reader reads, and what `readBy` names (settings read outside the reader, such as
      // the log level); test/infra/settings.test.ts keeps `readBy` complete.
      if (!reads?.has(name) && !spec.readBy.includes(folder as FunctionFolder)) continue;
      const v = this.values[name];
      if (v !== undefined) env[name] = String(v);
    }
    return env;
  }

  /**
   * What a construct's `settings` prop receives: the environment of its functions' folders (the sweep schedule and
   * the API timeout among them), plus the lifecycle's execution timeout.
   */
  propsFor(...folders: FunctionFolder[]): Record<string, string> {
    const props: Record<string, string> = Object.assign({}, ...folders.map((f) => this.environmentFor(f)));
    // The lifecycle constructs take the execution timeout from here and keep it out of their functions' env.
    const timeout = this.values.LIFECYCLE_TIMEOUT_SECONDS;
    if (timeout !== undefined) props.LIFECYCLE_TIMEOUT_SECONDS = String(timeout);
    return props;
  }

  /**
   * Reserved concurrency of the functions that have a cap. Intake and the lifecycle are sized to the API budget:
   * each running step or upload makes a few API requests a minute; a guard does what one secure step does. The
   * guard and the sweeper get their instances whatever else runs; the webhook receiver, public, gets no more.
   */
  concurrency(): Record<'intake' | 'lifecycle' | 'guard' | 'sweeper' | 'webhooks', number> {
    const rpm = this.integer('API_BUDGET_PER_MINUTE') || 100;
    const clamp = (v: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, Math.floor(v)));
    const lifecycle = (this.values.LIFECYCLE_CONCURRENCY as number | undefined) ?? clamp(rpm / 20, 2, 50);
    return {
      intake: (this.values.INTAKE_CONCURRENCY as number | undefined) ?? clamp(rpm / 50, 2, 10),
      lifecycle,
      guard: (this.values.GUARD_CONCURRENCY as number | undefined) ?? clamp(rpm / 20, 2, 50),
      sweeper: this.integer('SWEEPER_CONCURRENCY'),
      webhooks: this.integer('WEBHOOK_CONCURRENCY'),
    };
  }

  /** The reserved concurrency of a function folder's function, if it has a cap. */
  concurrencyFor(folder: string): number | undefined {
    const caps: Record<string, number> = this.concurrency();
    return caps[folder];
  }

  /**
   * The functions' own start-up checks, run now on what each will receive, so a value a function would refuse
   * at cold start stops the synthesis instead.
   */
  private functionProblems(): string[] {
    // Names the stack fills in (tables, ARNs, queue URLs) are not settings: their problems are not ours to report.
    const isSetting = (problem: string) => settingOf(problem) in SETTINGS;
    const problems: string[] = [];
    for (const [folder, read] of Object.entries(READERS)) {
      try {
        read({ ...stackProvidedFor(folder as FunctionFolder), ...this.environmentFor(folder) });
      } catch (err) {
        if (!(err instanceof ConfigError)) throw err;
        for (const problem of err.problems.filter(isSetting)) problems.push(`${problem} (read by ${folder})`);
      }
    }
    if (this.integer('POLL_MIN_SECONDS') > this.integer('POLL_MAX_SECONDS'))
      problems.push('POLL_MIN_SECONDS is larger than POLL_MAX_SECONDS');
    const timeout = timeoutProblem({
      timeoutSeconds:
        (this.values.LIFECYCLE_TIMEOUT_SECONDS as number | undefined) ?? DEFAULT_EXECUTION_TIMEOUT_SECONDS,
      startHorizonDays: this.integer('START_HORIZON_DAYS'),
      holdHorizonDays: this.integer('HOLD_HORIZON_DAYS'),
    });
    if (timeout) problems.push(timeout);
    problems.push(...this.concurrencyProblems());
    return problems;
  }

  /** Lambda refuses a reservation that leaves fewer than 100 unreserved instances: say so at synth, not at deploy. */
  private concurrencyProblems(): string[] {
    const caps = Object.entries(this.concurrency());
    const reserved = caps.reduce((sum, [, n]) => sum + n, 0);
    const account = this.integer('ACCOUNT_CONCURRENCY');
    if (account - reserved >= UNRESERVED_MINIMUM) return [];
    return [
      `the concurrency caps reserve ${reserved} instances (${caps.map(([f, n]) => `${f} ${n}`).join(', ')}), which ` +
        `leaves ${account - reserved} of ACCOUNT_CONCURRENCY=${account} unreserved; Lambda keeps at least ` +
        `${UNRESERVED_MINIMUM} unreserved: lower the caps or have AWS raise the account’s concurrent executions ` +
        '(Service Quotas)',
    ];
  }
}

/** Each deployed function's start-up reader, which its entry (FUNCTION_ENTRIES) calls at cold start. */
const READERS: Record<FunctionFolder, (env: Env) => unknown> = {
  intake: readIntakeConfig,
  lifecycle: readLifecycleConfig,
  guard: readGuardConfig,
  sweeper: readGuardConfig,
  contacts: (env) => readContactsConfig(env),
  outcomes: readOutcomesConfig,
  webhooks: (env) => readWebhookConfig(env),
  reindex: readReindexConfig,
};

/** Names of what the stack creates (tables, ARNs, queue URLs, the bus), set on every function that uses one. */
const STACK_SET = /(_TABLE|_ARN|_QUEUE_URL|_DLQ_URL|_BUS_NAME)$/;
/** What such a name holds when a reader runs at synth, and the API address when no settings give one. */
const STAND_IN = 'synth-check';
const SYNTH_URL = { VOICE_API_URL: 'https://synth-check.invalid' };

/**
 * Runs a reader on `env`, adding a stand-in for each required name it reports missing until it gets past them
 * all (a reader that calls another stops at the inner one's check), and answers every name it read.
 */
function recordReads(read: (env: Env) => unknown, env: Env): { names: Set<string>; standIns: Env } {
  const standIns: Record<string, string> = {};
  for (let round = 0; round < 10; round++) {
    const names = new Set<string>();
    const source = { ...env, ...standIns };
    const recording = new Proxy(source, {
      get(target, key) {
        if (typeof key !== 'string') return Reflect.get(target, key);
        names.add(key);
        // A name the stack sets is always set in AWS: a reader's branch that depends on one is taken.
        if (!(key in target) && STACK_SET.test(key) && !(key in SETTINGS)) return STAND_IN;
        return Reflect.get(target, key);
      },
    });
    try {
      read(recording);
      return { names, standIns };
    } catch (err) {
      if (!(err instanceof ConfigError)) throw err;
      const missing = err.problems.map((p) => /^([A-Z0-9_]+) is not set$/.exec(p)?.[1]).filter((n) => n !== undefined);
      const fresh = missing.filter((n) => !(n in standIns) && !(n in SETTINGS));
      if (fresh.length === 0) return { names, standIns };
      for (const n of fresh) standIns[n] = STAND_IN;
    }
  }
  throw new Error('settings: a function reader kept asking for more names');
}

const readsCache = new Map<FunctionFolder, { names: Set<string>; standIns: Env }>();
function reads(folder: FunctionFolder) {
  let found = readsCache.get(folder);
  if (!found) {
    // Every setting given a valid-looking value is not needed: names are recorded whatever their values.
    found = recordReads(READERS[folder], SYNTH_URL);
    readsCache.set(folder, found);
  }
  return found;
}

/** Every environment name the function of `folder` reads at start-up (settings and names the stack sets). */
export function namesReadBy(folder: FunctionFolder): Set<string> {
  return reads(folder).names;
}

/** Stand-ins for the names the stack sets (tables, ARNs, queue URLs), for checking a reader at synth. */
function stackProvidedFor(folder: FunctionFolder): Env {
  return reads(folder).standIns;
}

export const KNOWN_READERS = Object.keys(READERS) as FunctionFolder[];

/**
 * What the function of `folder` makes of `env` at start-up, every name the stack sets standing in as at synth
 * (so the branches those names open are taken): test/infra/settings.test.ts holds each documented default to it.
 */
export function readAtStart(folder: FunctionFolder, env: Env): unknown {
  const stackSet = [...namesReadBy(folder)].filter((n) => STACK_SET.test(n) && !(n in SETTINGS));
  return READERS[folder]({
    ...SYNTH_URL,
    ...Object.fromEntries(stackSet.map((n) => [n, STAND_IN])),
    ...stackProvidedFor(folder),
    ...env,
  });
}

const attached = new WeakMap<Stack, Settings>();

/** Makes the settings reachable from every construct of `stack` (functions look up their environment). */
export function attachSettings(stack: Stack, settings: Settings): void {
  attached.set(stack, settings);
}

export function settingsOf(scope: IConstruct): Settings | undefined {
  return attached.get(Stack.of(scope));
}
