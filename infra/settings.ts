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
import { readWebhookConfig } from '#webhooks/config.ts';

/**
 * callsheet's deployment settings: one schema, read from `callsheet.config.json` at the repository root (or the
 * file named by `-c callsheet:config=path`), each overridable with `-c callsheet:NAME=value`. Checked at synth:
 * an unknown name, a bad value or a missing required one stops synthesis with every problem named. Function
 * settings go, as environment variables of the same name, to exactly the functions that read them (`readBy`,
 * by function name); stack settings shape the stack itself. README "Configuration" lists them all.
 */

/** The Lambda functions the stack deploys, by name; a function's settings go by this name. */
export type FunctionFolder =
  | 'intake'
  | 'lifecycle'
  | 'guard'
  | 'sweeper'
  | 'contacts'
  | 'outcomes'
  | 'webhooks'
  | 'reindex';

/**
 * Each function's handler file under functions/: a capability's index.ts, but the guard and the sweeper are
 * further entry points of the lifecycle, whose safety net they are (its settings, store and CampaignSafety), and
 * the reindex the deploy triggers is one of intake, whose lookups it folds into their shards (infra/reindex.ts).
 */
export const FUNCTION_ENTRIES: Record<FunctionFolder, string> = {
  intake: 'intake/index.ts',
  lifecycle: 'lifecycle/index.ts',
  guard: 'lifecycle/guard.ts',
  sweeper: 'lifecycle/sweeper.ts',
  contacts: 'contacts/index.ts',
  outcomes: 'outcomes/index.ts',
  webhooks: 'webhooks/index.ts',
  reindex: 'intake/reindex.ts',
};

type Kind =
  | { type: 'string'; pattern?: RegExp; hint?: string }
  | { type: 'integer'; min: number; max?: number }
  | { type: 'boolean' }
  | { type: 'json' };

export type SettingSpec = Kind & {
  doc: string;
  /** Functions that read it, as an environment variable of the same name. */
  readBy: FunctionFolder[];
  /** What the stack itself does with it, if anything. */
  stack?: string;
  required?: boolean;
  /**
   * The value when none is set. For function settings the function holds it (this is its documentation); for
   * stack settings the stack uses it.
   */
  default?: string | number | boolean;
};

/** Everything that reads the Voice API key (functions/commons/voice-api-access.ts). */
const API_USERS: FunctionFolder[] = ['intake', 'lifecycle', 'guard', 'sweeper', 'contacts', 'outcomes'];
/** The guard and the sweeper read the lifecycle's settings too (functions/lifecycle/safety-net/config.ts). */
const LIFECYCLE: FunctionFolder[] = ['lifecycle', 'guard', 'sweeper'];
/** Everything that takes tokens from the account-wide API budget (functions/commons/api-budget/). */
const BUDGET_USERS: FunctionFolder[] = [...LIFECYCLE, 'contacts', 'outcomes', 'intake'];

export const SETTINGS = {
  VOICE_API_URL: {
    type: 'string',
    pattern: /^https?:\/\/[^\s/]+(\/\S*)?$/,
    hint: 'an http(s) URL',
    required: true,
    readBy: API_USERS,
    doc: 'The Voice API service root, e.g. `https://api.vendor.example` (the `/api/developer/v1` prefix is added).',
  },
  VOICE_API_SECRET_NAME: {
    type: 'string',
    pattern: /^[\w/+=.@-]{1,512}$/,
    hint: 'a Secrets Manager secret name',
    readBy: [],
    stack: 'the secret the functions read (as `VOICE_API_SECRET_ARN`)',
    default: 'callsheet/voice-api',
    doc: 'Name of the Secrets Manager secret `{"apiKey": …, "webhookSecret": …}` the operator creates before the first deploy.',
  },
  VOICE_API_KEY_TTL_SECONDS: {
    type: 'integer',
    min: 1,
    readBy: API_USERS,
    default: 300,
    doc: 'How long a function keeps the key before reading the secret again (a 401 re-reads it at once).',
  },
  VOICE_API_TIMEOUT_SECONDS: {
    type: 'integer',
    min: 1,
    max: 60,
    readBy: [...LIFECYCLE, 'contacts'],
    stack: 'sizes the lifecycle, guard and sweeper function timeouts',
    default: 10,
    doc: 'Per-request timeout of Voice API calls (contact sync: 30 when unset).',
  },
  API_BUDGET_PER_MINUTE: {
    type: 'integer',
    min: 0,
    readBy: BUDGET_USERS,
    stack: 'sizes the concurrency caps',
    default: 100,
    doc: 'The account’s Voice API requests per minute (plan tier 1: 100), shared by every caller.',
  },
  API_BUDGET_PER_HOUR: {
    type: 'integer',
    min: 0,
    readBy: BUDGET_USERS,
    default: 1000,
    doc: 'The account’s Voice API requests per hour.',
  },
  API_BUDGET_LIFECYCLE_PER_MINUTE: {
    type: 'integer',
    min: 0,
    readBy: BUDGET_USERS,
    default: 5,
    doc: 'The part of the per-minute budget only campaign lifecycles may use (below API_BUDGET_PER_MINUTE).',
  },
  API_BUDGET_LIFECYCLE_PER_HOUR: {
    type: 'integer',
    min: 0,
    readBy: BUDGET_USERS,
    default: 50,
    doc: 'The part of the hourly budget only campaign lifecycles may use (below API_BUDGET_PER_HOUR).',
  },
  API_BUDGET_SAFETY_PER_MINUTE: {
    type: 'integer',
    min: 0,
    readBy: BUDGET_USERS,
    default: 5,
    doc: 'The part of the per-minute budget only pauses and the agent brake may use: the lifecycles’ own polls and launches cannot spend it.',
  },
  API_BUDGET_SAFETY_PER_HOUR: {
    type: 'integer',
    min: 0,
    readBy: BUDGET_USERS,
    default: 200,
    doc: 'The part of the hourly budget only pauses and the agent brake may use (size it for the pauses of every part that may close within one hour).',
  },
  API_BUDGET_MAX_WAIT_SECONDS: {
    type: 'integer',
    min: 0,
    readBy: BUDGET_USERS,
    default: 30,
    doc: 'Longest a contact sync, outcome read or intake’s agent look-up waits for API budget in one invocation before its messages come back later.',
  },
  INTAKE_CONCURRENCY: {
    type: 'integer',
    min: 2,
    readBy: [],
    stack: 'reserved concurrency of intake and the upload queue’s maximum concurrency',
    doc: 'Uploads processed at once. Default: API_BUDGET_PER_MINUTE / 50, from 2 to 10.',
  },
  LIFECYCLE_CONCURRENCY: {
    type: 'integer',
    min: 1,
    readBy: [],
    stack: 'reserved concurrency of the lifecycle step function',
    doc: 'Lifecycle steps run at once. Default: API_BUDGET_PER_MINUTE / 20, from 2 to 50.',
  },
  GUARD_CONCURRENCY: {
    type: 'integer',
    min: 1,
    readBy: [],
    stack: 'reserved concurrency of the guard',
    doc: 'Guards run at once, each securing one campaign whose workflow ended badly; kept for them whatever else runs. Default: as LIFECYCLE_CONCURRENCY’s.',
  },
  SWEEPER_CONCURRENCY: {
    type: 'integer',
    min: 1,
    readBy: [],
    stack: 'reserved concurrency of the sweeper',
    default: 2,
    doc: 'Sweeps run at once (a slow sweep and the next one); kept for the sweeper whatever else runs.',
  },
  WEBHOOK_CONCURRENCY: {
    type: 'integer',
    min: 1,
    readBy: [],
    stack: 'reserved concurrency of the webhook receiver',
    default: 10,
    doc: 'Most webhook requests handled at once; a flood on the public URL beyond it is answered 429 instead of taking instances the rest of the account needs.',
  },
  ACCOUNT_CONCURRENCY: {
    type: 'integer',
    min: 10,
    readBy: [],
    stack: 'checks that the concurrency caps leave the 100 unreserved instances Lambda keeps',
    default: 1000,
    doc: 'The account’s Lambda concurrent executions in the region, less what other stacks reserve (the default quota is 1000).',
  },
  DEFAULT_COUNTRY: {
    type: 'string',
    pattern: /^[A-Za-z]{2}$/,
    hint: 'an ISO country code',
    readBy: ['intake', 'contacts'],
    doc: 'Country of numbers written without a country code; unset, such rows are rejected.',
  },
  DEFAULT_RETRIES: {
    type: 'integer',
    min: 0,
    readBy: ['intake'],
    default: 1,
    doc: 'Campaign retries when an upload gives none.',
  },
  LEGAL_HOURS: {
    type: 'json',
    readBy: ['intake', ...LIFECYCLE],
    doc: 'Calling hours by country or state over the built-in table (docs/calling-hours.md), e.g. `{"GB": "Mon-Fri 09:00-20:00", "US-TX": "Mon-Fri 09:00-20:00"}`; `"off"` removes a conservative default.',
  },
  START_HORIZON_DAYS: {
    type: 'integer',
    min: 1,
    max: 365,
    readBy: ['intake'],
    default: 14,
    doc: 'Furthest ahead an upload may start; later starts are refused, as one workflow run lasts at most LIFECYCLE_TIMEOUT_SECONDS.',
  },
  CALL_CAP_PER_DAY: {
    type: 'integer',
    min: 1,
    readBy: ['intake', ...LIFECYCLE],
    default: 3,
    doc: 'Calls to one number in any 24 hours, across campaigns.',
  },
  CALL_CAP_PER_WEEK: {
    type: 'integer',
    min: 1,
    readBy: ['intake', ...LIFECYCLE],
    default: 7,
    doc: 'Calls to one number in any 7 days, across campaigns.',
  },
  INTAKE_LEASE_SECONDS: {
    type: 'integer',
    min: 301,
    readBy: ['intake'],
    default: 360,
    doc: 'How long one delivery owns an upload; longer than the intake timeout (300 s), so no two work at once.',
  },
  CLOSING_MARGIN_MINUTES: {
    type: 'integer',
    min: 0,
    max: 120,
    readBy: ['intake', ...LIFECYCLE],
    default: 5,
    doc: 'Campaigns are paused this long before a calling window closes.',
  },
  PAUSE_LEAD_SECONDS: {
    type: 'integer',
    min: 0,
    max: 900,
    readBy: ['intake', ...LIFECYCLE],
    default: 120,
    doc: 'The pause goes out this long before the closing margin begins, so it is confirmed before then.',
  },
  BRAKE_LEAD_SECONDS: {
    type: 'integer',
    min: 0,
    max: 900,
    readBy: ['intake', ...LIFECYCLE],
    default: 30,
    doc: 'A pause still unconfirmed this long before the closing margin begins pulls the brake (deactivates the agent).',
  },
  SECURE_RETRY_SECONDS: {
    type: 'integer',
    min: 5,
    max: 600,
    readBy: LIFECYCLE,
    default: 20,
    doc: 'Wait between attempts to secure (pause) a campaign before failing.',
  },
  HOLD_HORIZON_DAYS: {
    type: 'integer',
    min: 1,
    max: 60,
    readBy: LIFECYCLE,
    default: 14,
    doc: 'Longest a campaign waits for its next calling window before it is failed.',
  },
  POLL_MIN_SECONDS: {
    type: 'integer',
    min: 1,
    readBy: LIFECYCLE,
    default: 30,
    doc: 'Shortest wait between two looks at a running campaign.',
  },
  POLL_MAX_SECONDS: {
    type: 'integer',
    min: 1,
    readBy: LIFECYCLE,
    default: 900,
    doc: 'Longest wait between two looks at a running campaign.',
  },
  CONTINUE_AFTER_STEPS: {
    type: 'integer',
    min: 1,
    readBy: LIFECYCLE,
    default: 1000,
    doc: 'Looks per execution before the lifecycle continues as a new execution (Step Functions history limit).',
  },
  RECONCILE_MINUTES: {
    type: 'integer',
    min: 1,
    readBy: LIFECYCLE,
    default: 30,
    doc: 'How long to look for a campaign whose create answer was lost before the part fails.',
  },
  LIFECYCLE_TIMEOUT_SECONDS: {
    type: 'integer',
    min: 60,
    readBy: [],
    stack: 'the lifecycle state machine’s execution timeout',
    doc: 'Longest one lifecycle execution runs (default: state-machines/lifecycle-document.ts).',
  },
  SWEEP_INTERVAL_MINUTES: {
    type: 'integer',
    min: 1,
    readBy: ['guard', 'sweeper'],
    stack: 'the sweeper’s schedule',
    default: 5,
    doc: 'How often the sweeper checks every unfinished part.',
  },
  OVERDUE_GRACE_MINUTES: {
    type: 'integer',
    min: 1,
    readBy: ['guard', 'sweeper'],
    default: 10,
    doc: 'How late a part’s next step may be before the sweeper secures its campaign.',
  },
  CONTACTS_MAX_RECEIVES: {
    type: 'integer',
    min: 1,
    readBy: ['contacts'],
    default: 5,
    doc: 'The delivery on which a still-failing contact event is dead-lettered with its reason.',
  },
  WEBHOOK_SECRET_TTL_SECONDS: {
    type: 'integer',
    min: 1,
    readBy: ['webhooks'],
    default: 300,
    doc: 'How long the webhook receiver keeps the signing secret.',
  },
  WEBHOOK_SECRET_MIN_REFRESH_SECONDS: {
    type: 'integer',
    min: 1,
    readBy: ['webhooks'],
    default: 10,
    doc: 'Least time between two secret re-reads forced by bad signatures.',
  },
  WEBHOOK_MAX_BODY_BYTES: {
    type: 'integer',
    min: 1024,
    readBy: ['webhooks'],
    default: 65536,
    doc: 'Largest webhook body accepted.',
  },
  POWERTOOLS_LOG_LEVEL: {
    type: 'string',
    pattern: /^(DEBUG|INFO|WARN|ERROR|CRITICAL|SILENT)$/,
    hint: 'DEBUG, INFO, WARN, ERROR, CRITICAL or SILENT',
    readBy: [...API_USERS, 'webhooks', 'reindex'],
    default: 'INFO',
    doc: 'Log level of the functions that log through Powertools.',
  },
  ALARM_EMAIL: {
    type: 'string',
    pattern: /^[^\s@]+@[^\s@]+\.[^\s@]+$/,
    hint: 'an e-mail address',
    readBy: [],
    stack: 'an e-mail subscription to the alarm topic',
    doc: 'Where alarms and campaign ends are mailed (confirm the e-mail AWS sends). Optional.',
  },
  TRACING: {
    type: 'boolean',
    readBy: [],
    stack: 'X-Ray active tracing of the functions and the state machine (POWERTOOLS_TRACE_ENABLED=false when off)',
    default: false,
    doc: 'Opt-in: traces every invocation with X-Ray through Powertools’ Tracer, at the cost of loading the X-Ray SDK in every cold start (`npm run bench -- bundles`).',
  },
  SOURCE_MAPS: {
    type: 'boolean',
    readBy: [],
    stack: 'source maps in the bundles and `--enable-source-maps`',
    default: false,
    doc: 'Readable stack traces at the cost of slower cold starts.',
  },
  LOG_RETENTION_DAYS: {
    type: 'integer',
    min: 1,
    readBy: [],
    stack: 'function and state machine log groups',
    default: 30,
    doc: 'Days function and workflow logs are kept (rounded up to a value CloudWatch offers).',
  },
  UPLOAD_RETENTION_DAYS: {
    type: 'integer',
    min: 31,
    readBy: [],
    stack: 'S3 lifecycle rules of processed/, rejected/, parts/ and contacts/',
    default: 90,
    doc: 'Days uploaded sheets and campaign parts are kept; longer than your longest campaign, which reads its part to the end.',
  },
  REPORT_RETENTION_DAYS: {
    type: 'integer',
    min: 1,
    readBy: [],
    stack: 'S3 lifecycle rule of reports/',
    default: 365,
    doc: 'Days reports are kept.',
  },
} satisfies Record<string, SettingSpec>;

export type SettingName = keyof typeof SETTINGS;

/** Lambda keeps this many of the account's concurrent executions for functions without a reservation. */
const UNRESERVED_MINIMUM = 100;
type Value = string | number | boolean;

export const CONFIG_FILE = 'callsheet.config.json';
const CONTEXT_PREFIX = 'callsheet:';

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
    for (const name of Object.keys(SETTINGS)) {
      const v = scope.node.tryGetContext(`${CONTEXT_PREFIX}${name}`);
      if (v !== undefined) raw[name] = v;
    }
    const values: Partial<Record<SettingName, Value>> = {};
    for (const [name, value] of Object.entries(raw)) {
      if (!(name in SETTINGS)) {
        problems.push(`${name}: not a callsheet setting (see README, Configuration)`);
        continue;
      }
      const checked = check(SETTINGS[name as SettingName], value);
      if (typeof checked === 'object') problems.push(`${name}=${JSON.stringify(value)}: ${checked.problem}`);
      else if (checked !== undefined) values[name as SettingName] = checked;
    }
    for (const [name, spec] of Object.entries(SETTINGS) as [SettingName, SettingSpec][])
      if (spec.required && values[name] === undefined)
        problems.push(
          `${name} is required: set it in ${CONFIG_FILE} or with -c ${CONTEXT_PREFIX}${name}=… (README, Configuration)`,
        );
    const settings = new Settings(values);
    if (problems.length === 0) problems.push(...settings.functionProblems());
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
    const isSetting = (problem: string) => (/^[A-Z0-9_]+/.exec(problem)?.[0] ?? '') in SETTINGS;
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

function check(spec: SettingSpec, value: unknown): Value | undefined | { problem: string } {
  if (value === null || value === '') return undefined;
  switch (spec.type) {
    case 'string': {
      if (typeof value !== 'string') return { problem: 'a string' };
      if (spec.pattern && !spec.pattern.test(value)) return { problem: spec.hint ?? 'not a valid value' };
      return value;
    }
    case 'integer': {
      const n = typeof value === 'string' && /^-?\d+$/.test(value.trim()) ? Number(value) : value;
      if (typeof n !== 'number' || !Number.isInteger(n)) return { problem: 'a whole number' };
      if (n < spec.min || (spec.max !== undefined && n > spec.max))
        return { problem: `from ${spec.min}${spec.max !== undefined ? ` to ${spec.max}` : ' up'}` };
      return n;
    }
    case 'boolean': {
      if (typeof value === 'boolean') return value;
      if (value === 'true' || value === 'false') return value === 'true';
      return { problem: 'true or false' };
    }
    case 'json': {
      if (typeof value === 'string') {
        try {
          JSON.parse(value);
          return value;
        } catch {
          return { problem: 'not JSON' };
        }
      }
      return JSON.stringify(value);
    }
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
        if (!(key in target) && STACK_SET.test(key) && !(key in SETTINGS)) return 'synth-check';
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
      for (const n of fresh) standIns[n] = 'synth-check';
    }
  }
  throw new Error('settings: a function reader kept asking for more names');
}

const readsCache = new Map<FunctionFolder, { names: Set<string>; standIns: Env }>();
function reads(folder: FunctionFolder) {
  let found = readsCache.get(folder);
  if (!found) {
    // Every setting given a valid-looking value is not needed: names are recorded whatever their values.
    found = recordReads(READERS[folder], { VOICE_API_URL: 'https://synth-check.invalid' });
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

const attached = new WeakMap<Stack, Settings>();

/** Makes the settings reachable from every construct of `stack` (functions look up their environment). */
export function attachSettings(stack: Stack, settings: Settings): void {
  attached.set(stack, settings);
}

export function settingsOf(scope: IConstruct): Settings | undefined {
  return attached.get(Stack.of(scope));
}
