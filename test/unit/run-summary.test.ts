import { describe, expect, test } from 'vitest';
import { counted } from '#commons/words.ts';
import { contactsOutcome } from '#local/cli/run-contacts.ts';
import {
  deadEventsLine,
  faultedLines,
  isoDuration,
  partEntry,
  readableDuration,
  runOutcome,
  runSummary,
  securedLines,
  summaryLines,
} from '#local/cli/run-summary.ts';

describe('durations in the run summary', () => {
  test.each([
    [0, 'PT0S', '0 s'],
    [59, 'PT59S', '59 s'],
    [3_723, 'PT1H2M3S', '1 h 2 min 3 s'],
    [7_200, 'PT2H', '2 h'],
    [86_400, 'P1D', '1 d'],
    [213_617, 'P2DT11H20M17S', '2 d 11 h 20 min 17 s'],
    [172_860, 'P2DT1M', '2 d 1 min'],
  ])('%i s is %s, read as "%s"', (seconds, iso, readable) => {
    expect(isoDuration(seconds)).toBe(iso);
    expect(readableDuration(iso)).toBe(readable);
  });
});

describe('what is left to do about a part the safety net could not leave paused', () => {
  const release =
    "  its agent stays switched off until you run `callsheet campaign release cmp_1`, once campaign cmp_1 shows paused in the vendor's dashboard";
  const releasePart =
    "  its agent stays switched off until you run `callsheet campaign release u-p1`, once the campaign of part u-p1 (its create's answer was lost: find it by its name in the vendor's dashboard) shows paused in the vendor's dashboard";
  const check =
    "  callsheet no longer watches campaign cmp_1: check it in the vendor's dashboard and pause it there now";
  const local = '  the local emulator stopped with the run: it dials no one after it';
  test.each([
    ['paused', 'interrupted', 'cmp_1', true, []],
    ['not_active', 'failed', 'cmp_1', true, []],
    ['nothing', 'interrupted', null, true, []],
    ['braked', 'interrupted', 'cmp_1', true, [release]],
    ['braked', 'failed', null, true, [releasePart]],
    ['braked', 'interrupted', 'cmp_1', false, []],
    ['unconfirmed', 'interrupted', 'cmp_1', true, [check]],
    ['unconfirmed', 'failed', 'cmp_1', false, [local]],
    // Secured by a sweep mid-run, then completed by its workflow: as the workflow left it.
    ['unconfirmed', 'completed', 'cmp_1', true, []],
    [undefined, 'interrupted', 'cmp_1', true, []],
  ])('%s, part %s, campaign %s, on a real API %s', (outcome, status, campaignId, realApi, lines) => {
    const secured = outcome ? { outcome } : undefined;
    expect(securedLines({ campaignId, partKey: 'u-p1', status, ...(secured ? { secured } : {}) }, realApi)).toEqual(
      lines,
    );
  });
});

describe("a part's failure in the run summary", () => {
  const report = { status: 'failed', failure: { code: 'workflow_stopped', message: 'the guard left it unconfirmed' } };
  const files = { json: 'reports/u/part-1.json', html: 'reports/u/part-1.html' };
  const entry = (record: Parameters<typeof partEntry>[6]) =>
    partEntry(1, report as Parameters<typeof partEntry>[1], 'b', files, (n) => `/data/${n}`, true, record);
  const later = { code: 'workflow_stopped', message: 'the sweeper left it braked' };
  const secured = { at: '2026-12-07T16:05:00Z', by: 'sweeper', outcome: 'braked', reason: 'x', pauseHeld: false };

  test('is the latest securing of its record: the safety net may act again after the report is written', () => {
    const e = entry({ secured: secured as never, failure: later });
    expect([e.failure?.message, e.secured?.outcome, e.status]).toEqual([
      'the sweeper left it braked',
      'braked',
      'interrupted',
    ]);
  });

  test("is its report's when the safety net has not acted on it", () => {
    expect(entry({ failure: later }).failure?.message).toBe('the guard left it unconfirmed');
    expect(entry(null).failure?.message).toBe('the guard left it unconfirmed');
  });
});

describe('counts with their nouns', () => {
  test.each([
    [0, 'contact', undefined, '0 contacts'],
    [1, 'contact', undefined, '1 contact'],
    [2, 'contact', undefined, '2 contacts'],
    [1, 'reply', 'replies', '1 reply'],
    [3, 'reply', 'replies', '3 replies'],
  ])('%i %s', (n, noun, nouns, text) => {
    expect(counted(n, noun, nouns)).toBe(text);
  });
});

describe('how a run ends', () => {
  const summary = (failures: Record<string, number>) => ({
    ...runSummary(null, null),
    failedByReason: failures,
  });
  test.each([
    ['every part completed', ['completed', 'completed'], {}, 0, []],
    ['a part failed', ['completed', 'failed'], {}, 1, []],
    ['no part at all', [], {}, 1, []],
    ['busy and no answer are outcomes, not failures of the run', ['completed'], { busy: 2, no_answer: 1 }, 0, []],
    [
      'calls failed for want of credits',
      ['completed'],
      { insufficient_credits: 3 },
      1,
      [
        '3 calls failed for want of credits: top up the account (here: --credits); the part reports show whose calls they were.',
      ],
    ],
    [
      'one call failed for want of credits',
      ['completed'],
      { insufficient_credits: 1 },
      1,
      [
        '1 call failed for want of credits: top up the account (here: --credits); the part reports show whose calls they were.',
      ],
    ],
  ])('%s', (_what, statuses, failures, code, lines) => {
    const outcome = runOutcome(
      statuses.map((status) => ({ status })),
      summary(failures),
      'here: --credits',
    );
    expect(outcome).toEqual({ code, lines });
  });
});

describe('whether a run’s contact sync did all it was given', () => {
  const synced = (over: Partial<Parameters<typeof contactsOutcome>[0]> = {}) => ({
    file: 'crm.jsonl',
    upload: 's3://b/contacts/crm.jsonl',
    report: 's3://b/reports/contacts/x.json',
    error: null,
    rows: { total: 5, accepted: 5, rejected: 0 },
    rejected: [],
    applied: { created: 3, updated: 1, unchanged: 0, duplicate: 1 },
    deadLettered: [],
    waitingToBePushed: 0,
    ...over,
  });
  test.each([
    ['all of it', {}, null],
    ['a file it could not read', { error: { code: 'unreadable', message: 'not JSON' } }, 'the file was not read'],
    ['a rejected line', { rejected: [{ row: 2, reason: 'invalid_phone' }] }, '1 line(s) rejected'],
    ['dead-lettered events', { deadLettered: ['a', 'b'] }, '2 event(s) dead-lettered'],
    ['contacts not pushed', { waitingToBePushed: 3 }, '3 contact(s) not pushed'],
    [
      'several at once, a sheet',
      { file: 'crm.csv', rejected: [{ row: 4, reason: 'invalid_phone' }], waitingToBePushed: 1 },
      '1 row(s) rejected, 1 contact(s) not pushed',
    ],
  ] as const)('%s', (_what, over, left) => {
    const s = synced(over as Partial<Parameters<typeof contactsOutcome>[0]>);
    const outcome = contactsOutcome(s);
    expect(outcome.ok).toBe(left === null);
    expect(outcome.line).toBe(
      left === null
        ? null
        : `contacts ${s.file} not synced whole (${left}): the campaigns ran regardless; exit status 1, as \`callsheet contacts push\` gives.`,
    );
  });
});

describe('call events the outcomes queue dead-lettered', () => {
  test.each([
    [1, 5, 'call events: 1 not recorded after 5 deliveries'],
    [39, 3, 'call events: 39 not recorded after 3 deliveries'],
  ])('%i after %i deliveries', (n, deliveries, start) => {
    const line = deadEventsLine(n, deliveries);
    expect(line.startsWith(start)).toBe(true);
    expect(line).toContain('the part reports take those calls from the calls list');
  });
});

describe('the calls line of the run summary', () => {
  const summary = (creditsLeft: number) =>
    ({
      rows: 3,
      accepted: 3,
      rejected: 0,
      suppressed: 0,
      attempted: 3,
      called: 3,
      answered: 2,
      failedByReason: { insufficient_credits: 1 },
      creditsLeft,
    }) as unknown as ReturnType<typeof runSummary>;
  test.each([
    [12.5, 'credits left 12.5 INR'],
    [-3.25, 'credits left -3.25 INR (overdrawn: calls under way when the credits ran out are charged when they end)'],
  ])('with %s INR left says %s', (left, words) => {
    expect(summaryLines(summary(left))[1]).toMatch(new RegExp(`; ${words.replace(/[()]/g, '\\$&')}$`));
  });
});

describe('what a fault plan did, in the run summary', () => {
  test.each([
    [
      'nothing hit: said to have tested nothing',
      [],
      'faulted requests: 0: no request matched the fault plan (its methods, paths or times never came up in this run), so this rehearsal tested nothing of it',
    ],
    [
      'each way an answer went, counted',
      [{ status: 500 }, { status: 500 }, { status: 409 }, { status: 200, dropped: true }, { status: 200, cut: true }],
      'faulted requests: 5 (answered 500: 2, answered 409: 1, answer dropped: 1, answer cut short: 1)',
    ],
    [
      'a replaced body with its status',
      [{ status: 200, replaced: true }],
      'faulted requests: 1 (body replaced (200): 1)',
    ],
  ])('%s', (_what, hits, line) => {
    expect(faultedLines(hits)).toEqual([line]);
  });
});
