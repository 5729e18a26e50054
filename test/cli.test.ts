import { type ChildProcess, spawn } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { VoiceApiClient } from '#commons/voice-api/index.ts';
import { hoursFor } from '#local/cli/hours-for.ts';
import { BIN, runInProcess } from './helpers/cli.ts';

const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) c.kill('SIGTERM');
});

// Help, `hours` and the demo: their output and exit status are the point, so they run in this process; the emulator,
// which runs until stopped, is spawned (`startCli`). test/cli-bundle.test.ts runs the compiled CLI itself.
const run = runInProcess;

/** Starts `callsheet emulator` and resolves with its URL once it says it is listening. */
function startCli(args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ url: string; stderr: () => string }> {
  const child = spawn(process.execPath, [BIN, 'emulator', ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let stderr = '';
  child.stderr.on('data', (d) => {
    stderr += d;
  });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      const m = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (m) resolve({ url: m[1] as string, stderr: () => stderr });
    });
    child.once('exit', (code) => reject(new Error(`emulator exited with ${code}: ${stderr}`)));
  });
}

describe('callsheet CLI', () => {
  it('shows help for the tool and for every command', async () => {
    const top = await run(['--help']);
    expect(top.code).toBe(0);
    expect(top.stdout).toContain('usage: callsheet <command>');
    for (const name of ['emulator', 'demo']) {
      expect(top.stdout).toContain(name);
      const help = await run([name, '--help']);
      expect(help.code).toBe(0);
      expect(help.stdout).toContain(`usage: callsheet ${name}`);
    }
    const unknown = await run(['frobnicate']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('unknown command');
    const badOption = await run(['emulator', '--port', 'abc']);
    expect(badOption.code).toBe(2);
    expect(badOption.stderr).toContain('--port must be a number');
  });

  it('hours --json prints every answer as indented JSON, numbers that share their hours and errors alike', async () => {
    const on = '2026-12-07';
    // Two numbers of one area code share all but their phone; 208 spans two zones; the last is no number.
    const phones = ['+12125550143', '+12125550188', '+12085550143', '+33612345678', '+3361234'];
    const out = await run(['hours', ...phones, '--on', on, '--json']);
    expect(out.code).toBe(1);
    const answers = phones.map((phone) => {
      const a = hoursFor(phone, { on });
      return { on, ...('error' in a ? { phone, error: a.error } : a) };
    });
    expect(answers.filter((a) => 'error' in a).map((a) => a.phone)).toEqual(['+3361234']);
    expect(out.stdout).toBe(`${JSON.stringify(answers, null, 2)}\n`);
    // An upload window narrows the answer and is listed among the rules that made it.
    const windowed = await run(['hours', '+12125550143', '--on', on, '--window', 'Mon-Fri 10:00-11:00']);
    expect(windowed.stdout).toContain('a call may start 10:00-11:00 America/New_York');
    expect(windowed.stdout).toContain("    upload Mon-Fri 10:00-11:00 [--window] the upload's own calling window");
    expect(windowed.stdout).not.toContain('note:');
    // A window written backwards is answered as given, and said, as intake says it of an upload.
    const backwards = await run(['hours', '+12125550143', '--on', on, '--window', 'Mon-Fri 17:00-09:00']);
    expect(backwards.stdout).toContain(
      'note: the calling window Mon,Tue,Wed,Thu,Fri 17:00-09:00 runs past midnight into the next morning; if you meant the daytime, write the earlier time first',
    );
    const windowedJson = await run(['hours', '+12125550143', '--on', on, '--window', 'Mon-Fri 10:00-11:00', '--json']);
    expect(JSON.parse(windowedJson.stdout)).toEqual([
      expect.objectContaining({
        window: 'Mon-Fri 10:00-11:00',
        allowed: [expect.objectContaining({ from: `${on}T10:00:00-05:00` })],
      }),
    ]);
    // A window that does not parse (or is empty) is the flag's mistake, said once, not blamed on the number.
    for (const [bad, why] of [
      ['Mon-Fri 9-5', '"9" is not a time of day'],
      ['', 'the calling window is empty'],
    ] as const) {
      const refused = await run(['hours', '+12125550143', '+14155550100', '--window', bad]);
      expect([refused.code, refused.stdout, refused.stderr]).toEqual([
        2,
        '',
        expect.stringContaining(`callsheet hours: --window: ${why}`),
      ]);
    }
    // A day that does not exist is a usage mistake, said as such (not rolled over to March 2nd).
    for (const bad of ['2026-13-45', '2026-02-30']) {
      const refused = await run(['hours', '+12125550143', '--on', bad]);
      expect([refused.code, refused.stderr]).toEqual([2, expect.stringContaining(`--on ${bad} is not a date`)]);
    }
  });

  it('runs the emulator with a given key and speed; the key is required and never printed', async () => {
    const emu = await startCli(['--port', '0', '--api-key', 'cli-key-123', '--speed', '0', '--seed', 's1']);
    const api = new VoiceApiClient({ baseUrl: emu.url, apiKey: 'cli-key-123', requestsPerMinute: 0 });
    const agent = await api.agents.create({ name: 'From the CLI' });
    expect(agent.is_active).toBe(true);
    const state = await (await fetch(`${emu.url}/_emulator/state`)).json();
    expect(state).toMatchObject({ speed: 0, seed: 's1' });
    const wrong = new VoiceApiClient({ baseUrl: emu.url, apiKey: 'nope', requestsPerMinute: 0 });
    await expect(wrong.agents.list()).rejects.toMatchObject({ status: 401 });
    expect(emu.stderr()).not.toContain('cli-key-123');
  });

  it('takes the key from VOICE_API_KEY', async () => {
    const emu = await startCli(['--port', '0'], { VOICE_API_KEY: 'env-key-456' });
    const api = new VoiceApiClient({ baseUrl: emu.url, apiKey: 'env-key-456', requestsPerMinute: 0 });
    expect(await api.phoneNumbers.list()).not.toHaveLength(0);
  });

  it('runs the demo end to end and reports a finished campaign and verified webhooks', async () => {
    const demo = await run(['demo', '--json', '--seed', 'cli-test']);
    expect(demo.stderr).toBe('');
    expect(demo.code).toBe(0);
    const summary = JSON.parse(demo.stdout);
    expect(summary.campaign.stats.total).toBe(40);
    expect(summary.campaign.stats.pending + summary.campaign.stats.in_progress).toBe(0);
    expect(summary.webhooks.verified).toBeGreaterThan(40);
    expect(summary.webhooks.rejected).toBe(0);
    expect(summary.tts.bytes).toBeGreaterThan(44);
    // A sheet the API's campaigns cannot take is refused before the tour starts, as a usage mistake.
    const csv = await run(['demo', '--sheet', 'examples/contacts.csv']);
    expect([csv.code, csv.stdout]).toEqual([2, '']);
    expect(csv.stderr).toContain(
      "--sheet examples/contacts.csv: the Voice API takes a campaign's contacts as .xlsx or .xls only",
    );
    const missing = await run(['demo', '--sheet', 'no-such.xlsx']);
    expect([missing.code, missing.stdout]).toEqual([2, '']);
  });
});
