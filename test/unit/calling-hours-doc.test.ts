import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DOC_PATH, renderCallingHoursDoc } from '#scripts/calling-hours-doc.ts';

describe('docs/calling-hours.md', () => {
  it('is the table the code applies (regenerate with npm run docs:calling-hours)', () => {
    expect(readFileSync(DOC_PATH, 'utf8')).toBe(renderCallingHoursDoc());
  });
});
