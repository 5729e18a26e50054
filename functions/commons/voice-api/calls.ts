import { CALL_STATUSES, LIMITS } from './contract.ts';
import type { Transport } from './http.ts';
import { pathId, RequestChecks } from './request-checks.ts';
import type {
  ActionResult,
  BulkCallEntry,
  BulkResult,
  Call,
  CallInput,
  CallList,
  CallListQuery,
  CallStats,
} from './types.ts';

const iso = (d: string | Date | undefined): string | undefined => (d instanceof Date ? d.toISOString() : d);

export class CallsApi {
  constructor(private readonly http: Transport) {}

  /** Dials one number. Never retried after an ambiguous failure (see AmbiguousRequestError). */
  async start(input: CallInput): Promise<Call> {
    new RequestChecks()
      .check(Boolean(input.agent_id), ['body', 'agent_id'], 'agent_id is required', 'missing')
      .phone(input.phone_number, ['body', 'phone_number'])
      .done();
    return this.http.data<Call>({ method: 'POST', path: '/calls', json: input, repeatability: 'once' });
  }

  /** Dials up to 100 numbers with one agent; a failed entry does not abort the others. */
  async bulkInitiate(agentId: string, calls: BulkCallEntry[]): Promise<BulkResult> {
    const checks = new RequestChecks()
      .check(Boolean(agentId), ['body', 'agent_id'], 'agent_id is required', 'missing')
      .count(calls, ['body', 'calls'], LIMITS.bulkCalls);
    calls.forEach((c, i) => {
      checks.phone(c.phone_number, ['body', 'calls', i, 'phone_number']);
    });
    checks.done();
    return this.http.data<BulkResult>({
      method: 'POST',
      path: '/calls/bulk-initiate',
      json: { agent_id: agentId, calls },
      repeatability: 'once',
    });
  }

  async list(query: CallListQuery = {}): Promise<CallList> {
    const checks = new RequestChecks();
    if (query.page !== undefined)
      checks.check(
        Number.isInteger(query.page) && query.page >= 1,
        ['query', 'page'],
        'page must be a whole number ≥ 1',
      );
    if (query.limit !== undefined) {
      checks.check(
        Number.isInteger(query.limit) && query.limit >= 1 && query.limit <= LIMITS.callListLimitMax,
        ['query', 'limit'],
        `limit must be a whole number from 1 to ${LIMITS.callListLimitMax}`,
      );
    }
    if (query.status_filter !== undefined) {
      checks.check(
        CALL_STATUSES.includes(query.status_filter),
        ['query', 'status_filter'],
        `status_filter must be one of ${CALL_STATUSES.join(', ')}`,
      );
    }
    checks.done();
    return this.http.data<CallList>({
      method: 'GET',
      path: '/calls',
      query: { ...query, start_date: iso(query.start_date), end_date: iso(query.end_date) },
      repeatability: 'repeatable',
    });
  }

  /** Every call matching the query, following the pages. */
  async *listAll(query: Omit<CallListQuery, 'page'> = {}): AsyncGenerator<Call> {
    for (let page = 1; ; page++) {
      const result = await this.list({ ...query, page, limit: query.limit ?? LIMITS.callListLimitMax });
      yield* result.calls;
      if (page >= result.total_pages || result.calls.length === 0) return;
    }
  }

  async get(callId: string): Promise<Call> {
    return this.http.data<Call>({ method: 'GET', path: `/calls/${pathId(callId)}`, repeatability: 'repeatable' });
  }

  async stats(range: { start_date?: string | Date; end_date?: string | Date } = {}): Promise<CallStats> {
    return this.http.data<CallStats>({
      method: 'GET',
      path: '/calls/stats',
      query: { start_date: iso(range.start_date), end_date: iso(range.end_date) },
      repeatability: 'repeatable',
    });
  }

  /** Only `queued` and `in_progress` calls can be cancelled; others answer ConflictError. */
  async cancel(callId: string): Promise<ActionResult> {
    return this.http.data<ActionResult>({
      method: 'POST',
      path: `/calls/${pathId(callId)}/cancel`,
      repeatability: 'repeatable',
    });
  }
}
