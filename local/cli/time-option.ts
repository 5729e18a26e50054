import { UsageError } from './command.ts';

/** An instant flag: ISO 8601 with an offset (a wall time alone would depend on the machine's zone). */
export function parseInstant(text: string | undefined, flag: string): number | undefined {
  if (text === undefined) return undefined;
  const at = Date.parse(text);
  if (!/(Z|[+-]\d{2}:\d{2})$/.test(text) || Number.isNaN(at))
    throw new UsageError(`${flag} ${text}: give an ISO 8601 instant with an offset, e.g. 2026-12-07T08:00:00-05:00`);
  return at;
}

/** --now: the simulated start. */
export const parseNow = (text: string | undefined): number | undefined => parseInstant(text, '--now');
