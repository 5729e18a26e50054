import { describe, expect, it } from 'vitest';
import { RequestValidationError } from '#commons/voice-api/index.ts';
import { raw, useEmulator } from '../helpers/emulator.ts';
import { phones } from '../helpers/sheets.ts';

const f = useEmulator();

describe('contacts', () => {
  it('upserts by phone number: provided fields overwrite, blanks leave fields alone, tags union, notes append', async () => {
    const first = await f.api.contacts.upsert({
      phone_number: '+14155552671',
      contact_name: 'Ann Lee',
      email: 'ann@example.com',
      city: 'Oakland',
      source: 'Web Form',
      lead_status: 'New Lead',
      tags: ['vip', 'west'],
      note: 'First contact.',
    });
    expect(first.created).toBe(true);
    expect(first.contact).toMatchObject({
      source: 'web_form',
      lead_status: 'new_lead',
      tags: ['vip', 'west'],
      notes: ['First contact.'],
    });

    const second = await f.api.contacts.upsert({
      phone_number: '+14155552671',
      contact_name: '  ',
      city: 'San Francisco',
      email: '',
      tags: ['west', 'renewal'],
      note: 'Asked for a callback.',
    });
    expect(second.created).toBe(false);
    const stored = await f.admin.contact<Record<string, unknown>>('+14155552671');
    expect(stored).toMatchObject({
      phone_number: '+14155552671',
      contact_name: 'Ann Lee',
      email: 'ann@example.com',
      city: 'San Francisco',
      source: 'web_form',
      tags: ['vip', 'west', 'renewal'],
      notes: ['First contact.', 'Asked for a callback.'],
    });
    expect(second.contact).toEqual(stored);
  });

  it('bulk-upserts up to 100 contacts; failures do not abort the batch', async () => {
    const res = await raw(f.emu.url, 'POST', '/contacts/bulk', {
      body: JSON.stringify({
        contacts: [
          { phone_number: '+14155550001', tags: ['a'] },
          { phone_number: 'not-a-phone' },
          { phone_number: '+14155550001', tags: ['b'], note: 'again' },
          { contact_name: 'No phone' },
        ],
      }),
      headers: { 'Content-Type': 'application/json' },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      total: 4,
      succeeded: 2,
      failed: 2,
      results: [
        { index: 0, success: true, created: true },
        { index: 1, success: false, error: expect.stringContaining('E.164') },
        { index: 2, success: true, created: false },
        { index: 3, success: false, error: expect.stringContaining('phone_number') },
      ],
    });
    expect(await f.admin.contact('+14155550001')).toMatchObject({ tags: ['a', 'b'], notes: ['again'] });

    const ok = await f.api.contacts.bulkUpsert(phones(100).map((p) => ({ phone_number: p, tags: ['bulk'] })));
    expect(ok).toMatchObject({ total: 100, succeeded: 100, failed: 0 });
    await expect(f.api.contacts.bulkUpsert(phones(101).map((p) => ({ phone_number: p })))).rejects.toBeInstanceOf(
      RequestValidationError,
    );
    const over = await raw(f.emu.url, 'POST', '/contacts/bulk', {
      body: JSON.stringify({ contacts: phones(101).map((p) => ({ phone_number: p })) }),
      headers: { 'Content-Type': 'application/json' },
    });
    expect(over.status).toBe(422);
  });

  it('rejects a single invalid contact with 422 and stores nothing', async () => {
    const res = await raw(f.emu.url, 'POST', '/contacts', {
      body: JSON.stringify({ phone_number: '+1 415 555 2671', tags: 'vip', email: 'nope' }),
      headers: { 'Content-Type': 'application/json' },
    });
    expect(res.status).toBe(422);
    const locs = (res.body as { detail: { loc: (string | number)[] }[] }).detail.map((d) => d.loc.join('.'));
    expect(locs).toEqual(expect.arrayContaining(['body.phone_number', 'body.tags', 'body.email']));
    const missing = await fetch(`${f.emu.url}/_emulator/contacts/${encodeURIComponent('+14155552671')}`);
    expect(missing.status).toBe(404);
  });
});
