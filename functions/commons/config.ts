/** A deployment setting that is missing or unusable; thrown at start-up so a bad deploy fails at once, loudly. */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`callsheet configuration: ${problems.join('; ')}`);
    this.name = 'ConfigError';
  }
}

export type Env = Readonly<Record<string, string | undefined>>;

/** A check for `EnvReader.checked`: a whole number from `min` to `max`, or from `min` up when there is no `max`. */
export const wholeNumber =
  (min: number, max?: number) =>
  (v: string): number | { problem: string } =>
    /^\d+$/.test(v) && Number(v) >= min && (max === undefined || Number(v) <= max)
      ? Number(v)
      : { problem: max === undefined ? `a whole number ≥ ${min}` : `a whole number from ${min} to ${max}` };

/**
 * Reads settings from an environment, collecting every problem so one start-up failure names them all.
 * Call `done()` after the last read.
 */
export class EnvReader {
  private readonly problems: string[] = [];

  constructor(private readonly env: Env) {}

  required(name: string): string {
    const v = this.env[name]?.trim();
    if (!v) {
      this.problems.push(`${name} is not set`);
      return '';
    }
    return v;
  }

  optional(name: string): string | undefined {
    const v = this.env[name]?.trim();
    return v ? v : undefined;
  }

  /** Reads an optional value and checks it; `check` answers a problem description or null. */
  checked<T>(name: string, parse: (raw: string) => T | { problem: string }): T | undefined {
    const raw = this.optional(name);
    if (raw === undefined) return undefined;
    const v = parse(raw);
    if (v !== null && typeof v === 'object' && 'problem' in v) {
      this.problems.push(`${name}=${JSON.stringify(raw)}: ${v.problem}`);
      return undefined;
    }
    return v as T;
  }

  done(): void {
    if (this.problems.length > 0) throw new ConfigError(this.problems);
  }
}
