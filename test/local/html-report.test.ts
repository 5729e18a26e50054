import { describe, expect, it } from 'vitest';
import { type PartReportView, parseCsv, pausedStretches, renderReportPage } from '#local/stack/html-report.ts';

const part = (over: Partial<PartReportView> = {}): PartReportView => ({
  uploadId: 'sheet-1',
  part: 1,
  of: 2,
  campaignId: 'cmp_1',
  campaignName: 'sheet part 1',
  status: 'completed',
  stats: { total: 3, completed: 2, failed: 1, pending: 0, in_progress: 0 },
  window: { zones: ['America/New_York'], hours: 'Mon-Fri 09:00-17:00' },
  pauses: [],
  resumes: [],
  startedAt: '2026-12-07T14:00:00.000Z',
  finishedAt: '2026-12-07T18:00:00.000Z',
  ...over,
});

describe('parseCsv', () => {
  it.each([
    [
      'a,b\r\n1,2\r\n',
      [
        ['a', 'b'],
        ['1', '2'],
      ],
    ],
    [
      'a,"b,c"\n"say ""hi""",\n',
      [
        ['a', 'b,c'],
        ['say "hi"', ''],
      ],
    ],
    ['"two\nlines",x', [['two\nlines', 'x']]],
    ['', []],
  ])('%j', (text, rows) => {
    expect(parseCsv(text)).toEqual(rows);
  });
});

describe('pausedStretches', () => {
  const end = Date.parse('2026-12-07T18:00:00Z');
  it.each([
    ['none', [], [], []],
    [
      'a pause and its resume',
      [{ at: '2026-12-07T15:00:00Z', reason: 'manual' }],
      [{ at: '2026-12-07T15:30:00Z' }],
      [{ from: Date.parse('2026-12-07T15:00:00Z'), to: Date.parse('2026-12-07T15:30:00Z'), reason: 'manual' }],
    ],
    [
      'a pause never resumed lasts to the end',
      [{ at: '2026-12-07T17:00:00Z', reason: 'window' }],
      [],
      [{ from: Date.parse('2026-12-07T17:00:00Z'), to: end, reason: 'window' }],
    ],
    [
      'a second pause while paused keeps the first reason; a stray resume is ignored',
      [
        { at: '2026-12-07T15:00:00Z', reason: 'window' },
        { at: '2026-12-07T15:10:00Z', reason: 'manual' },
      ],
      [{ at: '2026-12-07T14:30:00Z' }, { at: '2026-12-07T16:00:00Z' }],
      [{ from: Date.parse('2026-12-07T15:00:00Z'), to: Date.parse('2026-12-07T16:00:00Z'), reason: 'window' }],
    ],
  ])('%s', (_name, pauses, resumes, stretches) => {
    expect(pausedStretches(part({ pauses, resumes }), end)).toEqual(stretches);
  });
});

describe('renderReportPage', () => {
  it('escapes everything that came from a sheet or a call', () => {
    const html = renderReportPage({
      part: part({ campaignName: '<b>x</b>' }),
      rejected: [{ row: 3, reason: 'invalid_number', input: '<script>alert(1)</script>' }],
      outcomes: { header: ['Phone Number', 'Name'], rows: [['+14155550101', '"><img src=x onerror=alert(1)>']] },
    });
    expect(html).not.toContain('<script>alert');
    expect(html).not.toContain('<img');
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(html).toContain('&lt;b&gt;x&lt;/b&gt;');
  });

  it('is self-contained: no scripts and nothing loaded from elsewhere', () => {
    const html = renderReportPage({ part: part({ pauses: [{ at: '2026-12-07T15:00:00Z', reason: 'manual' }] }) });
    expect(html).not.toMatch(/<script|<link|src=|url\(/i);
    expect(html).toContain('<svg id="chart"');
  });

  it('draws the finished calls as steps and each paused stretch as a band with its reason', () => {
    const html = renderReportPage({
      part: part({
        pauses: [{ at: '2026-12-07T15:00:00Z', reason: 'manual' }],
        resumes: [{ at: '2026-12-07T16:00:00Z' }],
      }),
      outcomes: {
        header: ['Phone Number', 'Last Call At'],
        rows: [
          ['+1', '2026-12-07T14:30:00Z'],
          ['+2', '2026-12-07T16:30:00Z'],
        ],
      },
    });
    const d = /class="finished" d="([^"]+)"/.exec(html)?.[1] ?? '';
    expect(d.match(/V/g)).toHaveLength(2);
    // 15:00-16:00 of a 14:00-18:00 span on a 656-px plot starting at x=48: 212 to 376.
    expect(html).toMatch(/<rect class="paused manual" x="212.0" y="16" width="164.0"/);
    expect(html).toContain('paused: by an operator');
    expect(html).toContain("calls finished (2 of 3, from each contact's last call)");
  });

  it('lists the brakes in the timeline, saying why when a resume was in doubt', () => {
    const html = renderReportPage({
      part: part({
        brakes: [
          { at: '2026-12-07T16:53:00Z', event: 'brake', reason: 'resume_in_doubt' },
          { at: '2026-12-08T14:00:00Z', event: 'brake released', reason: 'window' },
        ],
      }),
      outcomes: { header: ['Phone Number'], rows: [] },
    });
    expect(html).toContain('brake: a resume&#39;s answer was lost: the agent is off until the window opens');
    expect(html).toMatch(/brake released</);
  });

  it('draws sampled stats when there are samples, ending at the final stats', () => {
    const sample = (at: string, completed: number, failed: number) => ({
      at,
      total: 3,
      completed,
      failed,
      pending: 3 - completed - failed,
      in_progress: 0,
    });
    const html = renderReportPage({
      part: part(),
      samples: [sample('2026-12-07T15:00:00Z', 1, 0), sample('2026-12-07T16:00:00Z', 1, 1)],
    });
    const finished = /class="finished" d="([^"]+)"/.exec(html)?.[1] ?? '';
    // 1 at 15:00, 2 at 16:00, 3 (2 completed + 1 failed) at the end: three steps up.
    expect(finished.match(/V/g)).toHaveLength(3);
    expect(html).toContain('class="completed"');
    expect(html).toContain("calls finished (3 of 3; 2 samples of the campaign's stats)");
  });

  it('draws when the calling window was open as a strip, clipped to the campaign', () => {
    const html = renderReportPage({
      part: part(),
      windowOpen: [
        { from: Date.parse('2026-12-07T13:00:00Z'), to: Date.parse('2026-12-07T15:00:00Z') },
        { from: Date.parse('2026-12-07T17:00:00Z'), to: Date.parse('2026-12-07T22:00:00Z') },
        { from: Date.parse('2026-12-08T13:00:00Z'), to: Date.parse('2026-12-08T15:00:00Z') },
      ],
    });
    const strips = [...html.matchAll(/<rect class="window-open" x="([\d.]+)" y="\d+" width="([\d.]+)"/g)].map((m) => [
      Number(m[1]),
      Number(m[2]),
    ]);
    // 14:00-15:00 and 17:00-18:00 of the 14:00-18:00 span (656 px from x=48); the next day's is outside.
    expect(strips).toEqual([
      [48, 164],
      [540, 164],
    ]);
    expect(html).toContain('calling window open (strip below the plot)');
  });

  it('names a follow-up round and lists the rounds a root part started', () => {
    const html = renderReportPage({
      part: part({
        followUpRounds: [{ round: 2, contacts: 4, outcomes: ['no_answer', 'busy'], notBefore: '2026-12-08T14:00:00Z' }],
      }),
    });
    expect(html).toContain('<td>2</td><td>4</td><td>no_answer, busy</td><td>2026-12-08T14:00:00Z</td>');
    expect(renderReportPage({ part: part({ round: 2 }) })).toContain('<title>sheet part 1, round 2</title>');
    // The part is named once: in the campaign's name when it has one, and always beside the upload.
    expect(renderReportPage({ part: part() })).toContain(', part 1 of 2 of upload <code>sheet-1</code>');
    expect(renderReportPage({ part: part({ campaignName: undefined }) })).toContain('<h1>part 1 of 2</h1>');
  });

  it('says when there are no outcomes or rejected rows instead of drawing empty tables', () => {
    const html = renderReportPage({ part: part() });
    expect(html).toContain('<p id="outcomes">Not written for this part.</p>');
    expect(html).toContain('<p id="rejected">None.</p>');
  });

  it("shows intake's notes (an API plan too small for the parts) escaped, and no section without any", () => {
    const note = "120 parts close their calling window at 17:00Z on Mon 2026-12-07; the API plan <100 a minute> can't…";
    const html = renderReportPage({ part: part(), notes: [note] });
    expect(html).toContain(
      '<h2>Intake notes</h2>\n<ul id="notes"><li>120 parts close their calling window at 17:00Z on Mon 2026-12-07; the API plan &lt;100 a minute&gt; can&#39;t…</li></ul>',
    );
    expect(renderReportPage({ part: part(), notes: [] })).not.toContain('Intake notes');
  });
});
