import type { CallsApi } from '../voice-api/calls.ts';
import type { Call } from '../voice-api/types.ts';

/**
 * Finished calls by id, read once with GET /calls/{id} and kept (a finished call never changes), so a redelivered
 * or replayed event costs no second request. Bounded: the oldest entries go first.
 */
export class CallResolver {
  private readonly cache = new Map<string, Call>();
  requests = 0;

  constructor(
    private readonly calls: Pick<CallsApi, 'get'>,
    private readonly capacity = 2000,
  ) {}

  async finished(callId: string): Promise<Call> {
    const hit = this.cache.get(callId);
    if (hit) return hit;
    this.requests++;
    const call = await this.calls.get(callId);
    if (['completed', 'failed', 'cancelled'].includes(call.status)) {
      this.cache.set(callId, call);
      if (this.cache.size > this.capacity) this.cache.delete(this.cache.keys().next().value as string);
    }
    return call;
  }
}
