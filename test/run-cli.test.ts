import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { readRunningStack } from '#local/stack/running-stack.ts';
import { BIN, runCli, runInProcess } from './helpers/cli.ts';
import { xlsx } from './helpers/sheets.ts';

// Each test runs whole campaigns (the credits test three of them): seconds each on a quiet machine, many more on a
// busy one. No test measures time. A run is spawned where the process is the point (the compiled CLI's JSON on its
// stdout, another shell's command, a signal, a closed pipe); the others run in this process, as `runInProcess` says.
vi.setConfig({ testTimeout: 90_000 });

let dataDir: string;
beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'callsheet-run-'));
});
afterAll(async () => {
  await rm(dataDir, { recursive: true, force: true });
});

describe('callsheet run', () => {
  const env = () => ({ CALLSHEET_DATA_DIR: dataDir, VOICE_API_URL: '', VOICE_API_KEY: '' });

  it('runs the sample sheet through intake and the lifecycle and prints the JSON contract', async () => {
    const out = await runCli(['run', 'examples/contacts.xlsx', '--window', 'Mon-Fri 10:00-11:00', '--json'], env());
    expect(out.stderr).toBe('');
    expect(out.code).toBe(0);
    const result = JSON.parse(out.stdout);
    expect(result.upload).toMatch(/^s3:\/\/callsheet-uploads\/incoming\/.+\/contacts\.xlsx$/);
    expect(result.parts).toHaveLength(2);
    // Intake's notes: the plan carries two parts' pauses, and every row was placed.
    expect(result.notes).toEqual([]);
    for (const part of result.parts) {
      expect(part).toMatchObject({ status: 'completed', campaignId: expect.stringMatching(/\S/) });
      expect(part.stats.pending + part.stats.in_progress).toBe(0);
      expect(part.pauses.every((x: { reason: string }) => x.reason === 'window')).toBe(true);
      expect(part.stateTransitions).toBeGreaterThan(5);
      expect(part.simulatedDuration).toMatch(/^P(\d+D)?(T(\d+H)?(\d+M)?(\d+S)?)?$/);
      expect(part.report).toMatch(/^s3:\/\/callsheet-uploads\/reports\/.+\/part-\d\.json$/);
    }
    // The campaigns are remembered in the data directory, so an operator command knows they have ended.
    const late = await runInProcess(['campaign', 'pause', result.parts[0].campaignId], env());
    expect(late.code).toBe(1);
    expect(late.stderr).toContain('has already ended (completed)');
    const unknown = await runInProcess(['campaign', 'cancel', 'cmp_unknown'], env());
    expect(unknown.stderr).toContain('callsheet has no campaign cmp_unknown');
    // A part that ended without a brake has nothing to let go.
    const release = await runInProcess(['campaign', 'release', result.parts[0].campaignId], env());
    expect(release.code).toBe(0);
    expect(release.stdout).toContain('holds no brake on agent');
  });

  it('says when calls failed for want of credits, with the credits left, and writes each report as real files', async () => {
    // Its own data directory: the first test's calls count against each number's daily cap.
    const own = { ...env(), CALLSHEET_DATA_DIR: join(dataDir, 'credits') };
    const out = await runInProcess(['run', 'examples/contacts.xlsx', '--credits', '5', '--json'], own);
    expect(out.stderr).toBe('');
    expect(out.code).toBe(1);
    const result = JSON.parse(out.stdout);
    // A directory no command has used: the run says it started an empty do-not-call list there.
    expect(result.dataDir).toEqual({ path: join(dataDir, 'credits'), new: true });
    expect(result.runNotes).toEqual([
      expect.stringContaining(`${join(dataDir, 'credits')} held no callsheet data, so this started it empty`),
    ]);
    expect(result.summary).toMatchObject({ rows: 40, accepted: 40, rejected: 0, suppressed: 0 });
    expect(result.summary.failedByReason.insufficient_credits).toBeGreaterThan(0);
    expect(result.summary.creditsLeft).toBeLessThan(5);
    expect(result.summary.answered).toBeLessThan(result.summary.attempted);
    for (const part of result.parts) {
      expect(part.file.startsWith(join(dataDir, 'credits', 'reports'))).toBe(true);
      expect(JSON.parse(await readFile(part.file, 'utf8')).campaignId).toBe(part.campaignId);
      expect(await readFile(part.page, 'utf8')).toContain(`<code id="campaign-id">${part.campaignId}</code>`);
    }
    // The same day again in that directory: every number is over its daily cap, and the run says why (README).
    const again = await runInProcess(['run', 'examples/contacts.xlsx'], own);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('rejected rows: 40 daily-cap');
    expect(again.stderr).toContain(`the caps count the calls of every run on ${join(dataDir, 'credits')}`);
    // A second run in the same data directory, a week on (so the caps the first counted have passed).
    const weekOn = new Date(Date.now() + 8 * 86_400_000).toISOString();
    const text = await runInProcess(['run', 'examples/contacts.xlsx', '--credits', '5', '--now', weekOn], own);
    expect(text.stdout).toMatch(
      /calls: \d+ attempted, \d+ dialled, \d+ answered, not answered or failed: .*\d+ insufficient credits.*; credits left -?[\d.]+ INR/,
    );
    expect(text.stdout).toContain('rows: 40; accepted 40, rejected 0, suppressed (do-not-call list) 0');
    expect(text.stdout).not.toContain('held no callsheet data');
    // The campaigns end `completed`, but contacts went uncalled: the run says so and fails.
    expect(text.stdout).toMatch(/\d+ calls? failed for want of credits: top up the account \(here: --credits\)/);
    expect(text.code).toBe(1);
    expect(text.stdout).not.toContain('._S3rver_object');
    // Its campaigns are new ones: nothing of the first run's is found again under the same id.
    const listed = JSON.parse((await runInProcess(['campaign', 'list', '--json'], own)).stdout) as {
      campaignId: string;
    }[];
    const ids = listed.map((c) => c.campaignId);
    expect(ids).toHaveLength(4);
    expect(new Set(ids).size).toBe(4);
    expect(ids).toEqual(expect.arrayContaining(result.parts.map((p: { campaignId: string }) => p.campaignId)));
  });

  it('--contacts syncs a contact file while the campaign runs, on the same budget; the data directory keeps it', async () => {
    const own = { ...env(), CALLSHEET_DATA_DIR: join(dataDir, 'contacts') };
    const out = await runInProcess(
      ['run', 'examples/contacts.xlsx', '--contacts', 'examples/contact-events.jsonl', '--json'],
      own,
    );
    expect(out.stderr).toBe('');
    expect(out.code).toBe(0);
    const result = JSON.parse(out.stdout);
    expect(result.contacts).toMatchObject({
      upload: 's3://callsheet-uploads/contacts/contact-events.jsonl',
      error: null,
      rows: { total: 5, accepted: 5, rejected: 0 },
      applied: { created: 3, updated: 1, unchanged: 0, duplicate: 1 },
      deadLettered: [],
      waitingToBePushed: 0,
    });
    expect(result.parts.every((p: { status: string }) => p.status === 'completed')).toBe(true);
    const show = JSON.parse((await runInProcess(['contacts', 'show', '+14155552001', '--json'], own)).stdout);
    expect(show.contact.tags).toEqual(['renewal', 'vip']);
    expect(show.waitingToBePushed).toBe(false);
    const bad = await runInProcess(['run', 'examples/contacts.xlsx', '--contacts', 'README.md'], own);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain(
      '--contacts README.md: give a contact sheet (.xlsx, .xls, .csv) or JSON lines (.jsonl)',
    );
  });

  it('--contacts with a line it rejects runs the campaigns and exits 1, as `contacts push` would', async () => {
    const own = { ...env(), CALLSHEET_DATA_DIR: join(dataDir, 'contacts-rejected') };
    const file = join(dataDir, 'crm.jsonl');
    await writeFile(
      file,
      [
        JSON.stringify({ event_id: 'crm-1', phone_number: '+14155552001', name: 'Ravi Patel' }),
        JSON.stringify({ event_id: 'crm-2', phone_number: 'call me maybe' }),
      ].join('\n'),
    );
    // A contact an earlier push left waiting in the data directory (its API did not answer) is not this file's.
    const earlier = join(dataDir, 'earlier.jsonl');
    await writeFile(earlier, JSON.stringify({ event_id: 'old-1', phone_number: '+14155550999', name: 'Old' }));
    const unpushed = await runInProcess(['contacts', 'push', earlier], {
      ...own,
      VOICE_API_URL: 'http://127.0.0.1:9',
      VOICE_API_KEY: 'nobody-listens',
    });
    expect(unpushed.stdout).toContain('1 contact not pushed');
    const out = await runInProcess(['run', 'examples/contacts.xlsx', '--contacts', file], own);
    expect(out.stderr).toBe('');
    expect(out.code).toBe(1);
    expect(out.stdout).toMatch(/part 1: completed/);
    expect(out.stdout).toContain(`contacts ${file}: 2 event(s), 1 rejected`);
    expect(out.stdout).toContain('  rejected line 2: ');
    expect(out.stdout).toContain(
      `contacts ${file} not synced whole (1 line(s) rejected): the campaigns ran regardless; exit status 1, as \`callsheet contacts push\` gives.`,
    );
  });

  it('--contacts-at drops the contact file at that simulated instant, while the campaign calls', async () => {
    const own = { ...env(), CALLSHEET_DATA_DIR: join(dataDir, 'contacts-at') };
    const at = '2026-12-07T10:20:00-08:00';
    const common = [
      'run',
      'examples/contacts.xlsx',
      '--window',
      'Mon-Fri 10:00-10:40',
      '--now',
      '2026-12-07T08:00:00-08:00',
    ];
    const out = await runInProcess(
      [...common, '--contacts', 'examples/contact-events.jsonl', '--contacts-at', at, '--json'],
      own,
    );
    expect(out.stderr).toBe('');
    expect(out.code).toBe(0);
    const result = JSON.parse(out.stdout);
    expect(result.contacts).toMatchObject({ rows: { total: 5, accepted: 5 }, waitingToBePushed: 0 });
    const show = JSON.parse((await runInProcess(['contacts', 'show', '+14155552001', '--json'], own)).stdout);
    // Pushed on the run's clock after the drop, and before the window's close.
    expect(Date.parse(show.contact.lastPush.at)).toBeGreaterThanOrEqual(Date.parse(at));
    expect(Date.parse(show.contact.lastPush.at)).toBeLessThan(Date.parse('2026-12-07T10:40:00-08:00'));
    const alone = await runInProcess([...common, '--contacts-at', at], own);
    expect(alone.code).toBe(2);
    expect(alone.stderr).toContain('--contacts-at needs --contacts FILE');
    const early = await runInProcess(
      [...common, '--contacts', 'examples/contact-events.jsonl', '--contacts-at', '2026-12-07T07:00:00-08:00'],
      own,
    );
    expect(early.code).toBe(2);
    expect(early.stderr).toContain('before the run starts');
  });

  it('--follow-up says under each part what its follow-up did: the rounds started, or why none', async () => {
    const own = { ...env(), CALLSHEET_DATA_DIR: join(dataDir, 'follow-up') };
    const out = await runInProcess(
      ['run', 'examples/contacts.xlsx', '--retries', '0', '--follow-up', 'no_answer, busy after 2h; rounds 2'],
      own,
    );
    expect(out.stderr).toBe('');
    const lines = out.stdout.split('\n');
    // A new data directory: said under the upload line, in words that name it and how to choose another.
    expect(lines[1]).toBe(
      `  note: ${join(dataDir, 'follow-up')} held no callsheet data, so this started it empty, with an empty ` +
        'do-not-call list (set CALLSHEET_DATA_DIR to use another; the default is .callsheet/ in the current folder)',
    );
    const parts = lines.flatMap((l, i) => (/^part \d+: /.test(l) ? [i] : []));
    expect(parts).toHaveLength(2);
    for (const i of parts)
      expect(lines[i + 1]).toMatch(
        /^ {2}follow-up: (none started \((no contact needs another call|every contact to call again was suppressed or over its cap)\)|round 2 started for \d+ contact\(s\) \(no_answer, busy\), from \S+)(; left out: .+)?$/,
      );
  });

  it('ends when its workflows time out before their start, saying so, with no call made', async () => {
    // An hour's workflow for a start two hours on: a deploy refuses this (cdk synth); here it rehearses the guard.
    // Spawned: the process must end (an ended execution's next task once kept it alive for minutes).
    const out = await runCli(
      ['run', 'examples/contacts.xlsx', '--window', 'Mon-Fri 10:00-10:10', '--now', '2026-12-07T08:00:00-08:00'],
      { ...env(), CALLSHEET_DATA_DIR: join(dataDir, 'timeout'), LIFECYCLE_TIMEOUT_SECONDS: '3600' },
    );
    expect(out.code).toBe(1);
    expect(out.stdout).toContain(
      'note: LIFECYCLE_TIMEOUT_SECONDS=3600 is shorter than START_HORIZON_DAYS (14) plus HOLD_HORIZON_DAYS (14)',
    );
    const parts = out.stdout.split('\n').filter((l) => /^part \d+: /.test(l));
    expect(parts).toHaveLength(2);
    for (const part of parts) expect(part).toMatch(/^part \d: failed, .*the workflow timed out; the guard /);
    expect(out.stdout).toContain('calls: 0 attempted');
  });

  it('exits 1 with the reason when nothing in the sheet can be called', async () => {
    const file = join(dataDir, 'bad.xlsx');
    await writeFile(file, await xlsx([['Phone Number'], ['12'], ['nope']]));
    const out = await runInProcess(['run', file], env());
    expect(out.code).toBe(1);
    expect(out.stderr).toContain('No row has a phone number that can be called');
    // Where to look: the rows by reason and the intake report's path, which exists.
    expect(out.stderr).toContain('rejected rows: 2 invalid_phone');
    const report = out.stderr.match(/intake report: (\S+)/)?.[1] ?? '';
    expect(JSON.parse(await readFile(report, 'utf8')).rejected).toHaveLength(2);
    // status lists it, though it has no campaign, with the reason (README, Operate).
    const status = await runInProcess(['status'], env());
    expect(status.stdout).toMatch(
      /uploads that launched nothing:\n.*\/bad\.xlsx: rejected \(No row has a phone number/,
    );
    // Retries whose calls alone pass the daily cap: said as such, with what to change, before anyone is called.
    const own = join(dataDir, 'capped');
    const capped = await runInProcess(['run', 'examples/contacts.xlsx', '--retries', '3'], {
      ...env(),
      CALLSHEET_DATA_DIR: own,
    });
    expect(capped.code).toBe(1);
    expect(capped.stderr).toContain(
      '3 retries mean up to 4 calls to each number, more than the cap of 3 calls a day (CALL_CAP_PER_DAY)',
    );
    expect(capped.stderr).toContain('rejected rows: 40 daily-cap');
    expect(capped.stderr).not.toContain('the caps count the calls of every run');
    // Function settings set in the shell reach the embedded stack's functions, checked as deployed ones are.
    const shell = { ...env(), CALLSHEET_DATA_DIR: join(dataDir, 'shell') };
    const lower = await runInProcess(['run', 'examples/contacts.xlsx', '--retries', '2'], {
      ...shell,
      CALL_CAP_PER_DAY: '2',
    });
    expect([lower.code, lower.stderr]).toEqual([1, expect.stringContaining('more than the cap of 2 calls a day')]);
    const bad = await runInProcess(['run', 'examples/contacts.xlsx'], { ...shell, LEGAL_HOURS: 'garbage' });
    expect([bad.code, bad.stderr]).toEqual([1, expect.stringContaining('LEGAL_HOURS="garbage": not JSON')]);
    // One only the webhook receiver reads stops the stack as well, nothing left running (it hung before).
    // Spawned: the process must end, which a run in this process would not show.
    const webhooks = await runCli(['run', 'examples/contacts.xlsx'], { ...shell, WEBHOOK_MAX_BODY_BYTES: 'abc' });
    expect([webhooks.code, webhooks.stderr]).toEqual([1, expect.stringContaining('WEBHOOK_MAX_BODY_BYTES="abc"')]);
  });
});

describe('callsheet run, interrupted', () => {
  it("a campaign pause from another shell holds the run's simulated time until the operator moves it on", async () => {
    // 1,000 numbers and ten minutes a day: weeks of simulated calling, far more than the pause needs to find it.
    const sheet = join(dataDir, 'held.csv');
    const numbers = Array.from({ length: 1000 }, (_, i) => `+1415556${String(1000 + i).padStart(4, '0')}`);
    await writeFile(sheet, `Phone Number\n${numbers.join('\n')}\n`);
    const own = { CALLSHEET_DATA_DIR: join(dataDir, 'held'), VOICE_API_URL: '', VOICE_API_KEY: '' };
    const child = spawn(
      process.execPath,
      [BIN, 'run', sheet, '--window', 'Mon-Fri 10:00-10:10', '--now', '2026-12-07T09:55:00-08:00'],
      { env: { ...process.env, ...own } },
    );
    let stdout = '';
    let stderr = '';
    const said = (text: string) =>
      new Promise<void>((resolve) => {
        const check = () => stdout.includes(text) && resolve();
        check();
        child.stdout.on('data', check);
      });
    child.stdout.on('data', (d) => {
      stdout += d;
    });
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    const closed = once(child, 'close');
    // A failing check leaves no run behind.
    try {
      await Promise.race([said('uploaded as'), closed]);
      // The operator, in another shell, finds the campaign and pauses it.
      let id = '';
      while (!id && child.exitCode === null) {
        const listed = JSON.parse((await runInProcess(['campaign', 'list', '--json'], own)).stdout || '[]');
        id = listed[0]?.campaignId ?? '';
      }
      // Once it dials: before 10:00 on the run's clock the campaign is still `scheduled`, which the API cannot pause
      // (409), and the pause would be left to the workflow.
      const api = (await readRunningStack(own.CALLSHEET_DATA_DIR))?.voiceApi?.url;
      const status = async () =>
        (
          (await (await fetch(`${api}/_emulator/state`)).json()) as { campaigns: { id: string; status: string }[] }
        ).campaigns.find((c) => c.id === id)?.status;
      while (child.exitCode === null && (await status()) !== 'active') await new Promise((r) => setTimeout(r, 20));
      expect((await runInProcess(['campaign', 'pause', id], own)).stdout).toContain('paused on the Voice API now');
      await Promise.race([said('paused by an operator: simulated time stands still'), closed]);
      expect(child.exitCode, `${stdout}\n${stderr}`).toBe(null);
      // Whatever real time passes between two looks, the run's clock does not move.
      const clock = async () => /, at (\S+)\n/.exec((await runInProcess(['status'], own)).stdout)?.[1];
      const first = await clock();
      expect(first).toMatch(/^2026-12-/);
      expect(await clock()).toBe(first);
      expect((await runInProcess(['status'], own)).stdout).toMatch(new RegExp(`${id}\\s+paused \\(manual\\)`));
      await runInProcess(['campaign', 'cancel', id], own);
      const [code] = await closed;
      expect(stdout).toContain('an operator moved the run on; simulated time runs again.');
      expect(stdout).toMatch(/^part 1: cancelled,/m);
      // Exit 0 is for a run whose parts all completed.
      expect(code, `${stdout}\n${stderr}`).toBe(1);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  }, 120_000);

  // The terminal closing (SIGHUP) and a plain `kill` (SIGTERM), as the README says.
  it.each(['SIGHUP', 'SIGTERM'] as const)(
    'stops as on Ctrl-C on %s: the parts interrupted, not left running',
    async (signal) => {
      const data = join(dataDir, `stopped-by-${signal}`);
      const child = spawn(
        process.execPath,
        [BIN, 'run', 'examples/contacts.xlsx', '--window', 'Mon-Fri 10:00-10:10', '--now', '2026-12-07T08:00:00-08:00'],
        { env: { ...process.env, CALLSHEET_DATA_DIR: data, VOICE_API_URL: '', VOICE_API_KEY: '' } },
      );
      let stdout = '';
      const uploaded = new Promise<void>((resolve) =>
        child.stdout.on('data', (d) => {
          stdout += d;
          if (stdout.includes('uploaded as')) resolve();
        }),
      );
      const closed = once(child, 'close');
      await Promise.race([uploaded, closed]);
      child.kill(signal);
      const [code] = await closed;
      expect(code, stdout).toBe(130);
      expect(stdout).toMatch(/^part \d+: interrupted,/m);
      // Nothing left recorded as running for a workflow that no longer exists.
      const listed = JSON.parse(
        (
          await runInProcess(['campaign', 'list', '--json'], {
            CALLSHEET_DATA_DIR: data,
            VOICE_API_URL: '',
            VOICE_API_KEY: '',
          })
        ).stdout,
      ) as { status: string }[];
      expect(listed.map((r) => r.status).filter((s) => s === 'running' || s === 'creating')).toEqual([]);
    },
  );

  it('stops the workflows on Ctrl-C and reports the parts as interrupted, not failed', async () => {
    // The signal comes as soon as the upload is in: the lifecycles of both parts are still to run.
    const child = spawn(
      process.execPath,
      [
        BIN,
        'run',
        'examples/contacts.xlsx',
        '--window',
        'Mon-Fri 10:00-10:10',
        '--now',
        '2026-12-07T08:00:00-08:00',
        '--faults',
        'examples/faults/slow-api.json',
      ],
      {
        env: { ...process.env, CALLSHEET_DATA_DIR: join(dataDir, 'interrupted'), VOICE_API_URL: '', VOICE_API_KEY: '' },
      },
    );
    let stdout = '';
    let stderr = '';
    const uploaded = new Promise<void>((resolve) =>
      child.stdout.on('data', (d) => {
        stdout += d;
        if (stdout.includes('uploaded as')) resolve();
      }),
    );
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    const closed = once(child, 'close');
    await Promise.race([uploaded, closed]);
    child.kill('SIGINT');
    const [code] = await closed;
    expect(code, `${stdout}\n${stderr}`).toBe(130);
    expect(stderr).toContain('stopping: the workflows stop now');
    const lines = stdout.split('\n').filter((l) => /^part \d+: /.test(l));
    expect(lines, `${stdout}\n${stderr}`).toHaveLength(2);
    for (const line of lines) expect(line).toMatch(/^part \d+: (interrupted|completed),/);
    expect(lines.some((l) => l.includes(': interrupted,'))).toBe(true);
    // The safety net acted on each stopped part and recorded what came of it (README, Ctrl-C): paused, or not active
    // (a campaign that had ended already); braked where
    // the pause could not be confirmed (a campaign still waiting for its start cannot be paused); nothing where no
    // campaign was made; unconfirmed where the slow API answered neither before the stack stopped.
    const listed = JSON.parse(
      (
        await runInProcess(['campaign', 'list', '--json'], {
          CALLSHEET_DATA_DIR: join(dataDir, 'interrupted'),
          VOICE_API_URL: '',
          VOICE_API_KEY: '',
        })
      ).stdout,
    ) as { partKey: string; part: number; status: string; secured?: { by: string; outcome: string } }[];
    // The record holds the latest securing, which may be newer than the summary printed: the sweeper retries an
    // unconfirmed pause or one the brake alone holds, and a step that was running when its workflow stopped secures
    // again on its way out.
    const stopped = listed.filter((r) => r.status === 'failed');
    expect(stopped.length).toBeGreaterThan(0);
    for (const r of stopped)
      expect([r.partKey, r.secured?.by, r.secured?.outcome]).toEqual([
        r.partKey,
        expect.stringMatching(/^(guard|sweeper|workflow)$/),
        expect.stringMatching(/^(paused|not_active|braked|nothing|unconfirmed)$/),
      ]);
    // The run says it under each part, in words: nothing watches a campaign once the run has ended.
    const said: Record<string, RegExp> = {
      paused: /the (guard|sweeper) left the campaign paused$/m,
      not_active: /the (guard|sweeper) left the campaign not dialling \(the API says it is no longer active\)$/m,
      braked:
        /the (guard|sweeper) left the campaign (braked: its pause was not confirmed, so its agent is switched off|paused, and its agent switched off too: a resume sent earlier may still land)$/m,
      nothing: /before it created a campaign; nobody was called$/m,
      unconfirmed:
        /left the campaign unconfirmed: the API answered neither its pause nor the brake\n {2}the local emulator stopped with the run: it dials no one after it$/m,
    };
    for (const r of stopped) {
      const block = stdout.split(/\n(?=part \d+: )/).find((b) => b.startsWith(`part ${r.part}: `)) ?? '';
      expect(
        Object.values(said).some((words) => words.test(block)),
        stdout,
      ).toBe(true);
    }
  }, 120_000);

  it('goes on to its end when its reader stops early (`| head -1`), without a stack trace', async () => {
    const dir = join(dataDir, 'piped');
    const child = spawn(process.execPath, [BIN, 'run', 'examples/contacts.xlsx'], {
      env: { ...process.env, CALLSHEET_DATA_DIR: dir, VOICE_API_URL: '', VOICE_API_KEY: '' },
    });
    let stderr = '';
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    const closed = once(child, 'close');
    // The reader goes away after the first line, as `head -1` does; every later line meets a closed pipe.
    await new Promise<void>((resolve) => child.stdout.once('data', () => resolve()));
    child.stdout.destroy();
    const [code] = await closed;
    expect(stderr).not.toMatch(/EPIPE|Error/);
    expect(code, stderr).toBe(0);
    // It ran to its end: the parts' reports are in the data directory.
    const listed = JSON.parse((await runInProcess(['campaign', 'list', '--json'], { CALLSHEET_DATA_DIR: dir })).stdout);
    expect(listed.map((c: { status: string }) => c.status)).toEqual(['completed', 'completed']);
  }, 120_000);
});
