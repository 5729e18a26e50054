import type { DialableSpanView } from './dialer.ts';
import type { FaultInput } from './fault-plan.ts';
import type { ArmedFaultView } from './traffic.ts';

/** Typed access to the emulator's `/_emulator/…` admin API (no key needed). */
export class EmulatorAdmin {
  constructor(private readonly baseUrl: string) {}

  private async call<T>(method: string, path: string, body?: unknown): Promise<T> {
    const res = await fetch(`${this.baseUrl}/_emulator${path}`, {
      method,
      headers: body === undefined ? {} : { 'Content-Type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`emulator admin ${method} ${path} answered ${res.status}: ${text}`);
    return (text ? JSON.parse(text) : null) as T;
  }

  state<T = Record<string, unknown>>(): Promise<T> {
    return this.call('GET', '/state');
  }

  contact<T = Record<string, unknown>>(phone: string): Promise<T> {
    return this.call('GET', `/contacts/${encodeURIComponent(phone)}`);
  }

  requests<T = Record<string, unknown>[]>(): Promise<T> {
    return this.call('GET', '/requests');
  }

  /** Arms one fault (or several) after those already armed. */
  fault(fault: FaultInput | FaultInput[]): Promise<{ armed: ArmedFaultView[]; faults: ArmedFaultView[] }> {
    return this.call('POST', '/faults', fault);
  }

  /** Replaces every armed fault with this plan (an array, or `{description, faults}`). */
  faultPlan(
    plan: FaultInput[] | { description?: string; faults: FaultInput[] },
  ): Promise<{ faults: ArmedFaultView[] }> {
    return this.call('PUT', '/fault-plan', plan);
  }

  async faults(): Promise<ArmedFaultView[]> {
    return (await this.call<{ faults: ArmedFaultView[] }>('GET', '/faults')).faults;
  }

  clearFaults(): Promise<unknown> {
    return this.call('DELETE', '/faults');
  }

  /** When each campaign could dial: active, its agent active, numbers ready for a line (`GET /_emulator/dialable`). */
  async dialable(): Promise<DialableSpanView[]> {
    return (await this.call<{ spans: DialableSpanView[] }>('GET', '/dialable')).spans;
  }

  /** The simulated clock: where it is and how fast it runs. */
  clock(): Promise<{ now: string; speed: number }> {
    return this.call('GET', '/clock');
  }

  advance(seconds: number): Promise<{ now: string }> {
    return this.call('POST', '/clock', { advanceSeconds: seconds });
  }

  setClock(now: string | Date): Promise<{ now: string }> {
    return this.call('POST', '/clock', { now: now instanceof Date ? now.toISOString() : now });
  }

  configure(settings: Record<string, unknown>): Promise<Record<string, unknown>> {
    return this.call('POST', '/config', settings);
  }

  reset(): Promise<unknown> {
    return this.call('POST', '/reset');
  }
}
