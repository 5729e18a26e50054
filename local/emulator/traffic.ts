/** Injected faults and the request log: what the admin API sets up and reads back. */
export interface Fault {
  path: string;
  method: string | null;
  status: number | null;
  count: number;
  delayMs: number;
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
  body?: unknown;
}

const LOG_LIMIT = 20_000;

export class Traffic {
  faults: Fault[] = [];
  requests: LoggedRequest[] = [];
  private seq = 0;

  /**
   * The first armed fault for this request, used up by one. A fault's path may be given in full
   * (`/api/developer/v1/calls`) or below the API prefix (`/calls`).
   */
  takeFault(method: string, path: string, apiPath: string): Fault | null {
    const fault = this.faults.find(
      (f) =>
        f.count > 0 && (path.startsWith(f.path) || apiPath.startsWith(f.path)) && (!f.method || f.method === method),
    );
    if (!fault) return null;
    fault.count--;
    this.faults = this.faults.filter((f) => f.count > 0);
    return { ...fault };
  }

  log(entry: Omit<LoggedRequest, 'seq'>): void {
    this.requests.push({ seq: ++this.seq, ...entry });
    if (this.requests.length > LOG_LIMIT) this.requests.splice(0, this.requests.length - LOG_LIMIT);
  }

  clear(): void {
    this.faults = [];
    this.requests = [];
  }
}
