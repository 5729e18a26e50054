/**
 * The deployment settings' schema (infra/settings.ts reads and checks them at synth): plain data, with no CDK, so
 * the CLI's embedded stack can forward the function settings a shell sets (local/cli/shell-settings.ts).
 */
import { INTAKE_LEASE_SECONDS, INTAKE_TIMEOUT_SECONDS } from '#commons/queue-settings.ts';
import { MAX_API_TIMEOUT_SECONDS } from '#lifecycle/config.ts';

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
  /** What the embedded stack does with a stack setting it honours too (forwarded from the shell, shell-settings.ts). */
  local?: string;
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
    // A lifecycle or guard step's worst case (stepWorstCaseSeconds) must fit Lambda's 900-second limit.
    max: MAX_API_TIMEOUT_SECONDS,
    readBy: [...LIFECYCLE, 'contacts'],
    stack: 'sizes the lifecycle and guard function timeouts',
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
    doc: 'Guards run at once, each securing one campaign whose workflow ended badly; kept for them whatever else runs. Default: API_BUDGET_PER_MINUTE / 20, from 2 to 50, as LIFECYCLE_CONCURRENCY’s default (setting LIFECYCLE_CONCURRENCY does not change it).',
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
    min: INTAKE_TIMEOUT_SECONDS + 1,
    readBy: ['intake'],
    default: INTAKE_LEASE_SECONDS,
    doc: 'How long one delivery owns an upload; longer than the intake timeout (300 s), so no two work at once.',
  },
  CLOSING_MARGIN_MINUTES: {
    type: 'integer',
    // Never 0: several laws count the hour a call is received, which comes after the hour it was placed.
    min: 1,
    max: 120,
    readBy: ['intake', ...LIFECYCLE],
    default: 5,
    doc: 'Campaigns are paused this long before a calling window closes; at least 1, as several laws count the hour a call is received.',
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
    readBy: [...LIFECYCLE, 'intake'],
    default: 14,
    doc: 'Longest a campaign waits for its next calling window before it is failed; intake names up front the parts whose window does not open that soon.',
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
    // A Standard workflow's longest execution (Step Functions quotas).
    max: 31_536_000,
    readBy: [],
    stack: 'the lifecycle state machine’s execution timeout',
    local: 'the embedded workflow’s execution timeout',
    doc: 'Longest one lifecycle execution runs, deployed and in `callsheet run` / `callsheet local` (default: state-machines/lifecycle-document.ts). More than START_HORIZON_DAYS plus HOLD_HORIZON_DAYS plus a day, so a part accepted at the horizon reaches its first calls in its first run (a start, then its first window, then a day of calling): `cdk synth` refuses less; `callsheet run` and `callsheet local` say so and go on, a rehearsal of the guard securing a workflow that timed out.',
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

/**
 * A setting's value checked against its spec: the value (a whole number as a number), undefined when unset (absent,
 * null or empty), or the problem. `cdk synth` checks every setting so (infra/settings.ts); the embedded stack its own.
 */
export function checkSetting(
  spec: SettingSpec,
  value: unknown,
): string | number | boolean | undefined | { problem: string } {
  if (value === undefined || value === null || value === '') return undefined;
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

/**
 * Why one lifecycle execution may time out before a part it accepted has called anyone, or null: a part may wait up
 * to START_HORIZON_DAYS for its start and then, in the same execution, up to HOLD_HORIZON_DAYS for its first calling
 * window (a start on the eve of a long holiday); a day more lets it call. A run that times out is secured by the
 * guard and fails. Necessary, not sufficient: a run continues afresh after CONTINUE_AFTER_STEPS looks, not after a
 * set time, so a long campaign's holds count too. Checked by `cdk synth`; the embedded stack notes it.
 */
export function timeoutProblem(v: { timeoutSeconds: number; startHorizonDays: number; holdHorizonDays: number }) {
  const needed = (v.startHorizonDays + v.holdHorizonDays + 1) * 86_400;
  if (v.timeoutSeconds >= needed) return null;
  return (
    `LIFECYCLE_TIMEOUT_SECONDS=${v.timeoutSeconds} is shorter than START_HORIZON_DAYS (${v.startHorizonDays}) plus ` +
    `HOLD_HORIZON_DAYS (${v.holdHorizonDays}) plus a day, the wait before a part's first calls: raise it to at ` +
    `least ${needed} or lower those`
  );
}
