import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startDynamo } from '#local/stack/dynamo.ts';
import { runInProcess } from '../helpers/cli.ts';
import { TEST_KEY, useEmulator } from '../helpers/emulator.ts';
import { xlsx } from '../helpers/sheets.ts';
import { contactTablesEnv, emulatorContact } from './harness.ts';

// Real stand-ins on a loaded 2-core machine: generous limits; no test measures time.
vi.setConfig({ testTimeout: 90_000, hookTimeout: 60_000 });

const f = useEmulator();
let dataDir: string;
beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'callsheet-contacts-'));
});
afterAll(async () => {
  await rm(dataDir, { recursive: true, force: true });
});

const env = (api = true) => ({
  CALLSHEET_DATA_DIR: dataDir,
  CONTACTS_TABLE: '',
  API_BUDGET_TABLE: '',
  VOICE_API_URL: api ? f.emu.url : '',
  VOICE_API_KEY: api ? TEST_KEY : '',
});

describe('callsheet contacts', () => {
  it('push (JSON lines and a sheet), show and list on the local stack, pushing to the API once', async () => {
    const lines = join(dataDir, 'events.jsonl');
    await writeFile(
      lines,
      [
        JSON.stringify({
          event_id: 'cli-1',
          phone_number: '(415) 555-0161',
          name: 'Ana',
          tags: ['vip'],
          note: 'hello',
        }),
        '{oops',
        JSON.stringify({ event_id: 'cli-2', phone_number: '+14155550162', lead_status: 'Cold Lead' }),
        JSON.stringify({ event_id: 'cli-3', phone_number: '+14155550162', email: 'nope' }),
      ].join('\n'),
    );
    const push = await runInProcess(['contacts', 'push', lines, '--country', 'US'], env());
    expect(push.stdout).toContain('2 created');
    expect(push.stdout).toContain('line 2: not JSON');
    expect(push.stdout).toContain('line 4: email: not a valid email address');
    expect(push.code).toBe(1); // some lines were rejected
    expect(await emulatorContact(f, '+14155550161')).toMatchObject({ contact_name: 'Ana', notes: ['hello'] });

    // Again: every event was seen; nothing is sent.
    const apiRequests = async () =>
      (await f.admin.requests<{ path: string }[]>()).filter((r) => r.path.startsWith('/api/')).length;
    const before = await apiRequests();
    const again = await runInProcess(['contacts', 'push', lines, '--country', 'US', '--json'], env());
    expect(JSON.parse(again.stdout)).toMatchObject({ duplicates: 2, created: 0, notPushed: [] });
    expect(await apiRequests()).toBe(before);
    // Said in words that hold whatever API it is: callsheet knows what it pushed, not what the API now holds.
    const words = await runInProcess(['contacts', 'push', lines, '--country', 'US'], env());
    expect(words.stdout).toMatch(/; 2 not pushed again: unchanged since callsheet last pushed them\.\n/);

    const sheet = join(dataDir, 'more.xlsx');
    await writeFile(
      sheet,
      await xlsx([
        ['Phone Number', 'City'],
        ['+14155550161', 'Pune'],
      ]),
    );
    expect((await runInProcess(['contacts', 'push', sheet], env())).code).toBe(0);
    expect((await emulatorContact(f, '+14155550161'))?.city).toBe('Pune');
    // A CSV saved as .txt is a sheet, as `validate` reads it; JSON lines saved as .txt stay JSON lines.
    const txt = join(dataDir, 'export.txt');
    await writeFile(txt, 'Phone Number,City\n+14155550161,Nagpur\n');
    expect((await runInProcess(['contacts', 'push', txt], env())).code).toBe(0);
    expect((await emulatorContact(f, '+14155550161'))?.city).toBe('Nagpur');
    await writeFile(txt, `${JSON.stringify({ event_id: 'cli-txt', phone_number: '+14155550161', city: 'Pune' })}\n`);
    expect((await runInProcess(['contacts', 'push', txt], env())).code).toBe(0);
    expect((await emulatorContact(f, '+14155550161'))?.city).toBe('Pune');
    // A CSV without the header is told so as a file, not as worksheets.
    await writeFile(txt, '+14155550161,Pune\n');
    const headless = await runInProcess(['contacts', 'push', txt], env());
    expect(headless.stderr).toContain('export.txt: The file has no "Phone Number" column header in its first 20 rows');
    expect([headless.code, headless.stderr]).toEqual([1, expect.not.stringContaining('--help')]);

    const show = await runInProcess(['contacts', 'show', '4155550161', '--country', 'US', '--json'], env(false));
    expect(show.code).toBe(0);
    const shown = JSON.parse(show.stdout);
    expect(shown.contact).toMatchObject({ fields: { contact_name: 'Ana', city: 'Pune' }, tags: ['vip'] });
    expect(shown.notes.map((n: { text: string }) => n.text)).toEqual(['hello']);
    expect(shown.waitingToBePushed).toBe(false);

    const list = await runInProcess(['contacts', 'list', '--json'], env(false));
    expect(JSON.parse(list.stdout).map((c: { phone: string }) => c.phone)).toEqual(['+14155550161', '+14155550162']);
    const future = await runInProcess(['contacts', 'list', '--changed-since', '2999-01-01T00:00:00Z'], env(false));
    expect(future.stdout).toContain('No contacts changed since');
  });

  it('with nothing set, pushes to an emulator of its own; show has the merged contact', async () => {
    // A fresh data directory and nothing exported, as on a fresh clone.
    const fresh = {
      CALLSHEET_DATA_DIR: join(dataDir, 'fresh'),
      CONTACTS_TABLE: '',
      API_BUDGET_TABLE: '',
      VOICE_API_URL: '',
      VOICE_API_KEY: '',
    };
    const push = await runInProcess(['contacts', 'push', 'examples/contact-events.jsonl', '--json'], fresh);
    // Its one line on stderr says the data directory was new (and its do-not-call list empty).
    expect(push.stderr).toBe(
      `callsheet: ${join(dataDir, 'fresh')} held no callsheet data, so this started it empty, with an empty ` +
        'do-not-call list (set CALLSHEET_DATA_DIR to use another; the default is .callsheet/ in the current folder).\n',
    );
    expect(push.code).toBe(0);
    expect(JSON.parse(push.stdout)).toMatchObject({
      events: 5,
      created: 3,
      updated: 1,
      duplicates: 1, // crm-1001 comes twice
      contacts: { pushed: 3, upToDate: 0, notPushed: 0 },
      notPushed: [],
    });
    const show = await runInProcess(['contacts', 'show', '+14155552001', '--json'], fresh);
    const shown = JSON.parse(show.stdout);
    expect(shown.contact.fields).toMatchObject({ contact_name: 'Ravi Patel', city: 'San Francisco' });
    expect(shown.contact.tags).toEqual(['renewal', 'vip']);
    expect(shown.notes.map((n: { text: string }) => n.text)).toEqual([
      'Asked about the annual plan.',
      'Prefers calls after 10:00.',
    ]);
    expect(shown.waitingToBePushed).toBe(false);
    // The same file again: every event was seen, nothing changes, nothing needs sending.
    const again = JSON.parse(
      (await runInProcess(['contacts', 'push', 'examples/contact-events.jsonl', '--json'], fresh)).stdout,
    );
    expect(again).toMatchObject({ created: 0, updated: 0, duplicates: 5, contacts: { pushed: 0, upToDate: 3 } });
    const text = await runInProcess(['contacts', 'push', 'examples/contact-events.jsonl'], fresh);
    expect(text.stdout).toContain('5 event(s) in the local stack');
    expect(text.stdout).toContain('the embedded emulator');
  });

  it('on deployed tables with no API, counts what it stored and says it did not push; refuses bad usage', async () => {
    const dynamo = await startDynamo({ prefix: 'deployed' });
    try {
      const deployed = {
        CALLSHEET_DATA_DIR: join(dataDir, 'unused'),
        ...contactTablesEnv(dynamo),
        VOICE_API_URL: '',
        VOICE_API_KEY: '',
      };
      const lines = join(dataDir, 'offline.jsonl');
      await writeFile(lines, `${JSON.stringify({ event_id: 'off-1', phone_number: '+14155550163', name: 'Off' })}\n`);
      const push = await runInProcess(['contacts', 'push', lines, '--json'], deployed);
      expect(push.code).toBe(1);
      const summary = JSON.parse(push.stdout);
      expect(summary).toMatchObject({ created: 1, contacts: { pushed: 0, notPushed: 1 } });
      expect(summary.notPushed).toEqual([expect.stringContaining('not pushed: no API configured')]);
      const show = await runInProcess(['contacts', 'show', '+14155550163'], deployed);
      expect(show.stdout).toContain('waiting to be pushed: yes');
      expect((await runInProcess(['contacts', 'show', 'nonsense'], deployed)).code).toBe(2);
      expect((await runInProcess(['contacts', 'list', '--changed-since', 'yesterday'], deployed)).code).toBe(2);
      // A deployed table's name says nothing of its neighbours': without SUPPRESSION_TABLE, push says so.
      const unlisted = await runInProcess(['contacts', 'push', lines], { ...deployed, SUPPRESSION_TABLE: undefined });
      expect([unlisted.code, unlisted.stderr]).toEqual([
        2,
        expect.stringContaining('contacts push on the deployed tables needs SUPPRESSION_TABLE set too'),
      ]);
      expect(
        (await runInProcess(['contacts', 'show', '+14155550163'], { ...deployed, SUPPRESSION_TABLE: undefined })).code,
      ).toBe(0);
    } finally {
      await dynamo.close();
    }
  });
});
