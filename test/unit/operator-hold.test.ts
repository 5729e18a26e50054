import { describe, expect, it } from 'vitest';
import type { CampaignRecord, TimelineEntry } from '#lifecycle/campaign-store.ts';
import { heldByOperator } from '#local/cli/operator-hold.ts';

const part = (n: number, over: Partial<CampaignRecord>): CampaignRecord =>
  ({ pk: `p${n}`, partKey: `u-p${n}`, uploadId: 'u', part: n, status: 'running', ...over }) as CampaignRecord;
const asked = (wanted: 'pause' | 'resume' | 'cancel', at = '2026-12-07T10:00:00Z') => ({ control: { wanted, at } });
const recorded = (...timeline: [string, string, string][]) => ({
  timeline: timeline.map(([at, event, reason]) => ({ at, event, reason }) as TimelineEntry),
});
/** The operator's pause as the workflow records it at its look after the request. */
const seen = (at = '2026-12-07T10:05:00Z') => recorded([at, 'pause', 'manual']);

describe('heldByOperator: when a run waits on an operator alone', () => {
  it.each([
    ['nothing runs', [], []],
    ['a part dialling', [part(1, {})], []],
    ['a pause its workflow has recorded: held', [part(1, { ...asked('pause'), ...seen() })], ['u-p1']],
    [
      'recorded at the very instant of the request: held',
      [part(1, { ...asked('pause'), ...seen('2026-12-07T10:00:00Z') })],
      ['u-p1'],
    ],
    ['a pause not yet recorded: not yet', [part(1, asked('pause'))], []],
    [
      'only an earlier manual pause on record: not yet',
      [part(1, { ...asked('pause'), ...recorded(['2026-12-07T09:00:00Z', 'pause', 'manual']) })],
      [],
    ],
    [
      'a window pause since the request: not the operator\u2019s, not yet',
      [part(1, { ...asked('pause'), ...recorded(['2026-12-07T10:05:00Z', 'pause', 'window']) })],
      [],
    ],
    ['a resume asked: goes on', [part(1, { ...asked('resume'), ...seen() })], []],
    ['a cancel asked: goes on', [part(1, { ...asked('cancel'), ...seen() })], []],
    [
      'one part paused, another still dialling: time goes on for it',
      [part(1, { ...asked('pause'), ...seen() }), part(2, {})],
      [],
    ],
    [
      'the other part ended: held',
      [part(1, { ...asked('pause'), ...seen() }), part(2, { status: 'completed' })],
      ['u-p1'],
    ],
  ] as [string, CampaignRecord[], string[]][])('%s', (_, records, expected) => {
    expect(heldByOperator(records).map((r) => r.partKey)).toEqual(expected);
  });
});
