import { describe, expect, it } from 'vitest';
import { CallsApi } from '#commons/voice-api/calls.ts';
import type { ApiRequest, Transport } from '#commons/voice-api/http.ts';
import type { Call } from '#commons/voice-api/types.ts';
import type { CampaignRecord } from '#lifecycle/campaign-store.ts';
import {
  CALL_WATCH_LIMIT,
  endedSince,
  quietSince,
  recentCalls,
  strayCalls,
  type WatchedPart,
} from '#lifecycle/safety-net/call-watch.ts';

/** A running part whose campaign the workflow confirmed paused at 20:00 (UTC, for the table's sake). */
const paused = (partKey: string, campaignId: string, secured?: string): CampaignRecord => ({
  pk: `part#${partKey}`,
  partKey,
  uploadId: 'u',
  part: 1,
  status: 'running',
  campaignId,
  watch: {
    execution: `arn:${partKey}`,
    agentId: 'agent',
    campaignId,
    window: { intervals: [], zones: [], from: '', until: '' } as never,
    observedAt: '2027-01-04T20:00:00.000Z',
    nextLookAt: '2027-01-05T09:00:00.000Z',
    quiet: true,
  },
  ...(secured ? { secured: { at: secured, by: 'sweeper', outcome: 'paused', reason: 'r' } } : {}),
});
const call = (id: string, campaign: string | null, at: string, started = true): Call => ({
  id,
  status: 'in_progress',
  campaign_id: campaign,
  created_at: at,
  started_at: started ? at : null,
});

describe('calls placed by a campaign callsheet holds paused', () => {
  // Watched until two minutes before Tuesday's 09:00 opening (the sweep itself runs later than every call here).
  const until = Date.parse('2027-01-05T08:58:00Z');
  const held = (record: CampaignRecord): WatchedPart => ({
    partKey: record.partKey,
    campaignId: record.campaignId as string,
    since: quietSince(record),
    until,
    startsAt: null,
  });
  const a = held(paused('u#1', 'cmp_a'));
  const b = held(paused('u#2', 'cmp_b', '2027-01-04T22:00:00.000Z'));
  // Cancelled at 18:00 and watched up to the sweep (at 09:30 the next morning), open window or not.
  const c: WatchedPart = {
    partKey: 'u#3',
    campaignId: 'cmp_c',
    since: endedSince({ finishedAt: '2027-01-04T18:00:00.000Z' }),
    until: Date.parse('2027-01-05T09:30:00Z'),
    startsAt: null,
    ended: 'cancelled',
  };
  it.each([
    ['no calls at all', [], []],
    [
      'a call of another campaign, or of none',
      [call('c1', 'cmp_x', '2027-01-04T21:00:00Z'), call('c2', null, '2027-01-04T21:00:00Z')],
      [],
    ],
    // Within two minutes of the look that paused it: a call the vendor began before the pause landed.
    ['a call within two minutes of the look that paused it', [call('c1', 'cmp_a', '2027-01-04T20:01:59Z')], []],
    ['a call after that', [call('c1', 'cmp_a', '2027-01-04T20:02:01Z')], ['u#1 c1']],
    // The workflow's resume at the opening, on a vendor clock ahead: not stray.
    ['a call in the two minutes before the opening', [call('c1', 'cmp_a', '2027-01-05T08:58:30Z')], []],
    ['a call just before them', [call('c1', 'cmp_a', '2027-01-05T08:57:59Z')], ['u#1 c1']],
    [
      'the latest of several calls',
      [
        call('c1', 'cmp_a', '2027-01-04T21:00:00Z'),
        call('c2', 'cmp_a', '2027-01-04T21:05:00Z'),
        call('c0', 'cmp_a', '2027-01-04T20:30:00Z'),
      ],
      ['u#1 c2'],
    ],
    // The sweeper secured b at 22:00: calls before that were acted on already.
    ['a call before the last securing', [call('c1', 'cmp_b', '2027-01-04T21:30:00Z')], []],
    ['a call after the last securing', [call('c1', 'cmp_b', '2027-01-04T22:10:00Z')], ['u#2 c1']],
    // Queued, not started: the time it was created counts.
    ['a call created but not started', [call('c1', 'cmp_a', '2027-01-04T21:00:00Z', false)], ['u#1 c1']],
    [
      'both parts',
      [call('c1', 'cmp_b', '2027-01-04T23:00:00Z'), call('c2', 'cmp_a', '2027-01-04T23:00:00Z')],
      ['u#1 c2', 'u#2 c1'],
    ],
    // A part that ended: from two minutes after its end to the sweep, whatever the window.
    ['a call within two minutes of the end', [call('c1', 'cmp_c', '2027-01-04T18:01:59Z')], []],
    ['a call after that', [call('c1', 'cmp_c', '2027-01-04T18:02:01Z')], ['u#3 c1']],
    ['a call in the next open window', [call('c1', 'cmp_c', '2027-01-05T09:10:00Z')], ['u#3 c1']],
    ['a call after the sweep began', [call('c1', 'cmp_c', '2027-01-05T09:30:01Z')], []],
  ] as const)('%s', (_name, calls, expected) => {
    const found = strayCalls([a, b, c], [...calls]).map((s) => `${s.part.partKey} ${s.callId}`);
    expect(found).toEqual(expected);
  });

  it('counts from the later of the end and the last securing, as from the later of the look and the securing', () => {
    const at = (iso: string) => Date.parse(iso) + 120_000;
    expect(endedSince({ finishedAt: '2027-01-04T18:00:00.000Z' })).toBe(at('2027-01-04T18:00:00.000Z'));
    const secured = { at: '2027-01-04T19:00:00.000Z', by: 'sweeper', outcome: 'paused', reason: 'r' };
    expect(endedSince({ finishedAt: '2027-01-04T18:00:00.000Z', secured })).toBe(at(secured.at));
    expect(quietSince(paused('u#1', 'cmp_a'))).toBe(at('2027-01-04T20:00:00.000Z'));
    expect(quietSince(paused('u#2', 'cmp_b', '2027-01-04T22:00:00.000Z'))).toBe(at('2027-01-04T22:00:00.000Z'));
  });

  it('says when the call started', () => {
    expect(strayCalls([a], [call('c1', 'cmp_a', '2027-01-04T21:00:00Z')])[0]?.at).toBe('2027-01-04T21:00:00.000Z');
  });
});

describe('the calls list as the sweeper reads it', () => {
  /** The typed client on an account whose list has `pages` full pages: every request it sends is kept. */
  const log = (pages: number, asked: ApiRequest['query'][]) =>
    new CallsApi({
      async data(req: ApiRequest) {
        asked.push(req.query);
        const page = Number(req.query?.page);
        const calls = Array.from({ length: 100 }, (_, i) => call(`c${page}-${i}`, 'cmp_a', '2027-01-04T21:00:00Z'));
        return { calls, page, limit: 100, total: pages * 100, total_pages: pages };
      },
    } as unknown as Transport);
  it.each([
    [1, 1],
    [2, 2],
    [10, CALL_WATCH_LIMIT / 100],
  ])('%i page(s) in the list: reads %i, from the given instant, 100 at a time', async (pages, read) => {
    const asked: ApiRequest['query'][] = [];
    const since = new Date('2027-01-04T20:00:00Z');
    const calls = await recentCalls(log(pages, asked), since);
    expect(calls).toHaveLength(read * 100);
    expect(calls.at(-1)?.id).toBe(`c${read}-99`);
    expect(asked).toEqual(
      Array.from({ length: read }, (_, i) =>
        expect.objectContaining({ start_date: since.toISOString(), page: i + 1, limit: 100 }),
      ),
    );
  });
});
