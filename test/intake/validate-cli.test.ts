import { mkdtemp, readdir, readFile, rm, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ExcelJS from 'exceljs';
import { describe, expect, it } from 'vitest';
import { runCli, runInProcess } from '../helpers/cli.ts';
import { xlsx } from '../helpers/sheets.ts';
import { readAllWays } from './output-readers.ts';

const validate = (args: string[]) => runInProcess(['validate', ...args]);

describe('callsheet validate', () => {
  it('prints the JSON contract, exits 0 when something can be launched, and writes parts and the annotated sheet', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'callsheet-validate-'));
    const file = join(dir, 'leads.xlsx');
    await writeFile(
      file,
      await xlsx([
        ['Phone Number', 'Name'],
        ['(415) 555-2671', 'Ann'],
        ['415-555-2671', 'Dup'],
        ['98200 12345', 'IN national'],
      ]),
    );
    const out = join(dir, 'out');
    // Spawned, the compiled CLI as a user runs it: its chunks find the zone table and write the workbooks.
    const res = await runCli(['validate', file, '--country', 'us', '--json', '--out', out]);
    expect(res.code).toBe(0);
    const json = JSON.parse(res.stdout);
    expect(Object.keys(json).sort()).toEqual([
      'contacts',
      'error',
      'format',
      'notes',
      'ok',
      'parts',
      'rejected',
      'rows',
    ]);
    expect(json).toEqual({
      ok: true,
      error: null,
      format: 'xlsx',
      rows: { total: 3, valid: 1, rejected: 2, suppressed: 0 },
      contacts: [{ row: 2, phone: '+14155552671', name: 'Ann', customInstruction: null }],
      rejected: [
        { row: 3, reason: 'duplicate_phone', input: '415-555-2671' },
        {
          row: 4,
          reason: 'invalid_phone',
          input: '98200 12345',
          hint: expect.stringMatching(/^read in the default country, US, .*own country code/),
        },
      ],
      parts: [{ index: 1, rows: 1, timeZone: 'America/Los_Angeles' }],
      notes: [expect.stringMatching(/^no do-not-call list was checked: /)],
    });
    expect((await readdir(out)).sort()).toEqual(['annotated.xlsx', 'part-1.xlsx']);
    expect(res.stderr).toBe('');
    // Parts an earlier sheet left in the folder are named, not deleted: they are not this sheet's.
    await writeFile(join(out, 'part-2.xlsx'), 'from before');
    await writeFile(join(out, 'part-10.xlsx'), 'from before');
    const again = await validate([file, '--country', 'us', '--out', out]);
    expect(again.code).toBe(0);
    expect(again.stderr).toContain(
      `callsheet validate: ${out} also holds part-2.xlsx, part-10.xlsx from before, not parts of this sheet: delete them`,
    );
    expect((await readdir(out)).sort()).toEqual(['annotated.xlsx', 'part-1.xlsx', 'part-10.xlsx', 'part-2.xlsx']);

    const india = await validate([file, '--country', 'IN', '--json']);
    // The default country decides how national numbers read: row 4 is a valid Indian mobile.
    expect(JSON.parse(india.stdout).contacts).toContainEqual({
      row: 4,
      phone: '+919820012345',
      name: 'IN national',
      customInstruction: null,
    });
  });

  it('says what is wrong with a number when the cell shows it, in the report, the text and the annotated copy', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'callsheet-validate-'));
    const file = join(dir, 'export.csv');
    await writeFile(file, 'Phone Number\n+1415555\n"+14155552003;+14155552005"\n1.41556E+10\n+14155552001\n');
    const out = join(dir, 'out');
    const json = JSON.parse((await validate([file, '--json', '--out', out])).stdout);
    expect(json.rejected).toEqual([
      { row: 2, reason: 'invalid_phone', input: '+1415555', hint: expect.stringMatching(/^too few digits/) },
      {
        row: 3,
        reason: 'invalid_phone',
        input: '+14155552003;+14155552005',
        hint: 'the cell holds more than one number: keep one number per row',
      },
      {
        row: 4,
        reason: 'invalid_phone',
        input: '1.41556E+10',
        hint: expect.stringMatching(/^Excel stored this number in scientific notation/),
      },
    ]);
    const text = await validate([file]);
    expect(text.stdout).toContain(
      'row 3: invalid_phone (the cell holds more than one number: keep one number per row): "+14155552003;+14155552005"',
    );
    const annotated = await readAllWays(await readFile(join(out, 'annotated.xlsx')));
    expect(annotated.sheetjs.flat()).toContain(
      'invalid_phone: the cell holds more than one number: keep one number per row',
    );
  });

  it('exits 1 with ok false and a reason for a file nothing can be launched from, and 2 for usage mistakes', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'callsheet-validate-'));
    const file = join(dir, 'notes.xlsx');
    await writeFile(file, 'just some text');
    const res = await validate([file, '--json']);
    expect(res.code).toBe(1);
    expect(JSON.parse(res.stdout)).toMatchObject({
      ok: false,
      error: { code: 'unsupported_format', message: expect.any(String) },
      parts: [],
    });
    const human = await validate([file]);
    expect(human.code).toBe(1);
    expect(human.stderr).toContain('holds text');
    expect((await validate([file, '--country', 'XX'])).code).toBe(2);
    expect((await validate([])).code).toBe(2);
    expect((await validate([join(dir, 'missing.xlsx')])).stderr).toContain(
      `cannot read ${join(dir, 'missing.xlsx')}: no such file`,
    );
    expect((await validate([dir])).stderr).toContain(`cannot read ${dir}: that is a folder; give a file`);
  });

  it('refuses a file over the size limit from its size, however large, without reading it', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'callsheet-validate-'));
    const file = join(dir, 'export.csv');
    // 3 GiB and sparse: more than one read can hold, yet nothing on disk.
    await writeFile(file, 'Phone Number\n');
    await truncate(file, 3 * 1024 ** 3);
    const res = await validate([file, '--json']).finally(() => rm(dir, { recursive: true, force: true }));
    expect(res.code).toBe(1);
    expect(JSON.parse(res.stdout).error).toEqual({
      code: 'too_large',
      message:
        'The file is 3,221,225,472 bytes (3,072 MB); callsheet reads at most 52,428,800 bytes (50 MB) per file, so it was not read. Split it into smaller files and upload each.',
    });
  });

  it('blames a bad --start on the flag, and rejects a premium-rate number unless --allow-costly', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'callsheet-validate-'));
    const file = join(dir, 'leads.xlsx');
    await writeFile(file, await xlsx([['Phone Number'], ['+1 415 555 2671'], ['+1 900 555 1234']]));
    // A usage mistake (exit 2, as `run` answers the same flags), said before the sheet is read.
    const bad = await validate([file, '--start', '2026-02-30T09:00', '--time-zone', 'America/New_York']);
    expect([bad.code, bad.stdout]).toEqual([2, '']);
    expect(bad.stderr).toContain(
      '--start 2026-02-30T09:00: "2026-02-30T09:00" is not a real date and time: February 2026 has 28 days',
    );
    expect(bad.stderr).not.toContain('S3 metadata');
    // The start is a local time: without a zone the answer names the flag to add, not a sheet's setting row.
    const zoneless = await validate([file, '--start', '2026-12-08T09:00']);
    expect([zoneless.code, zoneless.stderr]).toEqual([
      2,
      expect.stringContaining(
        '--start is a local time, so it needs --time-zone too, e.g. --time-zone America/New_York',
      ),
    ]);
    const mars = await validate([file, '--start', '2026-12-08T09:00', '--time-zone', 'Mars/Olympus']);
    expect([mars.code, mars.stderr]).toEqual([
      2,
      expect.stringContaining('--time-zone Mars/Olympus is not an IANA time zone'),
    ]);
    const far = await validate([file, '--start', '2031-12-08T09:00', '--time-zone', 'America/New_York']);
    expect([far.code, far.stderr]).toEqual([2, expect.stringContaining('--start 2031-12-08T09:00: ')]);
    // A start that has passed is no error, but it is said, as intake says it.
    const past = await validate([file, '--start', '2025-01-06T09:00', '--time-zone', 'America/New_York']);
    expect(past.code).toBe(0);
    expect(past.stdout).toContain(
      'note: the start date time 2025-01-06T09:00 (America/New_York) has passed: the campaigns start now',
    );
    // A window given as `run` takes it: one too short to call in is said up front; one that does not parse is the flag's.
    const short = await validate([file, '--window', 'Mon-Fri 10:00-10:05']);
    // Its one part would be held: launched, but nobody called, so the sheet does not pass (as `run` fails it).
    expect(short.code).toBe(1);
    expect((await validate([file, '--window', 'Mon-Fri 10:00-10:30'])).code).toBe(0);
    expect(short.stdout).toContain(
      'note: part 1 (1 contact) will be held, not dialled: its calling window is open at most 5 min at a time',
    );
    expect(short.stderr).toContain('Every part would be held, not dialled: nobody would be called (see the notes).');
    // The JSON says what the exit status says.
    const shortJson = await validate([file, '--window', 'Mon-Fri 10:00-10:05', '--json']);
    expect(shortJson.code).toBe(1);
    expect(JSON.parse(shortJson.stdout)).toMatchObject({ ok: false, error: { code: 'all_parts_held' } });
    const typo = await validate([file, '--window', 'Mon-Fri 10:00-25:05']);
    expect([typo.code, typo.stdout]).toEqual([2, '']);
    expect(typo.stderr).toContain('--window: "25:05" is not a time of day');
    // Retries the daily cap cannot hold (1 + 3 calls against 3 a day): intake would turn every number away, so it
    // is said now, from the sheet's Settings or DEFAULT_RETRIES, whatever the numbers' calls so far.
    const book = new ExcelJS.Workbook();
    book.addWorksheet('Contacts').addRows([['Phone Number'], ['+1 415 555 2671']]);
    book.addWorksheet('Settings').addRows([['retries', 3]]);
    const three = join(dir, 'three.xlsx');
    await book.xlsx.writeFile(three);
    const over = await validate([three, '--window', 'Mon-Fri 10:00-12:00']);
    expect(over.code).toBe(1);
    // What the Settings sheet and the flags gave, as intake will launch with it.
    expect(over.stdout).toContain('  settings: retries 3; calling window Mon,Tue,Wed,Thu,Fri 10:00-12:00\n');
    expect(over.stderr).toContain(
      '3 retries mean up to 4 calls to each number, more than the cap of 3 calls a day (CALL_CAP_PER_DAY): set ' +
        'retries to 2 or fewer, or raise the cap. Intake would turn every number away.',
    );
    expect((await runInProcess(['validate', three], { CALL_CAP_PER_DAY: '4' })).code).toBe(0);
    expect((await runInProcess(['validate', file, '--json'], { DEFAULT_RETRIES: '3' })).code).toBe(1);
    // --out naming a file: said plainly before the sheet is read, and the file is left as it was.
    const inTheWay = join(dir, 'notes.txt');
    await writeFile(inTheWay, 'keep me');
    const onFile = await validate([file, '--out', inTheWay]);
    expect([onFile.code, onFile.stdout]).toEqual([2, '']);
    expect(onFile.stderr).toContain(`callsheet validate: --out ${inTheWay}: a file is in the way`);
    expect(await readFile(inTheWay, 'utf8')).toBe('keep me');
    const strict = JSON.parse((await validate([file, '--json'])).stdout);
    expect(strict.rejected).toEqual([{ row: 3, reason: 'costly_number', input: '+19005551234' }]);
    const allowed = JSON.parse((await validate([file, '--json', '--allow-costly'])).stdout);
    expect(allowed.contacts.map((c: { phone: string }) => c.phone)).toEqual(['+14155552671', '+19005551234']);
  });

  it('notes, as intake would, a close the API plan set in the environment cannot pause every part before', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'callsheet-validate-'));
    const file = join(dir, 'two-parts.csv');
    // 1,500 San Francisco numbers: two parts of one zone, closing together every evening at 21:00 local time.
    const numbers = Array.from({ length: 1500 }, (_, i) => `+1415555${String(1000 + i).padStart(4, '0')}`);
    await writeFile(file, `Phone Number\n${numbers.join('\n')}\n`);
    // 1 a minute: one pause a minute, and a 60 s lead leaves one minute before the brake.
    const small = { API_BUDGET_PER_MINUTE: '1', PAUSE_LEAD_SECONDS: '60' };
    const res = await runInProcess(['validate', file], small);
    expect(res.code).toBe(0);
    expect(res.stdout).toMatch(
      /\n {2}note: 2 parts close their calling window at \d\d:00Z on \w{3} \d{4}-\d\d-\d\d; the API plan \(1 request a minute\) can pause about 1 of them between \d\d:54Z and \d\d:54:30Z: the other 1 will be stopped by the agent brake/,
    );
    const json = JSON.parse((await runInProcess(['validate', file, '--json'], small)).stdout);
    expect(json.notes).toEqual([
      expect.stringMatching(/^2 parts close their calling window/),
      expect.stringMatching(/^no do-not-call list was checked/),
    ]);

    // The plan's first tier (100 a minute) carries both pauses: nothing to say.
    const roomy = await runInProcess(['validate', file, '--json']);
    expect(JSON.parse(roomy.stdout).notes).toEqual([expect.stringMatching(/^no do-not-call list was checked/)]);
    const bad = await runInProcess(['validate', file], { PAUSE_LEAD_SECONDS: 'soon' });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('PAUSE_LEAD_SECONDS="soon": a whole number from 0 to 900');
    // START_HORIZON_DAYS read as intake reads it, with the other settings.
    const far = await runInProcess(['validate', file], { START_HORIZON_DAYS: '400' });
    expect([far.code, far.stderr]).toEqual([
      2,
      expect.stringContaining('START_HORIZON_DAYS="400": a whole number from 1 to 365'),
    ]);
    await rm(dir, { recursive: true, force: true });
  });
});
