import { readFileSync } from 'node:fs';

/**
 * This process's own peak RSS. Linux carries `maxRSS` over from the process that forked this one (a bench parent
 * holding a 40 MB sheet starts its children at its own RSS); VmHWM is the peak of this program's memory alone.
 */
export function peakRssMB(): number {
  try {
    const hwm = /VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1];
    if (hwm) return Number(hwm) / 1024;
  } catch {
    // not Linux: maxRSS, which elsewhere is this process's own
  }
  return process.resourceUsage().maxRSS / 1024;
}
