import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { EnvReader } from '../config.ts';
import { TABLES } from '../tables.ts';
import type { Clock, RequestBudget } from '../voice-api/rate-limiter.ts';
import { type BudgetLimits, type BudgetShare, DEFAULT_LIMITS, SharedApiBudget } from './shared-budget.ts';

export interface BudgetConfig {
  table: string;
  limits: BudgetLimits;
}

const count = (v: string) => (/^\d+$/.test(v) ? Number(v) : { problem: 'a whole number (0 turns the window off)' });

/**
 * The budget's settings: API_BUDGET_TABLE (required), API_BUDGET_PER_MINUTE (100), API_BUDGET_PER_HOUR (1000),
 * API_BUDGET_LIFECYCLE_PER_MINUTE (5) and API_BUDGET_LIFECYCLE_PER_HOUR (50), the share only the lifecycle may use,
 * and API_BUDGET_SAFETY_PER_MINUTE (5) and API_BUDGET_SAFETY_PER_HOUR (200), the share only pauses and the brake
 * may use.
 */
export function readBudgetConfig(env: EnvReader): BudgetConfig {
  const perMinute = env.checked('API_BUDGET_PER_MINUTE', count) ?? DEFAULT_LIMITS.perMinute;
  const perHour = env.checked('API_BUDGET_PER_HOUR', count) ?? DEFAULT_LIMITS.perHour;
  const reserveMinute = env.checked('API_BUDGET_LIFECYCLE_PER_MINUTE', (v) => {
    const n = count(v);
    return typeof n === 'number' && perMinute > 0 && n >= perMinute
      ? { problem: 'must be below API_BUDGET_PER_MINUTE' }
      : n;
  });
  const reserveHour = env.checked('API_BUDGET_LIFECYCLE_PER_HOUR', (v) => {
    const n = count(v);
    return typeof n === 'number' && perHour > 0 && n >= perHour ? { problem: 'must be below API_BUDGET_PER_HOUR' } : n;
  });
  // Both reserves together must leave the other callers something.
  const safetyMinute = env.checked('API_BUDGET_SAFETY_PER_MINUTE', (v) => {
    const n = count(v);
    return typeof n === 'number' && perMinute > 0 && n + (reserveMinute ?? 0) >= perMinute
      ? { problem: 'with API_BUDGET_LIFECYCLE_PER_MINUTE, must be below API_BUDGET_PER_MINUTE' }
      : n;
  });
  const safetyHour = env.checked('API_BUDGET_SAFETY_PER_HOUR', (v) => {
    const n = count(v);
    return typeof n === 'number' && perHour > 0 && n + (reserveHour ?? 0) >= perHour
      ? { problem: 'with API_BUDGET_LIFECYCLE_PER_HOUR, must be below API_BUDGET_PER_HOUR' }
      : n;
  });
  // Unset reserves scale down with a small plan, so together they leave the other callers at least a quarter.
  const scaled = (set: number | undefined, preset: number, limit: number, part: number) =>
    set ?? Math.min(preset, Math.floor(limit / part));
  return {
    table: env.required(TABLES.apiBudget.env),
    limits: {
      perMinute,
      perHour,
      lifecycleReserve: {
        perMinute: scaled(reserveMinute, DEFAULT_LIMITS.lifecycleReserve.perMinute, perMinute, 4),
        perHour: scaled(reserveHour, DEFAULT_LIMITS.lifecycleReserve.perHour, perHour, 4),
      },
      safetyReserve: {
        perMinute: scaled(safetyMinute, DEFAULT_LIMITS.safetyReserve.perMinute, perMinute, 4),
        perHour: scaled(safetyHour, DEFAULT_LIMITS.safetyReserve.perHour, perHour, 4),
      },
    },
  };
}

/** API_BUDGET_MAX_WAIT_SECONDS (30): how long a caller outside the lifecycle waits for a token in one invocation. */
export function readBudgetWaitMs(env: EnvReader): number {
  return (
    (env.checked('API_BUDGET_MAX_WAIT_SECONDS', (v) => (/^\d+$/.test(v) ? Number(v) : { problem: 'whole seconds' })) ??
      30) * 1000
  );
}

/** The budget one caller of the API uses: `budget: apiBudget(db, config, 'lifecycle')` in VoiceApiClient's options. */
export function apiBudget(
  db: DynamoDBDocumentClient,
  config: BudgetConfig,
  share: BudgetShare,
  options: { clock?: Clock; maxWaitMs?: number } = {},
): RequestBudget {
  return new SharedApiBudget(db, config.table, config.limits, options.clock).for(share, options);
}
