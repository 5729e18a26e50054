import Holidays from 'date-holidays';

const DAY_MS = 86_400_000;

/** Public holidays by scope and year, as local dates; date-holidays builds its calendar slowly, so once each. */
const byScopeYear = new Map<string, ReadonlyMap<string, string>>();
const calendars = new Map<string, Holidays | null>();

function calendar(scope: string): Holidays | null {
  let cal = calendars.get(scope);
  if (cal === undefined) {
    const [country = '', state] = scope.split('-');
    const known = new Holidays();
    // A scope date-holidays does not know must never pass as "no holidays".
    const ok = country in known.getCountries() && (!state || state in (known.getStates(country) ?? {}));
    cal = ok ? (state ? new Holidays(country, state) : new Holidays(country)) : null;
    calendars.set(scope, cal);
  }
  return cal;
}

/** Whether date-holidays has a calendar for the scope (`FR`, `US-FL`, `CA-QC`). */
export const knowsHolidaysOf = (scope: string): boolean => calendar(scope) !== null;

/** YYYY-MM-DD of a date-holidays `date` text ("2026-12-24 14:00:00" is the 24th). */
const dayOf = (text: string) => text.slice(0, 10);

function addDays(date: string, n: number): string {
  return new Date(Date.parse(`${date}T00:00:00Z`) + n * DAY_MS).toISOString().slice(0, 10);
}

/**
 * The public holidays of a scope in one year: local date → name. A holiday that starts at noon closes its whole
 * day, and one that spans days closes each of them: stricter than the calendar, never looser.
 */
function publicHolidaysIn(scope: string, year: number): ReadonlyMap<string, string> {
  const key = `${scope}|${year}`;
  let days = byScopeYear.get(key);
  if (!days) {
    const cal = calendar(scope);
    if (!cal) throw new Error(`date-holidays has no calendar for ${scope}`);
    const found = new Map<string, string>();
    for (const h of cal.getHolidays(year)) {
      if (h.type !== 'public') continue;
      // `end` is exclusive: a one-day holiday ends at the next midnight.
      const span = Math.max(1, Math.round((h.end.getTime() - h.start.getTime()) / DAY_MS));
      for (let i = 0; i < span; i++) {
        const day = addDays(dayOf(h.date), i);
        if (!found.has(day)) found.set(day, h.name);
      }
    }
    days = new Map([...found].sort(([a], [b]) => (a < b ? -1 : 1)));
    byScopeYear.set(key, days);
  }
  return days;
}

/** The public holidays of the scope on local dates from `from` to `to` (YYYY-MM-DD, inclusive). */
export function publicHolidays(scope: string, from: string, to: string): string[] {
  const out: string[] = [];
  for (let y = Number(from.slice(0, 4)); y <= Number(to.slice(0, 4)); y++)
    for (const d of publicHolidaysIn(scope, y).keys()) if (d >= from && d <= to) out.push(d);
  return out;
}

/** The name of the scope's public holiday on a local date, or null. */
export const holidayName = (scope: string, date: string): string | null =>
  publicHolidaysIn(scope, Number(date.slice(0, 4))).get(date) ?? null;
