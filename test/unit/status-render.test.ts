import { describe, expect, it } from 'vitest';
import { parseWindowRules } from '#commons/calling-window.ts';
import { DEFAULT_LEGAL_HOURS } from '#commons/legal-hours.ts';
import { partWindow } from '#commons/window-plan.ts';
import { type CampaignRecord, progressOf, type Watch } from '#lifecycle/campaign-store.ts';
import { partStatus, render } from '#local/cli/commands/status.ts';

const part = {
  uploadId: 'u1',
  partKey: 'u1-p1',
  campaignId: null,
  progress: null,
  live: false,
  window: null,
  lastEvent: null,
};

describe('callsheet status screen', () => {
  it.each([
    [
      'a part whose workflow timed out before launching says why',
      {
        ...part,
        part: 1,
        status: 'failed',
        failure: 'workflow_timed_out: the workflow timed out; the guard left the campaign none',
      },
      /part 1 -\s+failed\s+\(workflow_timed_out: the workflow timed out; the guard left the campaign none\)/,
    ],
    [
      'a held part says its window never opened',
      { ...part, part: 2, status: 'held', failure: 'window_never_opens: held, not dialled' },
      /part 2 -\s+held\s+\(window_never_opens: held, not dialled\)/,
    ],
    [
      'an ended part without a failure points to the report',
      { ...part, part: 3, status: 'completed', failure: null },
      /\(ended; see callsheet report\)/,
    ],
    [
      'a running part shows the progress its workflow saw, and when',
      {
        ...part,
        part: 4,
        status: 'running',
        live: true,
        campaignId: 'cmp_1',
        progress: { done: 5, total: 10, at: '2026-12-07T11:58:00.000Z' },
        failure: null,
      },
      /part 4 cmp_1\s+running\s+\[##########\.{10}\] 5\/10 at 11:58Z/,
    ],
    [
      'a running part in the last minutes of its window says no call starts in them, not that it is open',
      {
        ...part,
        part: 6,
        status: 'paused (window)',
        live: true,
        campaignId: 'cmp_6',
        window: { hours: 'Mon-Fri 10:00-12:00', open: true, closing: true, changesAt: '2026-12-07T17:00Z' },
        failure: null,
      },
      /part 6 cmp_6\s+paused \(window\).*window closing at 2026-12-07T17:00Z: no call starts in its last minutes$/,
    ],
    [
      'a running part whose agent another part has braked says it dials nobody, and who holds the brake',
      {
        ...part,
        part: 7,
        status: 'running',
        live: true,
        campaignId: 'cmp_7',
        progress: { done: 11, total: 20, at: '2026-12-07T11:58:00.000Z' },
        brakedBy: ['u1-p1'],
        failure: null,
      },
      /part 7 cmp_7 .*\n {4}its agent is braked, so it dials nobody: the brake is held by u1-p1 \(`callsheet campaign show <part key>` says why\)/,
    ],
    [
      'a running part its workflow has not looked at yet says so',
      { ...part, part: 5, status: 'creating', live: true, failure: null },
      /part 5 -\s+creating\s+\(no progress yet: its workflow has not looked at the campaign\)/,
    ],
  ])('%s', (_what, p, line) => {
    const screen = render({
      now: '2026-12-07T12:00:00Z',
      where: 'the local stack',
      api: true,
      apiSlow: false,
      parts: [p],
      unlaunched: [],
    });
    expect(screen).toMatch(line);
    expect(screen).not.toMatch(/did not answer/);
  });

  it('says when no stack runs on the data directory that a running part is watched by nobody, and what to do', () => {
    const base = { now: '2026-12-07T12:00:00Z', where: 'the local stack', api: false, apiSlow: false, unlaunched: [] };
    const running = { ...part, part: 1, status: 'running', live: true, failure: null };
    const screen = render({ ...base, parts: [running], noStack: true });
    expect(screen.split('\n')[1]).toMatch(
      /^\(no callsheet stack runs on this data directory: a part shown running lost its workflow .* `callsheet local` or `callsheet run` here starts the sweeper, which ends such a part and secures its campaign\)$/,
    );
    // Ended parts need no workflow; a running stack watches its own.
    expect(
      render({ ...base, parts: [{ ...part, part: 1, status: 'completed', failure: null }], noStack: true }),
    ).not.toMatch(/no callsheet stack/);
    expect(render({ ...base, parts: [running] })).not.toMatch(/no callsheet stack/);
  });

  it('says when the API did not tell its time, and whose clock the times are then', () => {
    const slow = render({
      now: '2026-12-07T12:00:00Z',
      where: 'the local stack',
      api: true,
      apiSlow: true,
      parts: [{ ...part, part: 1, status: 'running', live: true, failure: null }],
      unlaunched: [],
    });
    expect(slow.split('\n')[1]).toBe(
      "(the Voice API did not answer within 2 s: it is slow or down; times are this computer's clock, progress is each workflow's last look)",
    );
  });
});

describe('progressOf: contacts done of all, from what the workflow recorded', () => {
  const watch = (over: Partial<Watch>): Watch => ({
    execution: 'x',
    agentId: 'agt_1',
    campaignId: 'cmp_1',
    window: {} as Watch['window'],
    observedAt: '2026-12-07T11:58:00Z',
    nextLookAt: '2026-12-07T12:00:00Z',
    quiet: false,
    ...over,
  });
  it.each([
    [
      'the counts of the last look',
      { counts: { total: 10, completed: 3, failed: 1, pending: 5, in_progress: 1 } },
      { done: 4, total: 10 },
    ],
    ['a record written before the counts', { progress: { done: 2, total: 7 } }, { done: 2, total: 7 }],
    ['a look the API never answered', {}, null],
  ])('%s', (_what, over, expected) => {
    expect(progressOf(watch(over))).toEqual(expected);
  });
  it('no record yet', () => expect(progressOf(undefined)).toBeNull());

  it('lists uploads that launched nothing, with the reason and the report, also when no part exists', () => {
    const base = { now: '2026-12-07T12:00:00Z', where: 'the local stack', api: true, apiSlow: false, parts: [] };
    expect(render({ ...base, unlaunched: [] })).toBe('No uploads in the local stack.');
    // Deployed without UPLOADS_TABLE the uploads are not read: only campaigns are known to be absent.
    expect(render({ ...base, unlaunched: null })).toBe('No uploads with campaigns in the local stack.');
    expect(render({ ...base, unlaunched: null, unlaunchedNote: 'uploads that launched nothing: not read' })).toBe(
      'No uploads with campaigns in the local stack.\n(uploads that launched nothing: not read)',
    );
    const screen = render({
      ...base,
      unlaunched: [
        {
          uploadId: 'u2',
          key: 'incoming/agent_old/sheet.csv',
          status: 'rejected',
          reason: 'No agent "agent_old": name an agent of this account.',
          reportKey: 'reports/u2/report.json',
          finishedAt: '2026-12-07T11:30:12.000Z',
        },
        {
          uploadId: 'u3',
          key: 'incoming/a/again.csv',
          status: 'repeated',
          reason: null,
          reportKey: 'reports/u3/report.json',
          finishedAt: null,
        },
        {
          uploadId: 'u4',
          key: 'incoming/a/stuck.csv',
          status: 'unfinished',
          reason: 'intake did not finish',
          reportKey: null,
          finishedAt: null,
        },
      ],
    });
    expect(screen.split('\n').slice(1)).toEqual([
      'uploads that launched nothing:',
      '  2026-12-07T11:30Z  incoming/agent_old/sheet.csv: rejected (No agent "agent_old": name an agent of this account.); report reports/u2/report.json',
      '  incoming/a/again.csv: not launched again; report reports/u3/report.json',
      '  incoming/a/stuck.csv: not finished (intake did not finish)',
    ]);
  });

  it('shows the newest twenty uploads that launched nothing and says how many more', () => {
    const unlaunched = Array.from({ length: 23 }, (_, i) => ({
      uploadId: `u${i}`,
      key: `incoming/a/${i}.csv`,
      status: 'rejected' as const,
      reason: null,
      reportKey: `reports/u${i}/report.json`,
      finishedAt: null,
    }));
    const screen = render({
      now: '2026-12-07T12:00:00Z',
      where: 'here',
      api: true,
      apiSlow: false,
      parts: [],
      unlaunched,
    });
    const lines = screen.split('\n');
    expect(lines.filter((l) => l.includes(': rejected'))).toHaveLength(20);
    expect(lines.at(-1)).toBe('  and 3 earlier (status --json lists every one)');
  });
});

describe("a running part's window on the status screen", () => {
  const made = partWindow(
    {
      part: { zones: ['America/New_York'], timeZone: 'America/New_York', country: 'US', regions: [] },
      window: { rules: parseWindowRules('Mon-Fri 10:00-12:00'), holidays: [] },
    },
    DEFAULT_LEGAL_HOURS,
    Date.parse('2026-12-01T00:00Z'),
  );
  if (!made.ok) throw new Error(made.message);
  const record = {
    uploadId: 'u1',
    part: 1,
    partKey: 'u1-p1',
    status: 'running',
    watch: { window: made.window },
  } as unknown as CampaignRecord;

  it('says of a failed part whose brake an operator let go of since that it was', () => {
    const failed = {
      ...record,
      status: 'failed',
      failure: { code: 'workflow_aborted', message: 'the guard left the campaign braked' },
      timeline: [{ at: '2026-12-07T16:00:00.000Z', event: 'brake released', reason: 'operator' }],
    } as unknown as CampaignRecord;
    expect(partStatus(failed, Date.parse('2026-12-07T16:05Z'), 7 * 60_000).failure).toBe(
      'workflow_aborted: the guard left the campaign braked; its brake was let go at 2026-12-07T16:00:00.000Z',
    );
    const still = { ...failed, timeline: [] } as unknown as CampaignRecord;
    expect(partStatus(still, Date.parse('2026-12-07T16:05Z'), 7 * 60_000).failure).toBe(
      'workflow_aborted: the guard left the campaign braked',
    );
  });

  /** The status screen at 23:30 shows the sweeper's 23:00 securing of `r` with `reason`, or no securing at all. */
  const expectSecuredLine = (r: CampaignRecord, shown: boolean, reason: string) => {
    const status = partStatus(r, Date.parse('2026-12-07T23:30Z'), 7 * 60_000);
    const screen = render({
      now: '2026-12-07T23:30Z',
      where: 'here',
      api: true,
      apiSlow: false,
      parts: [status],
      unlaunched: [],
    });
    const line = `    the sweeper secured it at 2026-12-07T23:00Z, left paused: ${reason}`;
    if (shown) expect(screen.split('\n')).toContain(line);
    else expect(screen).not.toMatch(/secured it/);
  };

  it.each([
    // The sweeper paused it again after the workflow's last look: the screen says so until the workflow looks.
    ['after the last look', '2026-12-07T23:00:00.000Z', true],
    ['before it (the workflow has looked since)', '2026-12-07T21:00:00.000Z', false],
  ])('says a running part was secured by the safety net %s', (_when, at, shown) => {
    const secured = {
      ...record,
      watch: { ...(record.watch as Watch), observedAt: '2026-12-07T22:00:00.000Z' },
      secured: { at, by: 'sweeper', outcome: 'paused', reason: 'its campaign placed call c1 at …', pauseHeld: true },
    } as CampaignRecord;
    expectSecuredLine(secured, shown, 'its campaign placed call c1 at …');
  });

  it.each([
    // The sweeper paused it again after someone resumed it in the vendor's dashboard: said from then on.
    ['the sweeper, after its end', 'sweeper', '2026-12-07T23:00:00.000Z', true],
    ['the sweeper, before it', 'sweeper', '2026-12-07T21:59:00.000Z', false],
    // The guard's securing once the workflow had failed (its failure written first): the failure says it.
    ['the guard, after its end', 'guard', '2026-12-07T23:00:00.000Z', false],
  ])('says an ended part was secured by %s', (_when, by, at, shown) => {
    const ended = {
      ...record,
      status: 'cancelled',
      finishedAt: '2026-12-07T22:00:00.000Z',
      secured: {
        at,
        by,
        outcome: 'paused',
        reason: 'its campaign placed call c1 at … after its part ended (cancelled)',
        pauseHeld: true,
      },
    } as CampaignRecord;
    expectSecuredLine(ended, shown, 'its campaign placed call c1 at … after its part ended (cancelled)');
  });

  it.each([
    ['in the window', '2026-12-07T15:30Z', { open: true, changesAt: '2026-12-07T17:00Z' }],
    ['in its last 7 minutes', '2026-12-07T16:55Z', { open: true, closing: true, changesAt: '2026-12-07T17:00Z' }],
    ['just before them', '2026-12-07T16:52Z', { open: true, changesAt: '2026-12-07T17:00Z' }],
    ['after the close', '2026-12-07T17:30Z', { open: false, changesAt: '2026-12-08T15:00Z' }],
  ])('%s (%s)', (_what, now, window) => {
    expect(partStatus(record, Date.parse(now), 7 * 60_000).window).toEqual({
      hours: made.window.description,
      ...window,
    });
  });
});
