import { E164 } from './contract.ts';
import { RequestValidationError, type ValidationItem } from './errors.ts';

/** Collects contract violations in a request before it is sent, and throws them all at once. */
export class RequestChecks {
  private readonly items: ValidationItem[] = [];

  fail(loc: (string | number)[], msg: string, type = 'value_error'): this {
    this.items.push({ loc, msg, type });
    return this;
  }

  check(ok: boolean, loc: (string | number)[], msg: string, type = 'value_error'): this {
    return ok ? this : this.fail(loc, msg, type);
  }

  phone(value: unknown, loc: (string | number)[]): this {
    return this.check(
      typeof value === 'string' && E164.test(value),
      loc,
      `phone number must be E.164 (e.g. +14155552671), got ${JSON.stringify(value)}`,
    );
  }

  count(list: readonly unknown[], loc: (string | number)[], max: number): this {
    this.check(list.length > 0, loc, 'must contain at least one entry', 'too_short');
    return this.check(list.length <= max, loc, `at most ${max} entries per request, got ${list.length}`, 'too_long');
  }

  done(): void {
    if (this.items.length > 0) throw new RequestValidationError(this.items);
  }
}

export const pathId = (id: string): string => {
  if (typeof id !== 'string' || id === '')
    throw new RequestValidationError([{ loc: ['path', 'id'], msg: 'id is required', type: 'missing' }]);
  return encodeURIComponent(id);
};
