import { describe, expect, it } from 'vitest';
import { publicHolidays } from '#commons/calling-hours/holidays.ts';
import { type Interval, openIntervals, parseWindowRules, type WindowRule } from '#commons/calling-window.ts';
import { DEFAULT_LEGAL_HOURS, hoursOfRule } from '#commons/legal-hours.ts';
import { wallTimeAt } from '#commons/zoned-time.ts';
import { hoursFor } from '#local/cli/hours-for.ts';

/** A small seeded generator: the same cases on every run, and a failing seed can be replayed. */
function random(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const PHONES = [
  '+13055550143', // Florida
  '+12085550143', // Idaho, two zones
  '+19072223333', // Alaska, two zones
  '+12125550143', // New York
  '+18005550143', // toll free: every state
  '+14165550143', // Toronto
  '+33142685300', // Paris
  '+61293744000', // Sydney
  '+34912345678', // Madrid
  '+919820012345', // Mumbai
];

const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const hhmm = (m: number) => `${String(Math.floor(m / 60)).padStart(2, '0')}:${String(m % 60).padStart(2, '0')}`;

function randomWindow(next: () => number): string | null {
  if (next() < 0.3) return null;
  const days = DAYS.filter(() => next() < 0.7);
  const start = Math.floor(next() * 96) * 15;
  const end = Math.floor(next() * 96) * 15;
  if (days.length === 0 || start === end) return null;
  return `${days.join(',')} ${hhmm(start)}-${hhmm(end === 0 ? 1440 : end)}`;
}

/** Whether [i.from, i.to) lies inside the union of `open`. */
function covered(i: Interval, open: readonly Interval[]): boolean {
  let at = i.from;
  for (const o of open) if (o.from <= at && o.to > at) at = Math.max(at, o.to);
  return at >= i.to;
}

const dateIn = (ms: number, zone: string) => {
  const w = wallTimeAt(ms, zone);
  return `${w.year}-${String(w.month).padStart(2, '0')}-${String(w.day).padStart(2, '0')}`;
};

describe('property: the allowed windows never exceed any single rule that applies', () => {
  it('holds for 400 random numbers, dates and upload windows', () => {
    const next = random(20261124);
    let checked = 0;
    for (let n = 0; n < 400; n++) {
      const phone = PHONES[Math.floor(next() * PHONES.length)] as string;
      const on = new Date(Date.UTC(2026, 0, 1) + Math.floor(next() * 730) * 86_400_000).toISOString().slice(0, 10);
      const window = randomWindow(next);
      const a = hoursFor(phone, { on, window });
      if ('error' in a) {
        expect(a.error).toMatch(/no hour within the legal hours/);
        continue;
      }
      const allowed = a.allowed.map((w) => ({ from: Date.parse(w.from), to: Date.parse(w.to) }));
      if (allowed.length === 0) continue;
      const span = {
        from: (allowed[0] as Interval).from - 86_400_000,
        to: (allowed.at(-1) as Interval).to + 86_400_000,
      };
      const limits: WindowRule[][] = a.rules.flatMap((r) => {
        const rule = DEFAULT_LEGAL_HOURS[r.scope];
        const hours = rule && hoursOfRule(rule);
        return hours ? [hours] : [];
      });
      if (window) limits.push(parseWindowRules(window));
      for (const zone of a.zones) {
        for (const rules of limits) {
          const open = openIntervals({ rules, holidays: [] }, zone, span.from, span.to);
          for (const i of allowed) expect(covered(i, open), `${phone} ${on} ${window} in ${zone}`).toBe(true);
        }
        for (const r of a.rules.filter((x) => x.noHolidays)) {
          for (const i of allowed) {
            for (const t of [i.from, i.to - 1]) {
              const d = dateIn(t, zone);
              expect(publicHolidays(r.scope, d, d), `${phone} ${on}: ${d} is a holiday in ${r.scope}`).toEqual([]);
            }
          }
        }
      }
      checked++;
    }
    expect(checked).toBeGreaterThan(100);
  });
});
