import { UsageError } from './command.ts';

/** --now: an ISO 8601 instant with an offset (a wall time alone would depend on the machine's zone). */
export function parseNow(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const now = Date.parse(text);
  if (!/(Z|[+-]\d{2}:\d{2})$/.test(text) || Number.isNaN(now))
    throw new UsageError(`--now ${text}: give an ISO 8601 instant with an offset, e.g. 2026-12-07T08:00:00-05:00`);
  return now;
}
