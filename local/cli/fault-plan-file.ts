import { readFile } from 'node:fs/promises';
import { describeFaultProblems, parseFaultPlan } from '../emulator/fault-plan.ts';
import { cannotRead, UsageError } from './command.ts';

/** A rehearsal plan read for `callsheet run --faults`: the JSON as written (armed as is) and what it says. */
export interface FaultPlanFile {
  file: string;
  description: string | null;
  /** The plan exactly as written, for `PUT /_emulator/fault-plan` (the emulator checks it with the same rules). */
  plan: unknown;
  faults: number;
}

/**
 * Reads and checks a fault plan with the emulator's own validator; every problem is a usage error (exit 2)
 * naming the entry (1-based) and the field.
 */
export async function loadFaultPlan(file: string): Promise<FaultPlanFile> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    throw cannotRead(file, err, '--faults');
  }
  let plan: unknown;
  try {
    plan = JSON.parse(text);
  } catch (err) {
    throw new UsageError(`--faults: ${file} is not JSON: ${(err as Error).message}`);
  }
  const checked = parseFaultPlan(plan);
  if (!checked.ok)
    throw new UsageError(
      `--faults: ${file} has ${checked.problems.length} problem(s):\n${describeFaultProblems(checked.problems)}`,
    );
  return { file, description: checked.description, plan, faults: checked.faults.length };
}

/** A call the emulator placed, as `callsheet run --json` lists it. */
export interface PlacedCall {
  phone_number: string;
  started_at: string;
  ended_at: string | null;
  status: string;
}

/** The emulator's own call records, placed ones only (a call never dialled has no start), in dialling order. */
export function placedCalls(
  calls: { phone_number: string; started_at: string | null; ended_at: string | null; status: string }[],
): PlacedCall[] {
  return calls
    .filter((c): c is typeof c & { started_at: string } => c.started_at !== null)
    .map(({ phone_number, started_at, ended_at, status }) => ({ phone_number, started_at, ended_at, status }))
    .sort((a, b) => (a.started_at < b.started_at ? -1 : a.started_at > b.started_at ? 1 : 0));
}
