import { describe, expect, it } from 'vitest';
import type { CampaignRecord, Watch } from '#lifecycle/campaign-store.ts';
import { showPart } from '#local/cli/commands/campaign.ts';

const watch = (over: Partial<Watch>): Watch => ({
  execution: 'x',
  agentId: 'agt_1',
  campaignId: 'cmp_1',
  window: { description: 'Mon-Fri 10:00-12:00' } as Watch['window'],
  observedAt: '2026-12-07T08:00:00.000Z',
  nextLookAt: '2026-12-07T08:00:00.000Z',
  quiet: false,
  ...over,
});

const record = (w: Watch): CampaignRecord =>
  ({
    partKey: 'u1-p1',
    uploadId: 'u1',
    part: 1,
    campaignId: 'cmp_1',
    status: 'running',
    startedAt: '2026-12-07T08:00:00.000Z',
    watch: w,
    timeline: [],
  }) as unknown as CampaignRecord;

describe('campaign show', () => {
  it.each([
    [
      'a dialling part shows when its workflow looks next',
      watch({ nextLookAt: '2026-12-07T15:05:00.000Z' }),
      'window: Mon-Fri 10:00-12:00; next look 2026-12-07T15:05:00.000Z',
    ],
    [
      'a part waiting for its start shows its last look, not a next look in the past',
      watch({ quiet: true }),
      'window: Mon-Fri 10:00-12:00; not dialling at its last look (2026-12-07T08:00:00.000Z)',
    ],
    [
      'a part paused at a close shows the look its workflow planned at the opening',
      watch({ quiet: true, nextLookAt: '2026-12-08T15:00:00.000Z' }),
      'window: Mon-Fri 10:00-12:00; next look 2026-12-08T15:00:00.000Z',
    ],
  ])('%s', (_what, w, line) => {
    expect(showPart(record(w))).toContain(line);
  });

  it('shows an ended part its window without a look to come', () => {
    const ended = {
      ...record(watch({ nextLookAt: '2026-12-09T18:00:00.000Z' })),
      status: 'completed',
      finishedAt: '2026-12-09T18:00:00.000Z',
    } as CampaignRecord;
    expect(showPart(ended)).toContain('window: Mon-Fri 10:00-12:00');
    expect(showPart(ended).join('\n')).not.toContain('next look');
  });

  it('heads a running part paused by its operator as status does, and says when its timeline is empty', () => {
    const paused = {
      ...record(watch({})),
      control: { wanted: 'pause', at: '2026-12-07T15:10:00.000Z' },
      timeline: [{ at: '2026-12-07T15:10:01.000Z', event: 'pause', reason: 'manual' }],
    } as CampaignRecord;
    expect(showPart(paused)).toEqual(
      expect.arrayContaining([
        'campaign cmp_1: paused (manual)',
        'timeline:',
        '  2026-12-07T15:10:01.000Z  pause (manual)',
      ]),
    );
    const asked = { ...paused, timeline: [] } as CampaignRecord;
    expect(showPart(asked)).toEqual(
      expect.arrayContaining(['campaign cmp_1: running, pause asked', 'timeline: no pause, resume or brake yet']),
    );
    expect(showPart(asked)).not.toContain('timeline:');
    // What the guard did after the workflow ended is on the timeline too, in its place.
    const braked = {
      ...paused,
      secured: { at: '2026-12-07T15:20:00.000Z', by: 'guard', outcome: 'braked', reason: 'execution aborted' },
    } as CampaignRecord;
    expect(showPart(braked)).toEqual(
      expect.arrayContaining([
        'secured by guard: braked (execution aborted)',
        'timeline:',
        '  2026-12-07T15:10:01.000Z  pause (manual)',
        '  2026-12-07T15:20:00.000Z  braked by guard (execution aborted)',
      ]),
    );
    expect(showPart({ ...braked, timeline: [] } as CampaignRecord)).not.toContain(
      'timeline: no pause, resume or brake yet',
    );
  });
});
