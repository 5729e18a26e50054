import { API_PREFIX } from '#commons/voice-api/http.ts';
import type { LoggedRequest } from '#local/emulator/traffic.ts';
import { type AuditedCall, type AuditedSpan, auditCalls, auditSpans } from '#test/helpers/call-audit.ts';

/**
 * What the emulator's own records say about a close: read from its raw request log and call records, never from
 * what callsheet reports of itself.
 */

const MINUTE = 60_000;
const HOUR = 3_600_000;

/** The request log read piece by piece while a run goes on (`GET /_emulator/requests?since=`), gaps noticed. */
export class RequestLog {
  readonly entries: LoggedRequest[] = [];
  /** Entries the emulator dropped (its log keeps the last 20,000) before they were read. */
  lost = 0;
  private seq = 0;

  async pull(emulator: string): Promise<void> {
    const got = (await (await fetch(`${emulator}/_emulator/requests?since=${this.seq}`)).json()) as LoggedRequest[];
    const first = got[0];
    if (first && first.seq > this.seq + 1) this.lost += first.seq - this.seq - 1;
    for (const r of got) this.entries.push(r);
    if (got.length > 0) this.seq = (got.at(-1) as LoggedRequest).seq;
  }

  /** The developer API's requests (not the admin API's), with their simulated instants. */
  api(): (LoggedRequest & { t: number })[] {
    return this.entries.filter((r) => r.path.startsWith(`${API_PREFIX}/`)).map((r) => ({ ...r, t: Date.parse(r.at) }));
  }
}

export interface PauseFigures {
  campaigns: number;
  /** Campaigns whose pause the API answered 200 by the close. */
  paused: number;
  /** The last of those first answers, ms before the close (negative: after it); null when none was paused. */
  latestLeadMs: number | null;
  earliestLeadMs: number | null;
}

/** Each campaign's first pause the API carried out (200), against the close. */
export function pausesBefore(log: RequestLog, campaignIds: readonly string[], close: number): PauseFigures {
  const first = new Map<string, number>();
  for (const r of log.api()) {
    const m = /\/campaigns\/([^/]+)\/pause$/.exec(r.path);
    if (!m || r.method !== 'PATCH' || r.status !== 200 || r.t > close) continue;
    const id = m[1] as string;
    if (!first.has(id)) first.set(id, r.t);
  }
  const leads = campaignIds.flatMap((id) => (first.has(id) ? [close - (first.get(id) as number)] : []));
  return {
    campaigns: campaignIds.length,
    paused: leads.length,
    latestLeadMs: leads.length > 0 ? Math.min(...leads) : null,
    earliestLeadMs: leads.length > 0 ? Math.max(...leads) : null,
  };
}

export interface BudgetFigures {
  /** API requests the emulator let through (not 429), the most in one fixed minute and one fixed hour. */
  peakMinute: number;
  peakHour: number;
  refused: number;
  /** The refused requests, as `PATCH …/pause at <instant>` (the first few). */
  refusedExamples: { method: string; path: string; t: number }[];
  /** `POST /contacts/bulk` answered 200: the sync's requests, all of them and those in the last hour to the close. */
  syncRequests: number;
  syncLastHour: number;
  lastSync: number | null;
}

/** The plan as the emulator counted it (its windows are fixed minutes and hours), and the sync's share. */
export function budgetFigures(log: RequestLog, close: number): BudgetFigures {
  const minutes = new Map<number, number>();
  const hours = new Map<number, number>();
  let refused = 0;
  const refusedExamples: BudgetFigures['refusedExamples'] = [];
  let syncRequests = 0;
  let syncLastHour = 0;
  let lastSync: number | null = null;
  for (const r of log.api()) {
    if (r.status === 429) {
      refused++;
      if (refusedExamples.length < 3)
        refusedExamples.push({ method: r.method, path: r.path.slice(API_PREFIX.length), t: r.t });
      continue;
    }
    const m = Math.floor(r.t / MINUTE);
    const h = Math.floor(r.t / HOUR);
    minutes.set(m, (minutes.get(m) ?? 0) + 1);
    hours.set(h, (hours.get(h) ?? 0) + 1);
    if (r.method === 'POST' && r.path.endsWith('/contacts/bulk') && r.status === 200) {
      syncRequests++;
      if (r.t > close - HOUR && r.t <= close) syncLastHour++;
      lastSync = Math.max(lastSync ?? r.t, r.t);
    }
  }
  return {
    peakMinute: Math.max(0, ...minutes.values()),
    peakHour: Math.max(0, ...hours.values()),
    refused,
    refusedExamples,
    syncRequests,
    syncLastHour,
    lastSync,
  };
}

export interface CallFigures {
  placed: number;
  /** Calls the independent auditor finds started outside the window or inside the closing margin. */
  unlawful: number;
  inMargin: number;
  afterClose: number;
  /** Stretches in which a campaign could have dialled a number outside the window or in the margin (auditSpans). */
  couldDial: number;
  examples: string[];
}

/**
 * The emulator's placed calls, and the stretches in which its campaigns could dial, audited against the window with
 * the closing margin (test/helpers/call-audit.ts).
 */
export async function auditClose(
  calls: AuditedCall[],
  rule: { hours: string; closingMarginMinutes: number },
  close: number,
  spans: readonly AuditedSpan[],
): Promise<CallFigures> {
  const violations = await auditCalls(calls, rule);
  const ready = await auditSpans(spans, rule);
  const unlawful = new Set(violations.map((v) => v.call));
  const placed = calls.filter((c) => c.started_at !== null);
  return {
    placed: placed.length,
    unlawful: unlawful.size,
    inMargin: violations.filter((v) => v.reason === 'closing_margin').length,
    afterClose: placed.filter((c) => Date.parse(c.started_at as string) >= close && unlawful.has(c)).length,
    couldDial: new Set(ready.map((v) => v.span)).size,
    examples: [...violations.slice(0, 3).map((v) => v.message), ...ready.slice(0, 3).map((v) => v.message)],
  };
}
