import { existsSync } from 'node:fs';
import { readdir, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { readBudgetConfig } from '#commons/api-budget/config.ts';
import { describeWindow } from '#commons/calling-window.ts';
import { type CapLimits, readCapLimits } from '#commons/frequency-cap.ts';
import { COSTLY_TEXT, isCountryCode } from '#commons/phone/phone.ts';
import { readPauseTimings } from '#commons/plan-load.ts';
import { type ByteSource, fileSource } from '#commons/spreadsheet/byte-source.ts';
import { TABLES } from '#commons/tables.ts';
import { readHoldHorizonMs } from '#commons/window-plan.ts';
import { counted } from '#commons/words.ts';
import { retriesOverCap } from '#intake/caps.ts';
import { readDefaultRetries, readStartHorizonDays } from '#intake/config.ts';
import { REASON_TEXT } from '#intake/contacts.ts';
import { type ApiPlan, upFront } from '#intake/plan-load-notes.ts';
import type { UploadSettings } from '#intake/settings.ts';
import { validateUpload } from '#intake/validate-upload.ts';
import { writeUploadFiles } from '#intake/writers.ts';
import { DEFAULT_DATA_DIR, isNewDataDir, localDataDir } from '#local/stack/data-dir.ts';
import { runningStackFile } from '#local/stack/running-stack.ts';
import { type Command, cannotRead, outFolder, readShellSettings, UsageError, windowOption } from '../command.ts';
import { checkStartOptions } from '../time-option.ts';

/**
 * The API plan as intake reads it (API_BUDGET_PER_MINUTE, API_BUDGET_PER_HOUR and their reserves,
 * CLOSING_MARGIN_MINUTES, PAUSE_LEAD_SECONDS, BRAKE_LEAD_SECONDS), with the call caps (CALL_CAP_PER_DAY,
 * CALL_CAP_PER_WEEK), DEFAULT_RETRIES and START_HORIZON_DAYS, from this environment: intake's defaults when unset.
 */
function apiPlan(): ApiPlan & { caps: CapLimits; retries: number; startHorizonDays: number } {
  return readShellSettings(
    (env) => ({
      limits: readBudgetConfig(env).limits,
      timings: readPauseTimings(env),
      holdHorizonMs: readHoldHorizonMs(env),
      caps: readCapLimits(env),
      retries: readDefaultRetries(env),
      startHorizonDays: readStartHorizonDays(env),
    }),
    // The budget's table is not needed to know the plan's limits; the reader asks for it, so it is named.
    { [TABLES.apiBudget.env]: 'validate', ...process.env },
  );
}

export const validateCommand: Command = {
  name: 'validate',
  summary: 'check a contact sheet as intake would: E.164 numbers, duplicates, rejected rows, parts',
  usage:
    'validate <file> [--country CC] [--start ISO --time-zone TZ] [--window SPEC] [--allow-costly] [--json] [--out DIR]',
  allowPositionals: true,
  options: {
    country: { type: 'string' },
    start: { type: 'string' },
    'time-zone': { type: 'string' },
    window: { type: 'string' },
    'allow-costly': { type: 'boolean' },
    json: { type: 'boolean' },
    out: { type: 'string' },
  },
  help: [
    'arguments:',
    '  <file>          .xlsx, .xls or .csv (a workbook is read whatever its name; text only when named',
    '                  .csv, .txt or .tsv)',
    'options:',
    '  --country CC    country for numbers written without a country code (ISO 3166 alpha-2, e.g. US, IN)',
    '  --start ISO     check a campaign start (local wall time, e.g. 2026-12-01T09:00), read in --time-zone',
    "  --time-zone TZ  IANA zone --start is read in (a number's own zone comes from its row: docs/sheets.md)",
    '  --window SPEC   check a calling window as `run --window` gives it, e.g. "Mon-Fri 09:00-17:00": the notes',
    '                  say when a part would be held (a window that never opens, or too short to call in)',
    '  --allow-costly  accept premium-rate, shared-cost and other costly numbers (rejected by default)',
    '  --json          print one JSON object: ok, error, format, rows, contacts, rejected, notes, parts;',
    '                  rows.rejected counts every row not kept, those on the do-not-call list too (rows.suppressed)',
    '  --out DIR       also write each part (part-N.xlsx, exactly the API columns) and annotated.xlsx there',
    '',
    'Numbers on the do-not-call list are rejected as intake would: the deployed list when SUPPRESSION_TABLE is',
    'set, else the one in $CALLSHEET_DATA_DIR (default .callsheet/; see `callsheet suppress`).',
    'A note says when the parts need more of the API plan than it has (API_BUDGET_PER_MINUTE, API_BUDGET_PER_HOUR',
    'and the pause settings, read from the environment as intake reads them; docs/operations.md), and which parts',
    'would be held (HOLD_HORIZON_DAYS: how far ahead the lifecycle looks for their window to open).',
    '',
    'Exit status: 0 when at least one part can be launched and called, 1 otherwise, 2 for a usage mistake.',
  ],
  async run(values, positionals) {
    const [file, ...extra] = positionals;
    if (!file || extra.length > 0) throw new UsageError('give exactly one file to validate');
    const country = (values.country as string | undefined)?.toUpperCase();
    if (country !== undefined && !isCountryCode(country))
      throw new UsageError(`--country ${values.country} is not an ISO 3166 country code the phone metadata knows`);
    // The settings intake reads from its environment, read from this shell: a bad one is a usage mistake, said first.
    const plan = apiPlan();
    const startHorizon = { now: Date.now(), days: plan.startHorizonDays };
    checkStartOptions(values.start as string | undefined, values['time-zone'] as string | undefined, startHorizon);
    // A window that does not parse is a usage mistake, said before the sheet is read (as `run` says it).
    windowOption(values.window as string | undefined);
    // Read as intake reads S3: the size first, a CSV as it streams, so no file is held whole unless it must be.
    let source: ByteSource;
    try {
      source = await fileSource(file);
    } catch (err) {
      throw cannotRead(file, err);
    }
    // The flags are read as settings, exactly as intake reads an upload's S3 metadata, but named as flags in errors.
    const flags: Record<string, string> = {};
    if (values.start !== undefined) flags['start-date-time'] = values.start as string;
    if (values['time-zone'] !== undefined) flags['time-zone'] = values['time-zone'] as string;
    if (values.window !== undefined) flags['calling-window'] = values.window as string;
    if (values['allow-costly']) flags['allow-costly-numbers'] = 'yes';
    const flagOf: Record<string, string> = {
      'start-date-time': '--start',
      'time-zone': '--time-zone',
      'calling-window': '--window',
      'allow-costly-numbers': '--allow-costly',
    };
    // Before the sheet is read: a folder that cannot be made is said at once, not after a long read.
    const outDir = values.out === undefined ? null : await outFolder(values.out as string);
    const listed = hasSuppressionList();
    const outcome = await validateUpload(source, basename(file), {
      defaultCountry: country,
      // The do-not-call list intake would apply: the deployed table, the running local stack's, or the data dir's.
      ...(listed ? { suppressed: suppressedNumbers } : {}),
      metadata: flags,
      metadataSource: (key) => `option ${flagOf[key] ?? key}`,
      startHorizon,
    });
    // What intake would say up front (the plan the parts share, windows…), and which parts it would hold, not dial.
    const upfront = outcome.report.ok ? upFront(outcome, undefined, plan, Date.now()) : { notes: [], held: [] };
    // Every part held (its window never opens, or is too short to call in): launched, but nobody called.
    const allHeld = upfront.held.length > 0 && upfront.held.length === outcome.parts.length;
    // Settings that conflict with the caps whatever the numbers' calls so far: intake would turn every number away.
    const overCap = outcome.report.ok
      ? retriesOverCap(1 + (outcome.settings.retries ?? plan.retries), plan.caps)
      : null;
    const error = overCap
      ? { ...overCap, message: `${overCap.message} Intake would turn every number away.` }
      : allHeld
        ? {
            code: 'all_parts_held',
            message: 'Every part would be held, not dialled: nobody would be called (see the notes).',
          }
        : null;
    const unchecked = listed
      ? []
      : [
          `no do-not-call list was checked: ${localDataDir()} holds none and ${TABLES.suppression.env} is not set ` +
            `(set CALLSHEET_DATA_DIR to the data directory that holds the list; ${DEFAULT_DATA_DIR})`,
        ];
    const report = {
      ...outcome.report,
      ...(error ? { ok: false, error } : {}),
      notes: [...outcome.report.notes, ...upfront.notes, ...unchecked],
    };
    // As `run` counts them: the do-not-call list's rows apart from the other rejected ones.
    const suppressed = report.rejected.filter((r) => r.reason === 'suppressed').length;

    if (outDir && outcome.scanned) {
      await writeUploadFiles(
        outcome,
        outcome.parts,
        (part, xlsx) => writeFile(join(outDir, `part-${part.index}.xlsx`), xlsx),
        (xlsx) => writeFile(join(outDir, 'annotated.xlsx'), xlsx),
      );
      // Parts of an earlier sheet written to the same folder are not this sheet's: said, never deleted.
      const written = new Set(outcome.parts.map((p) => `part-${p.index}.xlsx`));
      const stale = (await readdir(outDir))
        .filter((name) => /^part-\d+\.xlsx$/.test(name) && !written.has(name))
        .sort((a, b) => a.localeCompare(b, 'en', { numeric: true }));
      if (stale.length > 0)
        console.error(
          `callsheet validate: ${outDir} also holds ${stale.join(', ')} from before, not parts of this sheet: ` +
            'delete them before you upload parts from there.',
        );
    }

    if (values.json) {
      const { parts, ...rest } = report;
      console.log(
        JSON.stringify(
          {
            ...rest,
            rows: { ...rest.rows, suppressed },
            parts: parts.map(({ index, rows, timeZone }) => ({ index, rows, timeZone })),
          },
          null,
          2,
        ),
      );
      return report.ok ? 0 : 1;
    }
    if (report.error && !outcome.scanned) {
      console.error(`${file}: ${report.error.message}`);
      return 1;
    }
    console.log(
      `${file} (${report.format}): ${report.rows.total} rows, ${report.rows.valid} valid, ${report.rows.rejected - suppressed} rejected` +
        (suppressed > 0 ? `, ${suppressed} suppressed (do-not-call list)` : ''),
    );
    for (const r of report.rejected)
      console.log(
        `  row ${r.row}: ${r.reason} (${r.reason === 'costly_number' ? COSTLY_TEXT : (r.hint ?? REASON_TEXT[r.reason])}): ${JSON.stringify(r.input)}`,
      );
    for (const p of report.parts) {
      console.log(
        `  part ${p.index}: ${counted(p.rows, 'contact')}${p.timeZone ? `, called in ${p.timeZone} (${p.zoneSource === 'number' ? 'from the numbers' : p.zoneSource === 'country' ? "from the numbers' country" : p.zoneSource === 'sheet' ? "from the sheet's Time Zone column" : p.zoneSource === 'sheet-added' ? "the numbers' zones plus the sheet's Time Zone" : `their area spans zones: open only where ${p.zones.join(', ')} all are`})` : ', time zone not decided by the numbers'}`,
      );
    }
    const applied = settingsWords(outcome.settings);
    if (applied) console.log(`  settings: ${applied}`);
    for (const note of report.notes) console.log(`  note: ${note}`);
    if (values.out) console.log(`  files written to ${values.out}`);
    if (report.error) console.error(report.error.message);
    return report.ok ? 0 : 1;
  },
};

/** A list exists to read (no local database is created just to find it empty). */
const hasSuppressionList = () =>
  Boolean(process.env[TABLES.suppression.env]) || !isNewDataDir() || existsSync(runningStackFile(localDataDir()));

async function suppressedNumbers(phones: string[]): Promise<ReadonlySet<string>> {
  // Loaded only when there is a list to read: the AWS SDK and the local database cost a validate ~100 ms to load.
  const [{ openTable }, { SuppressionList }] = await Promise.all([
    import('../table-access.ts'),
    import('#commons/suppression-list.ts'),
  ]);
  const t = await openTable('suppression');
  try {
    return await new SuppressionList(t.db, t.table).matching(phones);
  } finally {
    await t.close();
  }
}

/** The upload settings the sheet (or the flags) gave, as read: what intake will launch with; null when none. */
function settingsWords(s: UploadSettings): string | null {
  const words = [
    s.campaignName !== undefined ? `campaign name ${JSON.stringify(s.campaignName)}` : null,
    s.start ? `start ${s.start.dateTime} (${s.start.timeZone})` : null,
    s.retries !== undefined ? `retries ${s.retries}` : null,
    s.window ? `calling window ${describeWindow({ rules: s.window, holidays: [] })}` : null,
    s.holidays?.length ? `holidays ${s.holidays.join(', ')}` : null,
    s.defaultCountry ? `default country ${s.defaultCountry}` : null,
    s.repeatUpload ? 'repeat upload' : null,
    s.allowCostlyNumbers ? 'costly numbers allowed' : null,
    s.followUp ? 'follow-up rounds' : null,
  ].filter((w): w is string => w !== null);
  return words.length > 0 ? words.join('; ') : null;
}
