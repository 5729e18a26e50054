import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { validate as compiled } from '#contacts/contact-upserted.v1.validator.ts';

const ROOT = new URL('../..', import.meta.url).pathname;
const schema = JSON.parse(readFileSync(`${ROOT}schemas/contact-upserted.v1.json`, 'utf8'));

describe('the Contact Upserted schema, compiled ahead of time', () => {
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
        'schemas/contact-upserted.v1.json changed: run npm run build:validators and commit the validator',
      ).toBe(readFileSync(`${ROOT}functions/contacts/contact-upserted.v1.validator.ts`, 'utf8'));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  const runtime = new Ajv({ allErrors: true, strict: true }).compile(schema);
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

  it.each(events)('judges "%s" as Ajv compiling the schema at run time does, with the same errors', (_, event) => {
    const ok = compiled(event);
    expect(ok).toBe(runtime(event));
    expect((compiled as unknown as { errors?: unknown }).errors ?? null).toEqual(runtime.errors ?? null);
  });
});
