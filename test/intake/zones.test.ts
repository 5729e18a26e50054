import ExcelJS from 'exceljs';
import { describe, expect, it } from 'vitest';
import { parseWindowRules } from '#commons/calling-window.ts';
import { parseLegalHours } from '#commons/legal-hours.ts';
import type { Contact } from '#intake/contacts.ts';
import { placeContacts } from '#intake/placement.ts';
import { planParts } from '#intake/plan-parts.ts';
import { zonesForNumber } from '#intake/time-zones.ts';
import { validateUpload } from '#intake/validate-upload.ts';
import { annotatedWorkbook } from '#intake/writers.ts';
import { xlsx } from '../helpers/sheets.ts';

const NOW = Date.parse('2026-03-02T12:00:00Z');
const contact = (row: number, phone: string, country: string | null): Contact => ({
  row,
  phone,
  country,
  name: null,
  customInstruction: null,
});

describe('the zones a number may ring in', () => {
  it.each([
    // One zone for the longest prefix the data knows.
    ['+14155552671', ['America/Los_Angeles'], 'number'],
    ['+17205550123', ['America/Denver'], 'number'],
    ['+79161234567', ['Europe/Moscow'], 'number'],
    // Several zones of one clock: the one people know.
    ['+447911123456', ['Europe/London'], 'country'],
    // Spanning zones of different clocks: all kept, no guess.
    ['+19075551234', ['America/Adak', 'America/Anchorage'], 'several'],
    // South Dakota: the split-area-code table adds Chicago, the name people know for North_Dakota/Center's clock.
    ['+16055551234', ['America/Chicago', 'America/Denver'], 'several'],
    ['+12085550123', ['America/Boise', 'America/Los_Angeles'], 'several'],
    // El Paso keeps Mountain time; Culberson County, which some listings put in 915, is legally Central.
    ['+19155550123', ['America/Chicago', 'America/Denver'], 'several'],
    // The data says Sydney for all of 02; Lord Howe Island (02 6563) keeps its own clock, so both are kept.
    ['+61265631000', ['Australia/Lord_Howe', 'Australia/Sydney'], 'several'],
    ['+61265641000', ['Australia/Sydney'], 'number'],
  ])('%s → %j (%s)', (phone, zones, source) => {
    expect(zonesForNumber(phone, NOW)).toEqual({ zones, source });
  });

  it('keeps one zone per distinct clock for a number known only by its country code (toll-free)', () => {
    const z = zonesForNumber('+18005551234', NOW);
    expect(z?.source).toBe('several');
    expect(z?.zones).toEqual(expect.arrayContaining(['America/New_York', 'America/Chicago', 'Pacific/Honolulu']));
    // New York, Toronto and Nassau keep one clock: only the known name stays.
    expect(z?.zones).not.toContain('America/Toronto');
    expect(z?.zones).not.toContain('America/Nassau');
  });

  it('knows no zone for a number the data does not place (an international freephone number)', () => {
    expect(zonesForNumber('+80012345678', NOW)).toBeNull();
  });
});

describe('placing contacts in parts', () => {
  it('groups by country and zone set, refuses what cannot be called legally, and says why per country', () => {
    const out = placeContacts(
      [
        contact(2, '+19075551234', 'US'),
        contact(3, '+14155552671', 'US'),
        contact(4, '+19075551235', 'US'),
        contact(5, '+80012345678', null),
        contact(6, '+442079460018', 'GB'),
        contact(7, '+919820012345', 'IN'),
      ],
      null,
      // Great Britain without its conservative default: a country with no legal hours of its own.
      parseLegalHours('{"GB": "off"}'),
      NOW,
    );
    expect(out.parts.map((p) => [p.country, p.zones, p.zoneSource, p.contacts.map((c) => c.row)])).toEqual([
      ['US', ['America/Adak', 'America/Anchorage'], 'several', [2, 4]],
      ['US', ['America/Los_Angeles'], 'number', [3]],
      ['IN', ['Asia/Kolkata'], 'number', [7]],
    ]);
    expect(out.rejected).toEqual([
      { row: 5, reason: 'no_time_zone', input: '+80012345678' },
      { row: 6, reason: 'no_legal_hours', input: '+442079460018' },
    ]);
    expect(out.problems).toEqual(['set a calling window for GB numbers: callsheet has no default legal hours for GB']);
  });

  it('with an upload window, places a country without legal hours, and refuses one whose legal hours it misses', () => {
    const nights = parseWindowRules('daily 22:00-23:00');
    const out = placeContacts(
      [contact(2, '+442079460018', 'GB'), contact(3, '+14155552671', 'US')],
      nights,
      // Great Britain without its conservative default: no hours of its own.
      parseLegalHours('{"GB": "off"}'),
      NOW,
    );
    expect(out.parts.map((p) => p.country)).toEqual(['GB']);
    expect(out.rejected).toEqual([{ row: 3, reason: 'outside_legal_hours', input: '+14155552671' }]);
    expect(out.problems[0]).toMatch(/has no hour within the legal hours of US\b.*US daily 08:00-21:00 \(.*47 CFR/);
  });

  it('never puts one zone set of two countries in one part', () => {
    // +1 toll-free numbers of the US and of Canada share zones but not legal hours.
    const out = placeContacts(
      [contact(2, '+18005551234', 'US'), contact(3, '+18005551235', 'CA')],
      null,
      undefined,
      NOW,
    );
    expect(out.parts.map((p) => p.country)).toEqual(['US', 'CA']);
  });
});

describe('plans and the intake report', () => {
  it('carries every zone into the plan and says how they were found and whether legal hours cut the window', async () => {
    const validation = await validateUpload(
      await xlsx([['Phone Number'], ['+19075551234'], ['+14155552671'], ['+80012345678']]),
      'ak.xlsx',
      { defaultCountry: 'US', metadata: { 'calling-window': 'Mon-Fri 09:00-5:00' } },
    );
    expect(validation.report.rejected).toEqual([{ row: 4, reason: 'no_time_zone', input: '+80012345678' }]);
    const ref = { bucket: 'b', key: 'incoming/agent/ak.xlsx', versionId: null, eTag: 'e', size: 1 };
    const plans = planParts('u1', ref, validation, { id: 'agent' } as never, { retries: 1 });
    expect(plans.map((p) => [p.plan.part.zones, p.plan.part.timeZone, p.plan.part.country])).toEqual([
      [['America/Adak', 'America/Anchorage'], 'America/Adak', 'US'],
      [['America/Los_Angeles'], 'America/Los_Angeles', 'US'],
    ]);
    expect(plans[0]?.zoneDecidedBy).toMatch(/spans 2 time zones \(America\/Adak, America\/Anchorage\).*all of them/);
    expect(plans[1]?.zoneDecidedBy).toMatch(/own area/);
    expect(plans[0]?.hours).toEqual({
      window: expect.stringContaining('cut to the legal hours of US, US-AK (Sun,Mon,Tue,Wed,Thu,Fri,Sat 08:00-21:00)'),
      clippedToLegalHours: true,
      rules: expect.arrayContaining([
        expect.objectContaining({ scope: 'US', source: expect.stringMatching(/47 CFR § 64\.1200\(c\)\(1\)/) }),
      ]),
    });
    expect(plans[0]?.hours.window).toContain('in each of America/Adak, America/Anchorage');

    // The annotated copy names every zone of each row, and why a row was refused.
    const wb = new ExcelJS.Workbook();
    await wb.xlsx.load((await annotatedWorkbook(validation)) as unknown as ArrayBuffer);
    const rows: unknown[][] = [];
    wb.worksheets[0]?.eachRow((r) => rows.push((r.values as unknown[]).slice(1)));
    expect(rows[1]).toEqual(['+19075551234', 'accepted', '+19075551234', '1', 'America/Adak, America/Anchorage']);
    expect(String(rows[3]?.at(-1))).toMatch(/^no_time_zone: callsheet has no time-zone data for this number/);
  });
});
