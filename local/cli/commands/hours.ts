import { parseWindowRules } from '#commons/calling-window.ts';
import { DEFAULT_LEGAL_HOURS, type LegalHoursTable, readLegalHours } from '#commons/legal-hours.ts';
import { wallTimeAt } from '#commons/zoned-time.ts';
import { overnightNote } from '#intake/plan-load-notes.ts';
import { type Command, UsageError, windowOption } from '../command.ts';
import { type HoursAnswer, hoursFor, hoursOf, type SharedHours } from '../hours-for.ts';

type Answer = HoursAnswer | { phone: string; error: string };
type Found = { phone: string; shared: SharedHours } | { phone: string; error: string };

/** The local date in the number's own zone now, so "today" is the recipient's today. */
function todayOf(phone: string, table: LegalHoursTable, now: number): string {
  const utc = new Date(now).toISOString().slice(0, 10);
  const first = hoursFor(phone, { on: utc, table });
  if ('error' in first) return utc;
  const w = wallTimeAt(now, first.zones[0] as string);
  return `${w.year}-${String(w.month).padStart(2, '0')}-${String(w.day).padStart(2, '0')}`;
}

const clock = (iso: string) => iso.slice(11, 16);

/**
 * The answers as `JSON.stringify(answers, null, 2)` writes them, each shared part written once: numbers of the same
 * zones, country and states differ on a date only in their phone (1,000 numbers have a few dozen such parts).
 */
function json(answers: { on: string; found: Found }[], window: string | null): string {
  const written = new Map<SharedHours, string>();
  const items = answers.map(({ on, found }) => {
    const upload = window === null ? '' : `\n    "window": ${JSON.stringify(window)},`;
    const head = `{\n    "on": ${JSON.stringify(on)},${upload}\n    "phone": ${JSON.stringify(found.phone)},`;
    if ('error' in found) return `${head}\n    "error": ${JSON.stringify(found.error)}\n  }`;
    let rest = written.get(found.shared);
    if (rest === undefined) {
      // Its members without the braces around them, indented as an array item's are.
      rest = JSON.stringify(found.shared, null, 2).slice(1, -2).replaceAll('\n', '\n  ');
      written.set(found.shared, rest);
    }
    return `${head}${rest}\n  }`;
  });
  return items.length === 0 ? '[]' : `[\n  ${items.join(',\n  ')}\n]`;
}

function describe(a: Answer, on: string, window: string | null): string[] {
  if ('error' in a) return [`${a.phone}  not callable: ${a.error}`, ''];
  const zone = a.zones[0] as string;
  const where = [a.country, ...a.regions].filter(Boolean).join(', ');
  const lines = [`${a.phone}  ${where}; ${a.zones.length > 1 ? 'zones' : 'zone'} ${a.zones.join(', ')}; on ${on}`];
  if (a.allowed.length === 0) lines.push('  no call may start on this date');
  for (const w of a.allowed)
    lines.push(`  a call may start ${clock(w.from)}-${clock(w.to)} ${zone} (${w.from} to ${w.to})`);
  for (const h of a.holidays) lines.push(`  closed: ${h.name}, a public holiday in ${h.scope}`);
  if (a.zones.length > 1) lines.push(`  open only where every zone's hours are open`);
  if (a.zoneSource)
    lines.push(`  area code ${a.zoneSource.areaCode} spans zones: ${a.zoneSource.note} (${a.zoneSource.source})`);
  lines.push('  rules:');
  for (const r of a.rules) {
    const hours = r.hours ?? 'no hours of its own';
    const holidays = r.noHolidays ? ', not on public holidays' : '';
    lines.push(`    ${r.scope.padEnd(6)} ${hours}${holidays} [${r.basis}] ${r.source}${r.note ? `; ${r.note}` : ''}`);
  }
  if (window)
    lines.push(`    ${'upload'.padEnd(6)} ${window} [--window] the upload's own calling window, in each zone`);
  lines.push('');
  return lines;
}

export const hoursCommand: Command = {
  name: 'hours',
  summary: 'when numbers may be called on a date, and every rule (with its source) that says so',
  usage: 'hours <phone>… [--on YYYY-MM-DD] [--window SPEC] [--json]',
  allowPositionals: true,
  options: {
    on: { type: 'string' },
    window: { type: 'string' },
    json: { type: 'boolean' },
  },
  help: [
    'arguments:',
    '  <phone>…        numbers in international form (+12085550143); several at once',
    'options:',
    "  --on DATE       the local date to answer for (default: today in each number's own zone)",
    '  --window SPEC   an upload calling window to intersect, e.g. "Mon-Fri 09:00-17:00"',
    '  --json          print a JSON array: phone, country, zones, regions, allowed [{from, to}], rules [{scope, hours,',
    '                  source}], holidays; window too, with --window',
    '',
    "The hours are the strictest of every rule that may apply: the country's, the state's or province's (from the",
    'area code), every time zone the number may ring in, and public holidays where a rule bans them. The',
    'deployment setting LEGAL_HOURS, when set in the environment, is applied as intake and the lifecycle apply it.',
    '',
    'Exit status: 0 when every number was answered, 1 when one could not be, 2 for a usage mistake.',
  ],
  async run(values, positionals) {
    if (positionals.length === 0) throw new UsageError('give at least one phone number, e.g. +12085550143');
    const on = values.on as string | undefined;
    if (on !== undefined && !isDate(on))
      throw new UsageError(`--on ${on} is not a date (use YYYY-MM-DD, e.g. 2026-12-07)`);
    let table = DEFAULT_LEGAL_HOURS;
    const setting = process.env.LEGAL_HOURS;
    if (setting) {
      const read = readLegalHours(setting);
      if ('problem' in read) throw new UsageError(`LEGAL_HOURS: ${read.problem}`);
      table = read;
    }
    // A window that does not parse is the flag's mistake, said once, not each number's.
    const window = windowOption(values.window as string | undefined) ?? null;
    const now = Date.now();
    const answers = positionals.map((phone) => {
      const date = on ?? todayOf(phone, table, now);
      const a = hoursOf(phone, { on: date, window, table });
      const found: Found = 'error' in a ? { phone, error: a.error } : a;
      return { on: date, found };
    });
    if (values.json) console.log(json(answers, window));
    else
      console.log(
        [
          ...answers.flatMap(({ on, found }) =>
            describe('error' in found ? found : { phone: found.phone, ...found.shared }, on, window),
          ),
          // As intake says it of an upload: 17:00-09:00 is more often a daytime window written backwards.
          ...overnightNote(window === null ? undefined : parseWindowRules(window)).map((n) => `note: ${n}`),
        ].join('\n'),
      );
    return answers.some((a) => 'error' in a.found) ? 1 : 0;
  },
};

/** YYYY-MM-DD naming a day that exists: 2026-13-45 and 2026-02-30 do not (Date.parse rolls the second over). */
function isDate(text: string): boolean {
  const at = Date.parse(`${text}T00:00Z`);
  return /^\d{4}-\d{2}-\d{2}$/.test(text) && !Number.isNaN(at) && new Date(at).toISOString().startsWith(text);
}
