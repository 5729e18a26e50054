import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { getExampleNumber, parsePhoneNumberFromString } from 'libphonenumber-js/max';
import examples from 'libphonenumber-js/mobile/examples';
import { COUNTRY_RULES } from '#commons/calling-hours/countries.ts';
import { atMost, type BenchResult, median } from './client-overhead.ts';

const run = promisify(execFile);
const CLI = new URL('../bin/callsheet.mjs', import.meta.url).pathname;
const NUMBERS = 1000;
const ROUNDS = 5;

/** 1,000 valid numbers spread over every country the rules table has: each country's example, varied. */
function numbers(): string[] {
  const bases = Object.keys(COUNTRY_RULES)
    .map((cc) => getExampleNumber(cc as never, examples)?.number)
    .filter((n): n is NonNullable<typeof n> => Boolean(n));
  const out: string[] = [];
  for (let i = 0; out.length < NUMBERS && i < NUMBERS * 20; i++) {
    const base = bases[i % bases.length] as string;
    const tail = String((Number(base.slice(-3)) + Math.floor(i / bases.length)) % 1000).padStart(3, '0');
    const candidate = `${base.slice(0, -3)}${tail}`;
    if (parsePhoneNumberFromString(candidate)?.isValid()) out.push(candidate);
  }
  return out;
}

async function timed(args: string[]): Promise<number> {
  const start = performance.now();
  await run(process.execPath, [CLI, ...args], { maxBuffer: 64 * 1024 * 1024 });
  return performance.now() - start;
}

/** `callsheet hours` for 1,000 numbers of every country in the table, as a user runs it, against `--help`. */
export async function hoursBench(): Promise<BenchResult[]> {
  const phones = numbers();
  const args = ['hours', ...phones, '--on', '2026-12-07', '--json'];
  await timed(['--help']); // the compiled CLI is brought up to date before timing
  await timed(args);
  const help: number[] = [];
  const hours: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    help.push(await timed(['--help']));
    hours.push(await timed(args));
  }
  const h = median(hours);
  const floor = median(help);
  // Every command pays Node's and the CLI's start-up (what `--help` takes); the answers are what comes on top.
  return [
    {
      name: `callsheet hours, ${phones.length} numbers of ${Object.keys(COUNTRY_RULES).length} countries`,
      ratio: h / floor,
      baseline: '`callsheet --help`',
      detail: `${h.toFixed(0)} ms, ${(h - floor).toFixed(0)} ms beyond --help's ${floor.toFixed(0)} ms`,
      ...atMost((h - floor) / 1000, 0.3, '0.3 s beyond start-up'),
    },
  ];
}
