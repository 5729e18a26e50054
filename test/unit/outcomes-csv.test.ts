import { describe, expect, it } from 'vitest';
import type { ContactOutcome } from '#commons/outcomes/call-outcome.ts';
import { csvNumber, csvPhone, csvText, defuseFormula } from '#commons/spreadsheet/csv-field.ts';
import { outcomesCsv } from '#lifecycle/part-end/export.ts';
import { parseCsv } from '#local/stack/html-report.ts';

const contact = (extra: Partial<ContactOutcome> = {}): ContactOutcome => ({
  campaignId: 'cmp_1',
  phone: '+15551234567',
  contactName: 'Ann',
  attempts: 2,
  lastStatus: 'failed',
  lastFailureReason: 'no_answer',
  durationSeconds: 0,
  costInr: null,
  transcriptUrl: null,
  recordingUrl: null,
  lastCallStartedAt: '2026-03-02T09:04:00.000Z',
  lastCallEndedAt: '2026-03-02T09:05:00.000Z',
  lastCallId: 'call_1',
  optOutPhrase: null,
  ...extra,
});

/** Every cell as a program in another locale splits a line: on `,`, `;`, tab or `|`, with no regard for quotes. */
const cellsInAnyLocale = (csv: string) =>
  [',', ';', '\t', '|'].flatMap((sep) => csv.split(/\r\n|\n|\r/).flatMap((line) => line.split(sep)));

/** A cell a spreadsheet could run: after spaces and double quotes, =, +, -, @, tab or CR; the row's E.164 aside. */
const FORMULA = /^(?!"\+[1-9][0-9]{1,14}"(,|$))[ "]*[=+\-@\t\r]/;

describe('outcomes CSV against formula injection', () => {
  it('defuses a formula in the middle of a field, which a ;-separated spreadsheet reads as its own cell', () => {
    const csv = outcomesCsv([contact({ contactName: "x;=cmd|' /C calc'!A0;y" })]);
    expect(csv.split('\r\n')[1]).toBe(
      `"+15551234567","x;'=cmd|' /C calc'!A0;y",2,"failed","no_answer",0,,"2026-03-02T09:04:00.000Z","2026-03-02T09:05:00.000Z","call_1",,,`,
    );
    for (const cell of cellsInAnyLocale(csv)) expect(cell).not.toMatch(FORMULA);
  });

  it('leaves no cell a spreadsheet could run, whatever the separator, and reads back with only apostrophes added', () => {
    const hostile = [
      '=1+1',
      '+1',
      '-2+3',
      '@SUM(A1)',
      '\t=1',
      '\r=1',
      '  =1',
      '"=1"',
      "'=1",
      'a,=b',
      'a|@b',
      'a\t-b',
      'a\n=b',
      'a,\t=b',
      'a;\r=b',
      '\t\t=1',
      ' "  +1',
      '＝1+1',
    ];
    const rows = hostile.map((name, i) =>
      contact({
        contactName: name,
        lastFailureReason: name,
        lastCallId: `call_${i}`,
        transcriptUrl: `http://x/${name}`,
      }),
    );
    const csv = outcomesCsv(rows);
    for (const cell of cellsInAnyLocale(csv)) expect(cell, JSON.stringify(cell)).not.toMatch(FORMULA);
    const [, ...table] = parseCsv(csv).filter((r) => r.length > 1);
    expect(table.map((r) => r[1])).toEqual(hostile.map(defuseFormula));
    // Nothing is lost: taking the apostrophes out of both gives the same text.
    const withoutApostrophes = (v: string) => v.replaceAll("'", '');
    expect(hostile.map(defuseFormula).map(withoutApostrophes)).toEqual(hostile.map(withoutApostrophes));
  });

  it('quotes every text field, the header too, and writes numbers as numbers', () => {
    const [header, row] = outcomesCsv([contact({ costInr: 4.5, durationSeconds: 61 })]).split('\r\n');
    expect(header?.split(',').every((f) => /^"[^"]+"$/.test(f))).toBe(true);
    expect(row).toBe(
      `"+15551234567","Ann",2,"failed","no_answer",61,4.5,"2026-03-02T09:04:00.000Z","2026-03-02T09:05:00.000Z","call_1",,,`,
    );
  });

  it('keeps an E.164 number as it is and defuses anything else in the phone column', () => {
    expect(csvPhone('+15551234567')).toBe('"+15551234567"');
    expect(csvPhone('+919876543210')).toBe('"+919876543210"');
    for (const phone of ['+1 555 123 4567', '+0123456', '+1234567890123456', '=1+2', '-15551234567', '+1;=cmd'])
      expect(csvPhone(phone), phone).toMatch(/^"'/);
    const csv = outcomesCsv([contact({ phone: '=HYPERLINK("http://evil";"x")' })]);
    for (const cell of cellsInAnyLocale(csv)) expect(cell).not.toMatch(FORMULA);
  });

  it('defuses each risky segment and leaves ordinary text alone', () => {
    expect(defuseFormula('x;=cmd|a;y')).toBe("x;'=cmd|a;y");
    expect(defuseFormula('a|=b,@c;-d\t+e')).toBe("a|'=b,'@c;'-d\t'+e");
    for (const plain of ['Ann', 'a-b', 'x=1', 'no_answer', 'http://127.0.0.1/r/c2.wav', '2026-03-02T09:05:00Z', ''])
      expect(defuseFormula(plain)).toBe(plain);
    expect(csvText(null)).toBe('');
    expect(csvText('say "hi"')).toBe('"say ""hi"""');
    expect([csvNumber(-3), csvNumber(4.5), csvNumber(null), csvNumber(Number.NaN)]).toEqual(['-3', '4.5', '', '']);
  });
});
