import { describe, expect, it } from 'vitest';
import { auditClose, budgetFigures, pausesBefore, RequestLog } from '#bench/close-records.ts';
import type { LoggedRequest } from '#local/emulator/traffic.ts';

const CLOSE = Date.parse('2026-12-07T17:00:00Z');
const API = '/api/developer/v1';

function logOf(rows: [at: string, method: string, path: string, status: number][]): RequestLog {
  const log = new RequestLog();
  rows.forEach(([at, method, path, status], i) => {
    const entry: LoggedRequest = { seq: i + 1, at, method, path, query: {}, status, duration_ms: 1, fault: false };
    log.entries.push(entry);
  });
  return log;
}

describe("the rehearsal's close figures, from the emulator's records", () => {
  it('counts a pause only once the API carried it out, by the close, first answer per campaign', () => {
    const log = logOf([
      ['2026-12-07T16:53:00.000Z', 'PATCH', `${API}/campaigns/cmp_a/pause`, 429],
      ['2026-12-07T16:54:00.000Z', 'PATCH', `${API}/campaigns/cmp_a/pause`, 200],
      ['2026-12-07T16:58:00.000Z', 'PATCH', `${API}/campaigns/cmp_a/pause`, 200],
      ['2026-12-07T16:59:30.000Z', 'PATCH', `${API}/campaigns/cmp_b/pause`, 200],
      ['2026-12-07T17:00:01.000Z', 'PATCH', `${API}/campaigns/cmp_c/pause`, 200],
      ['2026-12-07T16:50:00.000Z', 'PATCH', `${API}/campaigns/cmp_c/resume`, 200],
    ]);
    expect(pausesBefore(log, ['cmp_a', 'cmp_b', 'cmp_c'], CLOSE)).toEqual({
      campaigns: 3,
      paused: 2,
      latestLeadMs: 30_000,
      earliestLeadMs: 360_000,
    });
  });

  it('takes the peaks from requests let through, counts 429s and the sync apart, and skips the admin API', () => {
    const log = logOf([
      ['2026-12-07T15:08:00.000Z', 'POST', `${API}/contacts/bulk`, 200],
      ['2026-12-07T15:08:30.000Z', 'POST', `${API}/contacts/bulk`, 200],
      ['2026-12-07T15:08:40.000Z', 'GET', `${API}/campaigns/cmp_a/stats`, 429],
      ['2026-12-07T16:10:00.000Z', 'POST', `${API}/contacts/bulk`, 200],
      ['2026-12-07T16:10:00.000Z', 'GET', '/_emulator/clock', 200],
      ['2026-12-07T16:10:00.000Z', 'GET', '/_emulator/clock', 200],
      ['2026-12-07T16:10:00.000Z', 'GET', '/_emulator/clock', 200],
    ]);
    const figures = budgetFigures(log, CLOSE);
    expect(figures).toMatchObject({ peakMinute: 2, peakHour: 2, refused: 1, syncRequests: 3, syncLastHour: 1 });
    expect(figures.refusedExamples).toEqual([
      { method: 'GET', path: '/campaigns/cmp_a/stats', t: Date.parse('2026-12-07T15:08:40.000Z') },
    ]);
    expect(figures.lastSync).toBe(Date.parse('2026-12-07T16:10:00.000Z'));
  });

  it('finds calls started inside the closing margin or after the close, not those before it', async () => {
    const call = (started_at: string) => ({ phone_number: '+12125550100', started_at });
    const figures = await auditClose(
      [
        call('2026-12-07T16:54:59Z'),
        call('2026-12-07T16:56:00Z'),
        call('2026-12-07T17:03:00Z'),
        { phone_number: '+12125550101', started_at: null },
      ],
      { hours: 'Mon-Fri 10:00-12:00', closingMarginMinutes: 5 },
      CLOSE,
      [],
    );
    expect(figures).toMatchObject({ placed: 3, unlawful: 2, inMargin: 1, afterClose: 1, couldDial: 0 });
  });

  it('finds stretches in which a campaign could dial into the margin, though no call started there', async () => {
    const span = (from: string, to: string) => ({ campaign_id: 'cmp_a', from, to, phones: ['+12125550100'] });
    const figures = await auditClose([], { hours: 'Mon-Fri 10:00-12:00', closingMarginMinutes: 5 }, CLOSE, [
      span('2026-12-07T15:00:00Z', '2026-12-07T16:55:00Z'),
      span('2026-12-07T15:00:00Z', '2026-12-07T16:56:00Z'),
    ]);
    expect(figures).toMatchObject({ placed: 0, unlawful: 0, couldDial: 1 });
    expect(figures.examples).toEqual([expect.stringContaining('could be dialled within the closing margin')]);
  });
});
