import { isValidTimeZone } from '#commons/voice-api/contract.ts';
import { parseDateTimeIn } from '#commons/zoned-time.ts';
import { startProblem, startTooFar } from '#intake/settings.ts';
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

/**
 * --start with --time-zone: the checks intake makes of an upload's start, blamed on the flags, so `run` and
 * `validate` both answer a wrong one as a usage mistake (exit 2) before reading anything.
 */
export function checkStartOptions(
  start: string | undefined,
  zone: string | undefined,
  horizon: { now: number; days: number },
): void {
  if (start !== undefined && zone === undefined)
    throw new UsageError('--start is a local time, so it needs --time-zone too, e.g. --time-zone America/New_York');
  if (start === undefined && zone !== undefined)
    throw new UsageError('--time-zone is the zone of --start: give both, or neither');
  if (zone !== undefined && !isValidTimeZone(zone))
    throw new UsageError(`--time-zone ${zone} is not an IANA time zone`);
  if (start === undefined || zone === undefined) return;
  const wrong = startProblem(start);
  if (wrong) throw new UsageError(`--start ${start}: ${wrong}`);
  const far = startTooFar(parseDateTimeIn(start, zone), horizon);
  if (far) throw new UsageError(`--start ${start}: ${far}`);
}
