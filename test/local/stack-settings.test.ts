import { describe, expect, test } from 'vitest';
import { SETTINGS } from '#infra/setting-specs.ts';
import { shellSettings, shortTimeoutNote } from '#local/cli/shell-settings.ts';
import { checkStackSettings } from '#local/stack/local-stack.ts';

/** Every whole-number setting a shell may pass to the embedded stack's functions (shell-settings.ts). */
const WHOLE_NUMBERS = Object.entries(SETTINGS)
  .filter(([name, spec]) => spec.type === 'integer' && name in shellSettings({ [name]: '1' }))
  .map(([name]) => name);

describe('settings from the shell are checked before the embedded stack starts anything', () => {
  test('the defaults pass', () => {
    expect(() => checkStackSettings({})).not.toThrow();
  });

  test.each(WHOLE_NUMBERS)('%s="abc" is refused by name', (name) => {
    expect(() => checkStackSettings({ [name]: 'abc' })).toThrow(`${name}="abc"`);
  });

  test.each([
    ['LEGAL_HOURS', 'garbage', 'LEGAL_HOURS="garbage": not JSON'],
    ['DEFAULT_COUNTRY', 'Narnia', 'DEFAULT_COUNTRY'],
  ])('%s=%s is refused with the reason', (name, value, reason) => {
    expect(() => checkStackSettings({ [name]: value })).toThrow(reason);
  });

  test('the workflow timeout, a stack setting the embedded stack honours, comes from the shell and is checked', () => {
    expect(shellSettings({ LIFECYCLE_TIMEOUT_SECONDS: '1800', INTAKE_CONCURRENCY: '4' })).toEqual({
      LIFECYCLE_TIMEOUT_SECONDS: '1800',
    });
    expect(() => checkStackSettings({ LIFECYCLE_TIMEOUT_SECONDS: '1800' })).not.toThrow();
    expect(() => checkStackSettings({ LIFECYCLE_TIMEOUT_SECONDS: '30' })).toThrow(
      'LIFECYCLE_TIMEOUT_SECONDS="30": from 60 to 31536000',
    );
  });

  test.each([
    [{}, null],
    [{ LIFECYCLE_TIMEOUT_SECONDS: '3600' }, 'raise it to at least 2505600 or lower those. A deploy refuses this'],
    [{ LIFECYCLE_TIMEOUT_SECONDS: '259200', START_HORIZON_DAYS: '1', HOLD_HORIZON_DAYS: '1' }, null],
    [{ LIFECYCLE_TIMEOUT_SECONDS: '259199', START_HORIZON_DAYS: '1', HOLD_HORIZON_DAYS: '1' }, 'at least 259200'],
    [{ START_HORIZON_DAYS: '20' }, 'LIFECYCLE_TIMEOUT_SECONDS=2592000 is shorter than START_HORIZON_DAYS (20)'],
    // A bad horizon is the stack's to refuse; the note reads the default meanwhile, never a number it cannot read.
    [{ LIFECYCLE_TIMEOUT_SECONDS: '3600', START_HORIZON_DAYS: 'soon' }, 'START_HORIZON_DAYS (14) plus'],
  ])('a workflow timeout shorter than the waits is a note for a rehearsal: %j', (settings, note) => {
    const said = shortTimeoutNote(settings);
    if (note === null) expect(said).toBeNull();
    else expect(said).toContain(note);
  });

  test('an empty API key asks for the secret, as a deployed function would', () => {
    expect(() => checkStackSettings({}, { url: 'http://127.0.0.1:1', apiKey: '' })).toThrow('VOICE_API_SECRET_ARN');
  });

  test('several problems are named together', () => {
    expect(() => checkStackSettings({ CALL_CAP_PER_DAY: '0', WEBHOOK_MAX_BODY_BYTES: 'abc' })).toThrow(
      /CALL_CAP_PER_DAY.*WEBHOOK_MAX_BODY_BYTES|WEBHOOK_MAX_BODY_BYTES.*CALL_CAP_PER_DAY/,
    );
  });
});
