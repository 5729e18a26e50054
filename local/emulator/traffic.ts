import { type FaultSpec, pathMatches } from './fault-plan.ts';

/** Injected faults and the request log: what the admin API sets up and reads back. */

/** A fault in force: its spec with the window fixed in simulated time and what is left of its count. */
export interface ArmedFault {
  id: number;
  spec: FaultSpec;
  /** Simulated epoch ms. */
  from: number;
  until: number | null;
  remaining: number | null;
  hits: number;
}

export interface LoggedRequest {
  seq: number;
  at: string;
  method: string;
  path: string;
  query: Record<string, string>;
  status: number;
  duration_ms: number;
  fault: boolean;
  /** The armed fault that hit this request. */
  fault_id?: number;
  /** The request was carried out but its answer was lost (the connection was closed). */
  dropped?: boolean;
  cut?: boolean;
  /** Answered with a fault plan's body instead of its own. */
  replaced?: boolean;
  body?: unknown;
}

const LOG_LIMIT = 20_000;

export class Traffic {
  private armed: ArmedFault[] = [];
  requests: LoggedRequest[] = [];
  private seq = 0;
  private faultSeq = 0;

  /** Arms faults after those already armed; a fault without `from` starts at `now` (simulated). */
  arm(specs: FaultSpec[], now: number): ArmedFault[] {
    const added = specs.map((spec) => {
      const from = spec.from ?? now;
      return {
        id: ++this.faultSeq,
        spec,
        from,
        until: spec.minutes === null ? null : from + spec.minutes * 60_000,
        remaining: spec.count,
        hits: 0,
      };
    });
    this.armed.push(...added);
    return added;
  }

  /** Replaces every armed fault with a new plan. */
  replace(specs: FaultSpec[], now: number): ArmedFault[] {
    this.armed = [];
    return this.arm(specs, now);
  }

  disarm(): void {
    this.armed = [];
  }

  /** Faults still armed (spent or expired ones are forgotten as of `now`). */
  faults(now: number): ArmedFault[] {
    this.armed = this.armed.filter((f) => f.remaining !== 0 && (f.until === null || now < f.until));
    return this.armed;
  }

  /**
   * The first armed fault in force for this request (simulated `now`), used up by one. Only one fault applies
   * to a request; the others keep their counts.
   */
  takeFault(method: string, apiPath: string, now: number): ArmedFault | null {
    const fault = this.faults(now).find(
      (f) => now >= f.from && (!f.spec.method || f.spec.method === method) && pathMatches(f.spec, apiPath),
    );
    if (!fault) return null;
    fault.hits++;
    if (fault.remaining !== null) fault.remaining--;
    return fault;
  }

  private inFlight = 0;
  private waiters: (() => void)[] = [];

  /** An API request came in; `finished` must follow once it is logged and answered. */
  started(): void {
    this.inFlight++;
  }

  finished(): void {
    this.inFlight--;
    if (this.inFlight === 0) for (const wake of this.waiters.splice(0)) wake();
  }

  /** Resolves once no API request is in flight: a held (delayed) answer has been sent and logged. */
  settled(): Promise<void> {
    return this.inFlight === 0 ? Promise.resolve() : new Promise((resolve) => this.waiters.push(resolve));
  }

  log(entry: Omit<LoggedRequest, 'seq'>): void {
    this.requests.push({ seq: ++this.seq, ...entry });
    if (this.requests.length > LOG_LIMIT) this.requests.splice(0, this.requests.length - LOG_LIMIT);
  }

  clear(): void {
    this.armed = [];
    this.requests = [];
  }
}

/** An armed fault as `GET /_emulator/faults` shows it (times as simulated ISO instants, UTC). */
export type ArmedFaultView = Pick<
  FaultSpec,
  'method' | 'path' | 'match' | 'status' | 'drop' | 'cut' | 'body' | 'delayMs' | 'late'
> & {
  id: number;
  from: string;
  until: string | null;
  remaining: number | null;
  hits: number;
  description?: string;
};

export function armedFaultView(f: ArmedFault): ArmedFaultView {
  const { spec } = f;
  return {
    id: f.id,
    method: spec.method,
    path: spec.path,
    match: spec.match,
    status: spec.status,
    drop: spec.drop,
    cut: spec.cut,
    ...(spec.body !== undefined ? { body: spec.body } : {}),
    delayMs: spec.delayMs,
    late: spec.late,
    from: new Date(f.from).toISOString(),
    until: f.until === null ? null : new Date(f.until).toISOString(),
    remaining: f.remaining,
    hits: f.hits,
    ...(spec.description ? { description: spec.description } : {}),
  };
}
