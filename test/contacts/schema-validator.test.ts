import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { validateV1, validateV2 } from '#contacts/contact-upserted.validator.ts';

const ROOT = new URL('../..', import.meta.url).pathname;
const schemaFile = (v: number) => JSON.parse(readFileSync(`${ROOT}schemas/contact-upserted.v${v}.json`, 'utf8'));
const v1 = schemaFile(1);
const v2 = schemaFile(2);

describe('the Contact Upserted schemas, compiled ahead of time', () => {
  it('is what npm run build:validators compiles the schema to now', () => {
    const dir = mkdtempSync(join(tmpdir(), 'callsheet-validator-'));
    try {
      const out = join(dir, 'validator.ts');
      const printed = execFileSync(process.execPath, ['scripts/build-validators.mjs', '--out', out], {
        cwd: ROOT,
        encoding: 'utf8',
      });
      expect(printed).toContain(`wrote ${out}`);
      expect(
        readFileSync(out, 'utf8'),
        'schemas/contact-upserted.v*.json changed: run npm run build:validators and commit the validator',
      ).toBe(readFileSync(`${ROOT}functions/contacts/contact-upserted.validator.ts`, 'utf8'));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('version 2 is version 1 with changed_at, required along with schema_version 2', () => {
    const { changed_at, schema_version, ...rest } = v2.properties;
    const { schema_version: _v1, ...v1rest } = v1.properties;
    expect(rest).toEqual(v1rest);
    expect(schema_version).toMatchObject({ const: 2 });
    expect(changed_at).toMatchObject({ type: 'string' });
    expect([...v2.required].sort()).toEqual([...v1.required, 'schema_version', 'changed_at'].sort());
    expect(v2.additionalProperties).toBe(false);
  });

  const runtime = new Ajv({ allErrors: true, strict: true }).compile(v1);
  const events: [string, unknown][] = [
    ['minimal', { event_id: 'e1', phone_number: '+14155552671' }],
    [
      'every field',
      {
        event_id: 'e2',
        phone_number: '4155552671',
        country: 'us',
        name: 'Ann',
        email: 'a@b.co',
        city: 'SF',
        location: 'x',
        source: 'Web Form',
        lead_status: 'New',
        custom_instruction: 'hi',
        tags: ['a', 'b'],
        note: 'n',
        schema_version: 1,
      },
    ],
    ['nulls', { event_id: 'e3', phone_number: '+1', name: null, tags: null, note: null }],
    ['no event id', { phone_number: '+14155552671' }],
    ['blank event id', { event_id: '   ', phone_number: '+14155552671' }],
    ['unknown field', { event_id: 'e', phone_number: '+1', nickname: 'x' }],
    ['wrong type', { event_id: 'e', phone_number: 14155552671 }],
    ['bad email', { event_id: 'e', phone_number: '+1', email: 'not an email' }],
    ['bad country', { event_id: 'e', phone_number: '+1', country: 'USA' }],
    ['too many tags', { event_id: 'e', phone_number: '+1', tags: Array.from({ length: 51 }, (_, i) => `t${i}`) }],
    ['a tag too long in code points', { event_id: 'e', phone_number: '+1', tags: ['😀'.repeat(101)] }],
    ['100 emoji is not too long', { event_id: 'e', phone_number: '+1', tags: ['😀'.repeat(100)] }],
    ['schema version 2', { event_id: 'e', phone_number: '+1', schema_version: 2 }],
    ['not an object', ['e', '+1']],
    ['null', null],
  ];

  it.each(events)('v1: judges "%s" as Ajv compiling the schema at run time does, with the same errors', (_, event) => {
    const ok = validateV1(event);
    expect(ok).toBe(runtime(event));
    expect((validateV1 as unknown as { errors?: unknown }).errors ?? null).toEqual(runtime.errors ?? null);
  });

  const runtimeV2 = new Ajv({ allErrors: true, strict: true }).compile(v2);
  const base = { schema_version: 2, event_id: 'e', phone_number: '+14155552671' };
  const eventsV2: [string, unknown, boolean][] = [
    ['UTC with milliseconds', { ...base, changed_at: '2026-03-02T09:15:00.250Z' }, true],
    ['an offset, nanoseconds', { ...base, changed_at: '2026-03-02T09:15:00.123456789+05:30' }, true],
    ['no changed_at', base, false],
    ['no schema_version', { event_id: 'e', phone_number: '+1', changed_at: '2026-03-02T09:15:00Z' }, false],
    ['no offset', { ...base, changed_at: '2026-03-02T09:15:00' }, false],
    ['no seconds', { ...base, changed_at: '2026-03-02T09:15Z' }, false],
    ['a date only', { ...base, changed_at: '2026-03-02' }, false],
    ['epoch milliseconds', { ...base, changed_at: 1772442900000 }, false],
    ['hour 24', { ...base, changed_at: '2026-03-02T24:00:00Z' }, false],
    ['a leap second', { ...base, changed_at: '2026-12-31T23:59:60Z' }, false],
    ['trailing text', { ...base, changed_at: '2026-03-02T09:15:00Z and more' }, false],
    ['every v1 field', { ...base, changed_at: '2026-03-02T09:15:00Z', name: 'Ann', tags: ['a'], note: 'n' }, true],
  ];

  it.each(eventsV2)('v2: judges "%s" (valid: %s) as Ajv at run time does', (_, event, valid) => {
    expect(validateV2(event)).toBe(valid);
    expect(runtimeV2(event)).toBe(valid);
    expect((validateV2 as unknown as { errors?: unknown }).errors ?? null).toEqual(runtimeV2.errors ?? null);
  });
});
