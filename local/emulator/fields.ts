import type { ValidationItem } from '#commons/voice-api/errors.ts';
import { invalid } from './http-kit.ts';

type Loc = (string | number)[];
const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Reads fields out of a request body or query, collecting every problem as a 422 item
 * (`{loc, msg, type}`) and throwing them together at `done()`.
 */
export class Fields {
  readonly items: ValidationItem[] = [];
  private readonly data: Record<string, unknown>;

  constructor(
    data: unknown,
    private readonly where: Loc,
  ) {
    if (!isRecord(data)) {
      this.items.push({ loc: where, msg: 'must be an object', type: 'model_type' });
      this.data = {};
    } else this.data = data;
  }

  has(name: string): boolean {
    return name in this.data && this.data[name] !== undefined;
  }

  raw(name: string): unknown {
    return this.data[name];
  }

  fail(name: string | Loc, msg: string, type = 'value_error'): void {
    this.items.push({ loc: [...this.where, ...(Array.isArray(name) ? name : [name])], msg, type });
  }

  /** A string; `null` only when nullable. Missing answers undefined (or a 422 when required). */
  string(
    name: string,
    o: { required?: boolean; nullable?: boolean; max?: number; nonBlank?: boolean } = {},
  ): string | null | undefined {
    const v = this.data[name];
    if (v === undefined) {
      if (o.required) this.fail(name, 'field required', 'missing');
      return undefined;
    }
    if (v === null) {
      if (o.nullable) return null;
      this.fail(name, o.required ? 'field required' : 'must not be null', o.required ? 'missing' : 'string_type');
      return undefined;
    }
    if (typeof v !== 'string') {
      this.fail(name, 'input should be a valid string', 'string_type');
      return undefined;
    }
    if (o.nonBlank && v.trim() === '') {
      this.fail(name, 'must not be blank', 'too_short');
      return undefined;
    }
    if (o.max !== undefined && v.length > o.max) {
      this.fail(name, `at most ${o.max} characters`, 'too_long');
      return undefined;
    }
    return v;
  }

  boolean(name: string): boolean | undefined {
    const v = this.data[name];
    if (v === undefined) return undefined;
    if (typeof v !== 'boolean') {
      this.fail(name, 'input should be a valid boolean', 'bool_type');
      return undefined;
    }
    return v;
  }

  /** An integer in [min, max]; strings of digits are accepted (forms and queries). */
  integer(
    name: string,
    o: { min?: number; max?: number; nullable?: boolean; required?: boolean } = {},
  ): number | null | undefined {
    const v = this.data[name];
    if (v === undefined || v === '') {
      if (o.required) this.fail(name, 'field required', 'missing');
      return undefined;
    }
    if (v === null && o.nullable) return null;
    const n = typeof v === 'string' && /^-?\d+$/.test(v.trim()) ? Number(v) : v;
    if (typeof n !== 'number' || !Number.isInteger(n)) {
      this.fail(name, 'input should be a valid integer', 'int_type');
      return undefined;
    }
    if (o.min !== undefined && n < o.min) {
      this.fail(name, `input should be greater than or equal to ${o.min}`, 'greater_than_equal');
      return undefined;
    }
    if (o.max !== undefined && n > o.max) {
      this.fail(name, `input should be less than or equal to ${o.max}`, 'less_than_equal');
      return undefined;
    }
    return n;
  }

  stringList(name: string, o: { nullable?: boolean } = {}): string[] | null | undefined {
    const v = this.data[name];
    if (v === undefined) return undefined;
    if (v === null && o.nullable) return null;
    if (!Array.isArray(v)) {
      this.fail(name, 'input should be a valid list', 'list_type');
      return undefined;
    }
    const bad = v.findIndex((x) => typeof x !== 'string');
    if (bad >= 0) {
      this.fail([name, bad], 'input should be a valid string', 'string_type');
      return undefined;
    }
    return v as string[];
  }

  /** A required list of 1 to `max` entries (the body of a bulk request). */
  batch(name: string, max: number): unknown[] {
    const v = this.data[name];
    if (v === undefined) this.fail(name, 'field required', 'missing');
    else if (!Array.isArray(v)) this.fail(name, 'input should be a valid list', 'list_type');
    else if (v.length === 0) this.fail(name, 'at least one entry is required', 'too_short');
    else if (v.length > max) this.fail(name, `at most ${max} entries per request`, 'too_long');
    else return v;
    return [];
  }

  /** One line naming every problem, for a failed entry of a bulk request. */
  summary(): string {
    return this.items.map((i) => `${i.loc.at(-1)}: ${i.msg}`).join('; ');
  }

  /** An ISO 8601 date-time, as epoch milliseconds. */
  dateTime(name: string): number | undefined {
    const v = this.data[name];
    if (v === undefined || v === '') return undefined;
    const t = typeof v === 'string' ? Date.parse(v) : Number.NaN;
    if (Number.isNaN(t)) {
      this.fail(name, 'input should be a valid ISO 8601 date-time', 'datetime_parsing');
      return undefined;
    }
    return t;
  }

  forbidOthers(allowed: readonly string[]): void {
    for (const k of Object.keys(this.data)) {
      if (!allowed.includes(k)) this.fail(k, 'extra inputs are not permitted', 'extra_forbidden');
    }
  }

  done(): void {
    if (this.items.length > 0) throw invalid(this.items);
  }
}
