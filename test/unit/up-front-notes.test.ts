import { describe, expect, it } from 'vitest';
import { DEFAULT_LIMITS } from '#commons/api-budget/shared-budget.ts';
import { parseWindowRules } from '#commons/calling-window.ts';
import { EnvReader } from '#commons/config.ts';
import { parseLegalHours } from '#commons/legal-hours.ts';
import { readPauseTimings } from '#commons/plan-load.ts';
import { readHoldHorizonMs } from '#commons/window-plan.ts';
import { upFront, upFrontNotes } from '#intake/plan-load-notes.ts';
import type { UploadSettings } from '#intake/settings.ts';
import type { ValidationOutcome } from '#intake/validate-upload.ts';

const NOW = Date.parse('2026-12-07T12:00:00Z');
const planWith = (env: Record<string, string>) => {
  const reader = new EnvReader(env);
  return { limits: DEFAULT_LIMITS, timings: readPauseTimings(reader), holdHorizonMs: readHoldHorizonMs(reader) };
};
const PLAN = planWith({});
/** Only the settings speak here: with no parts the plan has nothing to carry. */
const notesFor = (settings: UploadSettings) =>
  upFrontNotes({ settings, parts: [] } as unknown as ValidationOutcome, undefined, PLAN, NOW);

/** A part of the upload: its index, the zones its numbers may ring in, its country; one contact. */
const partOf = (index: number, zones: string[], country = 'US') => ({
  index,
  zones,
  timeZone: zones[0],
  country,
  regions: [],
  contacts: [{ row: index + 1, phone: '+12125550100' }],
});
const NEW_YORK = ['America/New_York'];

describe('what intake and validate say up front of an upload', () => {
  it.each([
    ['a daytime window', { window: parseWindowRules('Mon-Fri 09:00-17:00') }, []],
    [
      'a window written backwards runs past midnight',
      { window: parseWindowRules('Mon-Fri 17:00-09:00') },
      [expect.stringMatching(/^the calling window Mon,Tue,Wed,Thu,Fri 17:00-09:00 runs past midnight/)],
    ],
    [
      'only the overnight rule is named',
      { window: parseWindowRules('Mon-Fri 09:00-17:00; Sat 20:00-02:00') },
      [expect.stringMatching(/^the calling window Sat 20:00-02:00 runs past midnight/)],
    ],
    ['a window to midnight does not run past it', { window: parseWindowRules('daily 18:00-24:00') }, []],
    ['nor one written to 00:00', { window: parseWindowRules('daily 18:00-00:00') }, []],
    [
      'a start that has passed',
      { start: { dateTime: '2026-12-07T06:00', timeZone: 'America/New_York' } },
      [
        'the start date time 2026-12-07T06:00 (America/New_York) has passed: the campaigns start now, each when its calling window opens',
      ],
    ],
    ['a start ahead', { start: { dateTime: '2026-12-07T08:00', timeZone: 'America/New_York' } }, []],
  ])('%s', (_, settings, expected) => {
    expect(notesFor(settings as UploadSettings)).toEqual(expected);
  });

  it('names a part whose window never opens: numbers that may ring in New York and on Guam, three hours a day', () => {
    // 09:00-12:00 is 14:00-17:00Z in New York and 23:00-02:00Z on Guam: never both. New York and Chicago overlap.
    const parts = [partOf(1, [...NEW_YORK, 'Pacific/Guam']), partOf(2, [...NEW_YORK, 'America/Chicago'])];
    const settings = { window: parseWindowRules('Mon-Fri 09:00-12:00') };
    const notes = upFrontNotes({ settings, parts } as unknown as ValidationOutcome, undefined, PLAN, NOW);
    expect(notes).toEqual([
      'part 1 (1 contact) will be held, not dialled: its calling window does not open in the 14 days from its start: ' +
        'its numbers may ring in 2 time zones (America/New_York, Pacific/Guam) and are called only ' +
        'when every one of them is open, which never happens. Give those rows a Time Zone or State/Region cell naming ' +
        'where they are, or call them in another upload with a window that fits.',
    ]);
  });

  it('names a part whose window is no longer than the quiet time before its close, with what to give instead', () => {
    const part = partOf(1, NEW_YORK);
    const notesOf = (spec: string) =>
      upFrontNotes(
        { settings: { window: parseWindowRules(spec) }, parts: [part] } as unknown as ValidationOutcome,
        undefined,
        PLAN,
        NOW,
      );
    expect(notesOf('Mon-Fri 10:00-10:05')).toEqual([
      'part 1 (1 contact) will be held, not dialled: its calling window is open at most 5 min at a time, and no ' +
        'call may start in the last 7 min before each close (the 5 min closing margin and the 2 min the pause is ' +
        'sent ahead of it), in the 14 days from its start. Give a window longer than 7 minutes.',
    ]);
    // Eight minutes leave one to call in: nothing to say.
    expect(notesOf('Mon-Fri 10:00-10:08')).toEqual([]);
  });

  it('looks as far ahead as the lifecycle does: HOLD_HORIZON_DAYS', () => {
    const part = partOf(1, NEW_YORK);
    // Blackout dates from today for three weeks: the window next opens on 2026-12-28.
    const holidays = Array.from({ length: 21 }, (_, i) => new Date(NOW + i * 86_400_000).toISOString().slice(0, 10));
    const upload = {
      settings: { window: parseWindowRules('Mon-Fri 09:00-17:00'), holidays },
      parts: [part],
    } as unknown as ValidationOutcome;
    expect(upFrontNotes(upload, undefined, PLAN, NOW)).toEqual([
      expect.stringMatching(/^part 1 \(1 contact\) will be held, not dialled: .* in the 14 days from its start/),
    ]);
    expect(upFrontNotes(upload, undefined, planWith({ HOLD_HORIZON_DAYS: '10' }), NOW)).toEqual([
      expect.stringMatching(/ in the 10 days from its start/),
    ]);
    expect(upFrontNotes(upload, undefined, planWith({ HOLD_HORIZON_DAYS: '30' }), NOW)).toEqual([]);
  });

  it('names a part whose window cannot be built, and counts it among those not dialled', () => {
    // Great Britain's conservative default switched off and no upload window: no hours to call the GB part in.
    const upload = {
      settings: {},
      parts: [partOf(1, NEW_YORK), partOf(2, ['Europe/London'], 'GB')],
    } as unknown as ValidationOutcome;
    const { notes, held } = upFront(upload, parseLegalHours('{"GB": "off"}'), PLAN, NOW);
    expect(notes).toEqual([expect.stringMatching(/^part 2 \(1 contact\) will not be dialled: .*GB/)]);
    expect(held).toEqual([2]);
  });
});
