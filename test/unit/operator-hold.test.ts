import { describe, expect, it } from 'vitest';
import type { CampaignRecord } from '#lifecycle/campaign-store.ts';
import { heldByOperator } from '#local/cli/operator-hold.ts';

const part = (n: number, over: Partial<CampaignRecord>): CampaignRecord =>
  ({ pk: `p${n}`, partKey: `u-p${n}`, uploadId: 'u', part: n, status: 'running', ...over }) as CampaignRecord;
const asked = (wanted: 'pause' | 'resume' | 'cancel', at = '2026-12-07T10:00:00Z') => ({ control: { wanted, at } });
const looked = (observedAt: string) => ({ watch: { observedAt } as CampaignRecord['watch'] });

describe('heldByOperator: when a run waits on an operator alone', () => {
  it.each([
    ['nothing runs', [], []],
    ['a part dialling', [part(1, looked('2026-12-07T10:05:00Z'))], []],
    [
      'a pause its workflow has seen: held',
      [part(1, { ...asked('pause'), ...looked('2026-12-07T10:05:00Z') })],
      ['u-p1'],
    ],
    [
      'a pause asked after the last look: not yet',
      [part(1, { ...asked('pause'), ...looked('2026-12-07T09:55:00Z') })],
      [],
    ],
    ['a pause before any look: not yet', [part(1, asked('pause'))], []],
    ['a resume asked: goes on', [part(1, { ...asked('resume'), ...looked('2026-12-07T10:05:00Z') })], []],
    ['a cancel asked: goes on', [part(1, { ...asked('cancel'), ...looked('2026-12-07T10:05:00Z') })], []],
    [
      'one part paused, another still dialling: time goes on for it',
      [part(1, { ...asked('pause'), ...looked('2026-12-07T10:05:00Z') }), part(2, looked('2026-12-07T10:05:00Z'))],
      [],
    ],
    [
      'the other part ended: held',
      [
        part(1, { ...asked('pause'), ...looked('2026-12-07T10:05:00Z') }),
        part(2, { status: 'completed', ...looked('2026-12-07T10:05:00Z') }),
      ],
      ['u-p1'],
    ],
  ] as [string, CampaignRecord[], string[]][])('%s', (_, records, expected) => {
    expect(heldByOperator(records).map((r) => r.partKey)).toEqual(expected);
  });
});
