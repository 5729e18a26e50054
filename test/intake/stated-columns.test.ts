import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ExcelJS from 'exceljs';
import { describe, expect, it } from 'vitest';
import { API_COLUMNS, partWorkbook } from '#commons/spreadsheet/part-file.ts';
import { REASON_TEXT } from '#intake/contacts.ts';
import { planParts } from '#intake/plan-parts.ts';
import { validateUpload } from '#intake/validate-upload.ts';
import { annotatedWorkbook } from '#intake/writers.ts';
import { runInProcess } from '../helpers/cli.ts';
import { type Row, xlsx } from '../helpers/sheets.ts';

const us = { defaultCountry: 'US' as const };

async function readBack(bytes: Buffer): Promise<unknown[][]> {
  const wb = new ExcelJS.Workbook();
  await wb.xlsx.load(bytes as unknown as ArrayBuffer);
  const rows: unknown[][] = [];
  wb.worksheets[0]?.eachRow((r) => rows.push((r.values as unknown[]).slice(1)));
  return rows;
}

/** Rows 2-11: what each one's Time Zone and State cells say of its number. */
const SHEET: Row[] = [
  ['Phone Number', 'Name', 'Time Zone', 'State'],
  ['+12085550101', 'Idaho, Pacific', 'America/Los_Angeles', null],
  ['+12085550102', 'Idaho, moved east', 'America/New_York', null],
  ['+12085550103', 'Idaho, Paris?', 'Europe/Paris', null],
  ['+13055550104', 'Miami, Georgia too', null, 'GA'],
  ['+13055550105', 'bad zone', 'Mars/Olympus', null],
  ['+13055550106', 'bad state', null, 'Narnia'],
  ['+13055550107', 'Canadian province', null, 'Ontario'],
  ['+12085550108', 'Idaho, Pacific by link', 'us/pacific', ''],
  ['+12085550109', 'Idaho, nothing said', null, null],
  ['+13055550110', 'Miami, Florida said', 'America/New_York', 'Florida'],
];

describe('Time Zone and State columns', () => {
  it('narrow or add to what the number says, refuse what contradicts it, and say so everywhere', async () => {
    const out = await validateUpload(await xlsx(SHEET), 'where.xlsx', us);

    expect(out.report.rejected).toEqual([
      { row: 4, reason: 'zone_contradicts_number', input: 'Europe/Paris' },
      { row: 6, reason: 'unknown_time_zone', input: 'Mars/Olympus' },
      { row: 7, reason: 'unknown_region', input: 'Narnia' },
      { row: 8, reason: 'region_contradicts_number', input: 'Ontario' },
    ]);
    const partOf = (row: number) => out.parts.find((p) => p.contacts.some((c) => c.row === row));
    // 208 spans Mountain and Pacific time: the cell picks Pacific (and a link for it is the same choice).
    expect(partOf(2)).toMatchObject({ zones: ['America/Los_Angeles'], zoneSource: 'sheet', regions: ['US-ID'] });
    expect(partOf(9)).toBe(partOf(2));
    // Eastern time is not where the number's data places a 208 number: added, the stricter reading.
    expect(partOf(3)).toMatchObject({
      zones: ['America/Boise', 'America/Los_Angeles', 'America/New_York'],
      zoneSource: 'sheet-added',
    });
    // Said nothing: the number's own zones.
    expect(partOf(10)).toMatchObject({ zones: ['America/Boise', 'America/Los_Angeles'], zoneSource: 'several' });
    // 305 is Florida's: Georgia's rules apply as well; Florida said again changes nothing.
    expect(partOf(5)).toMatchObject({ zones: ['America/New_York'], zoneSource: 'number', regions: ['US-FL', 'US-GA'] });
    expect(partOf(11)).toMatchObject({ zones: ['America/New_York'], zoneSource: 'number', regions: ['US-FL'] });
    expect(out.report.parts).toHaveLength(5);

    // The plans carry the zones and states, and say how the zones were found.
    const ref = { bucket: 'b', key: 'incoming/agent/where.xlsx', versionId: null, eTag: 'e', size: 1 };
    const plans = planParts('u1', ref, out, { id: 'agent' } as never, { retries: 1 });
    const planOf = (row: number) => plans[(partOf(row)?.index ?? 0) - 1];
    expect(planOf(2)?.zoneDecidedBy).toMatch(/Time Zone cell, which picked America\/Los_Angeles/);
    expect(planOf(3)?.zoneDecidedBy).toMatch(
      /own time zones plus the one the rows' Time Zone cell names.*America\/Boise, America\/Los_Angeles, America\/New_York, called only when the window is open in all of them/,
    );
    expect(planOf(5)?.plan.part.regions).toEqual(['US-FL', 'US-GA']);

    // The annotated copy names each refusal with words to act on, and each accepted row's zones.
    const rows = await readBack(await annotatedWorkbook(out));
    expect(rows[0]).toEqual([
      'Phone Number',
      'Name',
      'Time Zone',
      'State',
      'callsheet result',
      'normalized phone',
      'part',
      'time zone',
      'reason',
    ]);
    const fate = (row: number) => rows[row - 1] ?? [];
    expect(fate(3).slice(4, 8)).toEqual([
      'accepted',
      '+12085550102',
      String(partOf(3)?.index),
      'America/Boise, America/Los_Angeles, America/New_York',
    ]);
    expect([fate(4)[4], fate(4).at(-1)]).toEqual([
      'rejected',
      `zone_contradicts_number: ${REASON_TEXT.zone_contradicts_number}`,
    ]);
    expect(String(fate(6).at(-1))).toMatch(/^unknown_time_zone: the Time Zone cell names no time zone callsheet knows/);
    expect(String(fate(7).at(-1))).toMatch(/^unknown_region: the State\/Region cell names no state/);
    expect(String(fate(8).at(-1))).toMatch(/^region_contradicts_number: .*another country/);

    // The part files keep exactly the API's columns: the new ones are input only.
    for (const part of out.parts) expect((await readBack(await partWorkbook(part)))[0]).toEqual([...API_COLUMNS]);
  });

  it('finds the columns by any case and spacing, as Timezone, Region or Province, and ignores blank cells', async () => {
    const out = await validateUpload(
      await xlsx([
        ['PHONE NUMBER', '  timezone ', 'PROVINCE'],
        ['+13055550101', 'america/new_york', 'fl'],
        ['+13055550102', null, 'Florida'],
        ['+13055550103', 'Europe/Paris', null],
        ['+13055550104', 'America/Chicago', 'CA-ON'],
        ['+13055550105', 'America/Chicago', '  '],
      ]),
      'fl.xlsx',
      us,
    );
    expect(out.scanned?.columns).toMatchObject({ timeZone: 1, region: 2 });
    expect(out.report.rejected).toEqual([
      { row: 4, reason: 'zone_contradicts_number', input: 'Europe/Paris' },
      // A zone of the country is fine, but a province of another country is not: the cell at fault is shown.
      { row: 5, reason: 'region_contradicts_number', input: 'CA-ON' },
    ]);
    expect(out.parts.map((p) => [p.zones, p.zoneSource, p.regions, p.contacts.map((c) => c.row)])).toEqual([
      [['America/New_York'], 'number', ['US-FL'], [2, 3]],
      [['America/Chicago', 'America/New_York'], 'sheet-added', ['US-FL'], [6]],
    ]);

    const region = await validateUpload(
      await xlsx([
        ['Phone Number', 'Region'],
        ['+13055550101', 'us-ga'],
      ]),
      'r.xlsx',
      us,
    );
    expect(region.parts[0]?.regions).toEqual(['US-FL', 'US-GA']);
  });

  it('changes nothing for a sheet without the columns', async () => {
    const out = await validateUpload(
      await xlsx([
        ['Phone Number', 'Name'],
        ['+12085550101', 'Idaho'],
      ]),
      'plain.xlsx',
      us,
    );
    expect(out.scanned?.columns).toMatchObject({ timeZone: null, region: null });
    expect(out.parts.map((p) => [p.zones, p.zoneSource, p.regions])).toEqual([
      [['America/Boise', 'America/Los_Angeles'], 'several', ['US-ID']],
    ]);
  });

  it('callsheet validate names each refusal and how each part was placed', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'callsheet-stated-'));
    const file = join(dir, 'where.xlsx');
    await writeFile(file, await xlsx(SHEET));
    const res = await runInProcess(['validate', file, '--country', 'us']);
    expect(res.code).toBe(0);
    expect(res.stdout).toContain(
      `row 4: zone_contradicts_number (${REASON_TEXT.zone_contradicts_number}): "Europe/Paris"`,
    );
    expect(res.stdout).toContain(`row 6: unknown_time_zone (${REASON_TEXT.unknown_time_zone}): "Mars/Olympus"`);
    expect(res.stdout).toContain(`row 7: unknown_region (${REASON_TEXT.unknown_region}): "Narnia"`);
    expect(res.stdout).toContain(
      `row 8: region_contradicts_number (${REASON_TEXT.region_contradicts_number}): "Ontario"`,
    );
    expect(res.stdout).toMatch(/called in America\/Los_Angeles \(from the sheet's Time Zone column\)/);
    expect(res.stdout).toMatch(/called in America\/Boise \(the numbers' zones plus the sheet's Time Zone\)/);
  });
});
