import { API_PREFIX } from '#commons/voice-api/http.ts';

/**
 * Fault plans: what the emulator should break, when and how often. One validator for the admin API and for
 * `callsheet run --faults`, so a plan is accepted or refused the same way everywhere. Pure: no clock, no I/O.
 */

/** A fault as written in JSON (a plan file, `POST /_emulator/faults`, `PUT /_emulator/fault-plan`). */
export interface FaultInput {
  method?: string | null;
  path: string;
  match?: 'exact' | 'prefix';
  status?: number | null;
  drop?: boolean;
  cut?: boolean;
  body?: unknown;
  delayMs?: number;
  late?: boolean;
  from?: string | null;
  minutes?: number | null;
  count?: number | null;
  description?: string;
}

/** One fault as written in a plan, checked and normalised (times still relative to arming when `from` is absent). */
export interface FaultSpec {
  /** Upper-case HTTP method, or null for any. */
  method: string | null;
  /** Below the API prefix, e.g. `/campaigns/*\/pause` (a full `/api/developer/v1/…` path is accepted and cut). */
  path: string;
  /** `exact`: the whole path, `*` = one segment. `prefix`: the request path starts with `path`. */
  match: 'exact' | 'prefix';
  /** Answer this error instead of doing the request. */
  status: number | null;
  /** Do the request, then close the connection without an answer. */
  drop: boolean;
  /** Do the request, then send its status and headers and close the connection halfway through the body. */
  cut: boolean;
  /** Do the request, then answer its status with this JSON body instead of its own (undefined: its own). */
  body?: unknown;
  /** Real milliseconds to hold the answer (or the injected error). */
  delayMs: number;
  /** Hold the request `delayMs` before carrying it out: it takes effect late, after a client that gave up. */
  late: boolean;
  /** Simulated epoch ms from which the fault holds; null: from the moment it is armed. */
  from: number | null;
  /** How long it holds, in simulated minutes; null: no end in time. */
  minutes: number | null;
  /** How many requests it hits; null: no limit. */
  count: number | null;
  description: string | null;
}

export interface FaultProblem {
  /** 1-based position in the plan; null for a problem with the plan as a whole. */
  entry: number | null;
  field: string | null;
  message: string;
}

export type FaultPlanResult =
  | { ok: true; description: string | null; faults: FaultSpec[] }
  | { ok: false; problems: FaultProblem[] };

export const FAULT_FIELDS = [
  'method',
  'path',
  'match',
  'status',
  'drop',
  'cut',
  'body',
  'delayMs',
  'late',
  'from',
  'minutes',
  'count',
  'description',
] as const;

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'];
const MAX_DELAY_MS = 600_000;
const MAX_MINUTES = 366 * 24 * 60;
/** ISO 8601 date-time with an explicit offset: simulated time must not depend on where the plan is read. */
const ISO_WITH_OFFSET = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2})$/;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Renders problems one per line: `entry 2 (status): must be …`. */
export function describeFaultProblems(problems: FaultProblem[]): string {
  return problems
    .map((p) => `${p.entry === null ? 'plan' : `entry ${p.entry}`}${p.field ? ` (${p.field})` : ''}: ${p.message}`)
    .join('\n');
}

/**
 * A plan is a JSON array of faults, or `{"description": "…", "faults": [...]}`. A single fault object (the old
 * `POST /_emulator/faults` body) is a plan of one.
 */
export function parseFaultPlan(input: unknown): FaultPlanResult {
  let entries: unknown[];
  let description: string | null = null;
  if (Array.isArray(input)) entries = input;
  else if (isObject(input) && 'faults' in input) {
    const extra = Object.keys(input).filter((k) => k !== 'faults' && k !== 'description');
    const problems: FaultProblem[] = [];
    if (extra.length > 0)
      problems.push({ entry: null, field: extra[0] as string, message: 'a plan has only "description" and "faults"' });
    if (input.description !== undefined && typeof input.description !== 'string')
      problems.push({ entry: null, field: 'description', message: 'must be a string' });
    if (!Array.isArray(input.faults)) problems.push({ entry: null, field: 'faults', message: 'must be an array' });
    if (problems.length > 0) return { ok: false, problems };
    entries = input.faults as unknown[];
    description = (input.description as string | undefined) ?? null;
  } else if (isObject(input)) entries = [input];
  else
    return {
      ok: false,
      problems: [
        {
          entry: null,
          field: null,
          message: 'a fault plan is a JSON array of faults, or an object {"description", "faults": [...]}',
        },
      ],
    };
  const faults: FaultSpec[] = [];
  const problems: FaultProblem[] = [];
  entries.forEach((raw, i) => {
    const parsed = parseFault(raw, i + 1);
    if ('problems' in parsed) problems.push(...parsed.problems);
    else faults.push(parsed.fault);
  });
  return problems.length > 0 ? { ok: false, problems } : { ok: true, description, faults };
}

/** Checks one fault; `entry` (1-based) is only used to say where a problem is. */
export function parseFault(raw: unknown, entry: number): { fault: FaultSpec } | { problems: FaultProblem[] } {
  const problems: FaultProblem[] = [];
  const fail = (field: string | null, message: string) => problems.push({ entry, field, message });
  if (!isObject(raw)) {
    fail(null, 'a fault must be a JSON object');
    return { problems };
  }
  for (const key of Object.keys(raw)) {
    if (!(FAULT_FIELDS as readonly string[]).includes(key))
      fail(key, `unknown field; a fault has ${FAULT_FIELDS.join(', ')}`);
  }

  let method: string | null = null;
  if (raw.method !== undefined && raw.method !== null && raw.method !== '*') {
    if (typeof raw.method !== 'string' || !METHODS.includes(raw.method.toUpperCase()))
      fail('method', `must be one of ${METHODS.join(', ')} (or "*" for any), got ${JSON.stringify(raw.method)}`);
    else method = raw.method.toUpperCase();
  }

  let path = '';
  if (typeof raw.path !== 'string' || !raw.path.startsWith('/'))
    fail('path', 'required: a path starting with "/", e.g. "/campaigns/*/pause"');
  else if (/[?#]/.test(raw.path)) fail('path', 'must not carry a query or fragment');
  else {
    path =
      raw.path === API_PREFIX || raw.path.startsWith(`${API_PREFIX}/`) ? raw.path.slice(API_PREFIX.length) : raw.path;
    if (path === '') path = '/';
    if (path.split('/').some((s) => s.includes('*') && s !== '*'))
      fail('path', '"*" stands for one whole segment ("/campaigns/*/pause"), not part of one');
  }
  const wildcard = path.split('/').includes('*');

  let status: number | null = null;
  if (raw.status !== undefined && raw.status !== null) {
    if (!Number.isInteger(raw.status) || (raw.status as number) < 400 || (raw.status as number) > 599)
      fail('status', `must be an error status, an integer from 400 to 599, got ${JSON.stringify(raw.status)}`);
    else status = raw.status as number;
  }

  let drop = false;
  if (raw.drop !== undefined) {
    if (typeof raw.drop !== 'boolean') fail('drop', 'must be true or false');
    else drop = raw.drop;
  }

  let cut = false;
  if (raw.cut !== undefined) {
    if (typeof raw.cut !== 'boolean') fail('cut', 'must be true or false');
    else cut = raw.cut;
  }

  let delayMs = 0;
  if (raw.delayMs !== undefined) {
    if (!Number.isInteger(raw.delayMs) || (raw.delayMs as number) < 0 || (raw.delayMs as number) > MAX_DELAY_MS)
      fail('delayMs', `must be an integer number of milliseconds from 0 to ${MAX_DELAY_MS}`);
    else delayMs = raw.delayMs as number;
  }

  let late = false;
  if (raw.late !== undefined) {
    if (typeof raw.late !== 'boolean') fail('late', 'must be true or false');
    else late = raw.late;
  }
  if (late && status !== null) fail('late', 'an injected error is never carried out: give status or late, not both');
  if (late && !(delayMs > 0)) fail('late', 'give the delayMs after which the request is carried out');

  if (status !== null && drop)
    fail('drop', 'give status (answer an error, do nothing) or drop (do it, lose the answer), not both');
  if (status !== null && cut)
    fail('cut', 'give status (answer an error, do nothing) or cut (do it, cut the answer short), not both');
  if (drop && cut) fail('cut', 'give drop (lose the whole answer) or cut (lose the end of it), not both');
  const body = raw.body;
  if (body !== undefined && (status !== null || drop || cut))
    fail('body', 'give body (do it, answer this instead) alone, not with status, drop or cut');
  if (
    (raw.status === undefined || raw.status === null) &&
    raw.drop !== true &&
    raw.cut !== true &&
    body === undefined &&
    !raw.delayMs
  )
    fail('status', 'the fault does nothing: give a status, "drop": true, "cut": true, a body, or a delayMs');

  let from: number | null = null;
  if (raw.from !== undefined && raw.from !== null) {
    const t = typeof raw.from === 'string' && ISO_WITH_OFFSET.test(raw.from) ? Date.parse(raw.from) : Number.NaN;
    if (Number.isNaN(t)) fail('from', `must be an ISO 8601 date-time with an offset, e.g. "2026-12-07T10:54:00-05:00"`);
    else from = t;
  }

  let minutes: number | null = null;
  if (raw.minutes !== undefined && raw.minutes !== null) {
    if (typeof raw.minutes !== 'number' || !(raw.minutes > 0) || raw.minutes > MAX_MINUTES)
      fail('minutes', `must be a number of minutes above 0 (at most ${MAX_MINUTES})`);
    else minutes = raw.minutes;
  }

  let count: number | null = null;
  if (raw.count !== undefined && raw.count !== null) {
    if (!Number.isInteger(raw.count) || (raw.count as number) < 1) fail('count', 'must be an integer of at least 1');
    else count = raw.count as number;
  }
  // The old admin form (no window, no count) hits one request.
  if (count === null && from === null && minutes === null) count = 1;

  let match: 'exact' | 'prefix' = wildcard || from !== null || minutes !== null ? 'exact' : 'prefix';
  if (raw.match !== undefined) {
    if (raw.match !== 'exact' && raw.match !== 'prefix') fail('match', 'must be "exact" or "prefix"');
    else if (raw.match === 'prefix' && wildcard) fail('match', 'a path with "*" is matched whole, not as a prefix');
    else match = raw.match;
  }

  let description: string | null = null;
  if (raw.description !== undefined) {
    if (typeof raw.description !== 'string') fail('description', 'must be a string');
    else description = raw.description;
  }

  if (problems.length > 0) return { problems };
  return {
    fault: {
      method,
      path,
      match,
      status,
      drop,
      cut,
      ...(body !== undefined ? { body } : {}),
      delayMs,
      late,
      from,
      minutes,
      count,
      description,
    },
  };
}

/** Whether a request path (below the API prefix) is one the fault names. */
export function pathMatches(fault: Pick<FaultSpec, 'path' | 'match'>, apiPath: string): boolean {
  if (fault.match === 'prefix') return apiPath.startsWith(fault.path);
  const want = trimSlash(fault.path).split('/');
  const got = trimSlash(apiPath).split('/');
  return want.length === got.length && want.every((s, i) => s === got[i] || (s === '*' && got[i] !== ''));
}

const trimSlash = (p: string): string => (p.length > 1 && p.endsWith('/') ? p.slice(0, -1) : p);
