import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { App, Stack } from 'aws-cdk-lib';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '#commons/config.ts';
import { KNOWN_READERS, namesReadBy, readAtStart, SETTINGS, type SettingSpec, Settings } from '#infra/settings.ts';

/** A scratch directory holding `callsheet.config.json` with `file` (or none). */
function root(file?: unknown): string {
  const dir = mkdtempSync(join(tmpdir(), 'callsheet-settings-'));
  if (file !== undefined)
    writeFileSync(join(dir, 'callsheet.config.json'), typeof file === 'string' ? file : JSON.stringify(file));
  return dir;
}

function load(dir: string, context: Record<string, unknown> = {}): Settings {
  return Settings.load(new Stack(new App({ context }), 'S'), dir);
}

function problemsOf(run: () => unknown): string[] {
  try {
    run();
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
  throw new Error('expected a ConfigError');
}

const URL_SETTING = { VOICE_API_URL: 'https://voice.example.test' };

describe('deployment settings', () => {
  it('fails loudly without the Voice API URL, saying where to set it', () => {
    const problems = problemsOf(() => load(root({})));
    expect(problems).toEqual([expect.stringMatching(/^VOICE_API_URL is required: set it in callsheet.config.json/)]);
  });

  it('reads the file, lets context override it, and forwards each setting to its readers only', () => {
    const dir = root({ ...URL_SETTING, POLL_MIN_SECONDS: 45, DEFAULT_COUNTRY: 'GB' });
    const settings = load(dir, { 'callsheet:POLL_MIN_SECONDS': '50' });
    expect(settings.environmentFor('lifecycle')).toMatchObject({ POLL_MIN_SECONDS: '50' });
    expect(settings.environmentFor('guard')).toMatchObject({ POLL_MIN_SECONDS: '50' });
    expect(settings.environmentFor('intake')).toMatchObject({ DEFAULT_COUNTRY: 'GB' });
    expect(settings.environmentFor('intake')).not.toHaveProperty('POLL_MIN_SECONDS');
    expect(settings.environmentFor('lifecycle')).not.toHaveProperty('DEFAULT_COUNTRY');
  });

  it('takes another file from -c callsheet:config and refuses one that is not there', () => {
    const other = join(root(), 'prod.json');
    writeFileSync(other, JSON.stringify({ ...URL_SETTING, RECONCILE_MINUTES: 12 }));
    expect(load(root({}), { 'callsheet:config': other }).environmentFor('lifecycle')).toMatchObject({
      RECONCILE_MINUTES: '12',
    });
    expect(problemsOf(() => load(root(), { 'callsheet:config': '/nowhere/callsheet.json' }))).toEqual(
      expect.arrayContaining([expect.stringContaining('no such settings file')]),
    );
  });

  it('names every bad, unknown or out-of-range setting in one error', () => {
    const problems = problemsOf(() =>
      load(
        root({
          VOICE_API_URL: 'voice.example.test',
          POLL_MIN_SECONDS: 'soon',
          VOICE_API_TIMEOUT_SECONDS: 600,
          DEFAULT_COUNTRY: 'Britain',
          POL_MAX_SECONDS: 60,
          SOURCE_MAPS: 'yes',
        }),
      ),
    );
    expect(problems).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^VOICE_API_URL="voice.example.test": an http\(s\) URL/),
        expect.stringMatching(/^POLL_MIN_SECONDS="soon": a whole number/),
        expect.stringMatching(/^VOICE_API_TIMEOUT_SECONDS=600: from 1 to 42/),
        expect.stringMatching(/^DEFAULT_COUNTRY="Britain"/),
        expect.stringMatching(/^POL_MAX_SECONDS: not a callsheet setting/),
        expect.stringMatching(/^SOURCE_MAPS="yes": true or false/),
      ]),
    );
    expect(problemsOf(() => load(root('{ "VOICE_API_URL": '))).join()).toMatch(/callsheet.config.json/);
    // A misspelt -c override is refused as the same typo in the file is, not silently ignored.
    expect(problemsOf(() => load(root(URL_SETTING), { 'callsheet:POLL_MAX_SECOND': '60' }))).toEqual([
      'POLL_MAX_SECOND: not a callsheet setting (see docs/configuration.md)',
    ]);
  });

  it('runs the functions’ own checks at synth, naming the function', () => {
    const problems = problemsOf(() =>
      load(
        root({
          ...URL_SETTING,
          LEGAL_HOURS: { GB: 'whenever' },
          API_BUDGET_PER_MINUTE: 10,
          API_BUDGET_LIFECYCLE_PER_MINUTE: 10,
          API_BUDGET_PER_HOUR: 100,
          API_BUDGET_LIFECYCLE_PER_HOUR: 50,
          API_BUDGET_SAFETY_PER_HOUR: 50,
          POLL_MIN_SECONDS: 600,
          POLL_MAX_SECONDS: 60,
        }),
      ),
    );
    expect(problems).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^LEGAL_HOURS=.*\(read by intake\)$/),
        expect.stringMatching(/^LEGAL_HOURS=.*\(read by lifecycle\)$/),
        expect.stringMatching(
          /^API_BUDGET_LIFECYCLE_PER_MINUTE=.*must be below API_BUDGET_PER_MINUTE.*\(read by contacts\)$/,
        ),
        expect.stringMatching(
          /^API_BUDGET_SAFETY_PER_HOUR=.*with API_BUDGET_LIFECYCLE_PER_HOUR, must be below API_BUDGET_PER_HOUR.*\(read by contacts\)$/,
        ),
        'POLL_MIN_SECONDS is larger than POLL_MAX_SECONDS',
      ]),
    );
  });

  it.each([
    [{ LIFECYCLE_TIMEOUT_SECONDS: 3600 }, 'LIFECYCLE_TIMEOUT_SECONDS=3600', 2_505_600],
    [{ START_HORIZON_DAYS: 30 }, 'LIFECYCLE_TIMEOUT_SECONDS=2592000', 3_888_000],
    [{ LIFECYCLE_TIMEOUT_SECONDS: 259_199, START_HORIZON_DAYS: 1, HOLD_HORIZON_DAYS: 1 }, '=259199', 259_200],
    // More than Step Functions allows (a year): the horizons must come down.
    [{ LIFECYCLE_TIMEOUT_SECONDS: 31_536_000, START_HORIZON_DAYS: 365 }, '=31536000', 32_832_000],
  ])('refuses a workflow timeout shorter than the waits one run may make: %j', (set, named, needed) => {
    const problems = problemsOf(() => load(root({ ...URL_SETTING, ...set })));
    expect(problems).toEqual([expect.stringContaining(named)]);
    expect(problems[0]).toContain(`raise it to at least ${needed} or lower those`);
  });

  it('names every problem in one synth: a bad value, an unknown name and a timeout too short for the waits', () => {
    const problems = problemsOf(() =>
      load(root({ ...URL_SETTING, LIFECYCLE_TIMEOUT_SECONDS: 3600 }), {
        'callsheet:FOO': '1',
        'callsheet:CALL_CAP_PER_DAY': '0',
      }),
    );
    expect(problems).toEqual([
      expect.stringMatching(/^FOO: not a callsheet setting/),
      expect.stringMatching(/^CALL_CAP_PER_DAY="0": /),
      expect.stringMatching(/^LIFECYCLE_TIMEOUT_SECONDS=3600 .*raise it to at least 2505600/),
    ]);
  });

  it('takes a workflow timeout as long as those waits', () => {
    const dir = root({
      ...URL_SETTING,
      LIFECYCLE_TIMEOUT_SECONDS: 259_200,
      START_HORIZON_DAYS: 1,
      HOLD_HORIZON_DAYS: 1,
    });
    expect(load(dir).propsFor('lifecycle').LIFECYCLE_TIMEOUT_SECONDS).toBe('259200');
    // No longer than a Standard workflow may run.
    expect(problemsOf(() => load(root({ ...URL_SETTING, LIFECYCLE_TIMEOUT_SECONDS: 40_000_000 })))).toEqual([
      'LIFECYCLE_TIMEOUT_SECONDS=40000000: from 60 to 31536000',
    ]);
  });

  it('sizes the concurrency caps from the API budget', () => {
    expect(load(root(URL_SETTING)).concurrency()).toEqual({
      intake: 2,
      lifecycle: 5,
      guard: 5,
      sweeper: 2,
      webhooks: 10,
    });
    expect(load(root({ ...URL_SETTING, API_BUDGET_PER_MINUTE: 500 })).concurrency()).toEqual({
      intake: 10,
      lifecycle: 25,
      guard: 25,
      sweeper: 2,
      webhooks: 10,
    });
    expect(load(root({ ...URL_SETTING, LIFECYCLE_CONCURRENCY: 3 })).concurrencyFor('lifecycle')).toBe(3);
    expect(load(root({ ...URL_SETTING, GUARD_CONCURRENCY: 4 })).concurrencyFor('guard')).toBe(4);
  });

  it('refuses caps that would leave the account less than the 100 unreserved instances Lambda keeps', () => {
    // 2 + 5 + 5 + 2 + 10 = 24 reserved by default: an account of 124 is just enough.
    expect(() => load(root({ ...URL_SETTING, ACCOUNT_CONCURRENCY: 124 }))).not.toThrow();
    expect(problemsOf(() => load(root({ ...URL_SETTING, ACCOUNT_CONCURRENCY: 123 })))).toEqual([
      'the concurrency caps reserve 24 instances (intake 2, lifecycle 5, guard 5, sweeper 2, webhooks 10), which ' +
        'leaves 99 of ACCOUNT_CONCURRENCY=123 unreserved; Lambda keeps at least 100 unreserved: lower the caps ' +
        'or have AWS raise the account’s concurrent executions (Service Quotas)',
    ]);
    expect(problemsOf(() => load(root({ ...URL_SETTING, WEBHOOK_CONCURRENCY: 900 })))).toEqual([
      expect.stringMatching(/^the concurrency caps reserve 914 instances .* leaves 86 of ACCOUNT_CONCURRENCY=1000 /),
    ]);
  });

  it('parses the committed callsheet.config.json with a URL added', () => {
    const committed = JSON.parse(readFileSync('callsheet.config.json', 'utf8'));
    expect(() => load(root({ ...committed, ...URL_SETTING }))).not.toThrow();
  });
});

/** Names a function reads that the stack sets or that only local runs use: not deployment settings. */
const NOT_SETTINGS = [
  /^AWS_/,
  /_TABLE$/,
  /^(VOICE_API_KEY|VOICE_API_WEBHOOK_SECRET|VOICE_API_SECRET_ARN|LIFECYCLE_STATE_MACHINE_ARN|EVENT_BUS_NAME)$/,
  // The writers' longest timeout, which the stack computes (infra/reindex.ts).
  /^REINDEX_DRAIN_SECONDS$/,
  /_QUEUE_URL$|_DLQ_URL$/,
];

/**
 * A function whose own default differs from the setting's, as docs/configuration.md says: the contact sync's
 * requests (a bulk upsert of up to 100 contacts) wait 30 s when unset, where the lifecycle's wait 10.
 */
const OWN_DEFAULTS = ['VOICE_API_TIMEOUT_SECONDS (contacts)'];

describe('every setting a function reads is a documented, forwarded setting', () => {
  it.each(KNOWN_READERS)('%s', (folder) => {
    const reads = namesReadBy(folder);
    expect(reads.size).toBeGreaterThan(0);
    for (const name of reads) {
      if (NOT_SETTINGS.some((p) => p.test(name))) continue;
      expect(SETTINGS, `${folder} reads ${name}: add it to infra/settings.ts and docs/configuration.md`).toHaveProperty(
        name,
      );
      expect((SETTINGS as Record<string, SettingSpec>)[name]?.readBy, `${name} readBy`).toContain(folder);
    }
    for (const [name, spec] of Object.entries(SETTINGS as Record<string, SettingSpec>))
      if (spec.readBy.includes(folder) && name !== 'POWERTOOLS_LOG_LEVEL')
        expect(reads.has(name), `${name} is documented as read by ${folder}`).toBe(true);
  });

  it('has each function default to what the settings document: left unset or set to its default reads the same', () => {
    const differ: string[] = [];
    for (const folder of KNOWN_READERS)
      for (const name of namesReadBy(folder)) {
        const spec = (SETTINGS as Record<string, SettingSpec>)[name];
        if (spec?.default === undefined || OWN_DEFAULTS.includes(`${name} (${folder})`)) continue;
        if (!isDeepStrictEqual(readAtStart(folder, {}), readAtStart(folder, { [name]: String(spec.default) })))
          differ.push(`${name} (${folder})`);
      }
    expect(differ).toEqual([]);
  });

  it('documents every setting in docs/configuration.md', () => {
    const section = readFileSync('docs/configuration.md', 'utf8');
    for (const name of Object.keys(SETTINGS)) expect(section, name).toContain(`\`${name}\``);
  });
});
