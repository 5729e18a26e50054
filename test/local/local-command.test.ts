import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ListObjectsV2Command, PutObjectCommand } from '@aws-sdk/client-s3';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { documentClient, readAwsSettings, s3Client } from '#commons/aws/clients.ts';
import { EnvReader } from '#commons/config.ts';
import { VoiceApiClient } from '#commons/voice-api/index.ts';
import { CampaignStore } from '#lifecycle/campaign-store.ts';
import type { UnlaunchedUpload } from '#local/cli/operator.ts';
import { EmulatorAdmin } from '#local/emulator/admin-client.ts';
import { readRunningStack } from '#local/stack/running-stack.ts';
import { BIN, runCli, runInProcess } from '../helpers/cli.ts';

/**
 * `callsheet local` as a user runs it: spawned, driven by the real AWS CLI with nothing but the printed exports,
 * operated with `callsheet campaign`, its report read back from S3 and its HTML page opened in Chromium. The
 * commands a user types reach the stack only through those exports; they run in this process (`runInProcess`),
 * except `status --watch`, which is stopped with a signal.
 */
const run = promisify(execFile);
const CHROMIUM = '/usr/bin/chromium';
// Noon in New York, 09:00 in San Francisco: the 415 numbers' legal window (08:00-21:00) is open from the start.
const NOW = '2026-12-07T12:00:00-05:00';
// One line for forty numbers: about eighty simulated minutes of calls, eight real seconds at the stack's 600×, so the
// operator's pause lands while the campaign dials however busy the machine is. Once it holds, the test gives the
// emulator a line per number and the rest of the campaign takes a few simulated minutes.
const NUMBERS = Array.from({ length: 40 }, (_, i) => `+1415555${String(201 + i).padStart(4, '0')}`);

let dataDir: string;
let stack: ChildProcess;
const exported: Record<string, string> = {};
let stderr = '';
let campaignId = '';
let emulatorUrl = '';

/** The environment a user has after pasting the export lines (and nothing else of ours). */
const userEnv = () => ({ ...process.env, ...exported, VOICE_API_URL: '', VOICE_API_KEY: '' });
const aws = async (...args: string[]) => (await run('aws', args, { env: userEnv(), timeout: 120_000 })).stdout;
const callsheet = (...args: string[]) => runInProcess(args, userEnv());
const settings = () => readAwsSettings(new EnvReader(userEnv()));

async function campaignJson(id?: string): Promise<Record<string, unknown>[]> {
  const out = await callsheet('campaign', 'list', '--json');
  expect(out.stderr).toBe('');
  const all = JSON.parse(out.stdout) as Record<string, unknown>[];
  return id ? all.filter((r) => r.campaignId === id) : all;
}

/**
 * The campaigns table of the running stack, read here through the exported variables: the waits below ask it every
 * quarter second, a table scan each time rather than a whole `callsheet campaign list`. What the test asserts once
 * a wait is over, it reads with `callsheet`.
 */
let tables: ReturnType<typeof documentClient> | undefined;
async function campaignRecords(id?: string): Promise<Record<string, unknown>[]> {
  tables ??= documentClient(settings());
  const items = (await tables.send(new ScanCommand({ TableName: 'callsheet-campaigns' }))).Items ?? [];
  return items.filter((r) => r.campaignId !== undefined && (id === undefined || r.campaignId === id));
}

/**
 * Asks again until `check` holds (the stack runs in another process, at its own simulated pace, which a machine busy
 * with the rest of the suite slows down): up to 100 s, within each test's own limit, so a stall says what it awaited.
 */
async function until<T>(what: string, read: () => Promise<T>, check: (v: T) => boolean): Promise<T> {
  const deadline = Date.now() + 100_000;
  while (Date.now() < deadline) {
    const v = await read();
    if (check(v)) return v;
    await new Promise((r) => setTimeout(r, 250));
  }
  const logged = await readFile(join(dataDir, 'local.log'), 'utf8').catch(() => '');
  throw new Error(`gave up waiting for ${what} after 100 s\n${stderr.slice(-2000)}\n${logged.slice(-2000)}`);
}

beforeAll(async () => {
  // The real tools are the point of this test: say how to get them rather than fail obscurely.
  const missing = [
    ...(await run('aws', ['--version']).then(
      () => [],
      () => ["the AWS CLI (pip install 'awscli>=1.29')"],
    )),
    ...(existsSync(CHROMIUM) ? [] : [`${CHROMIUM} (apt-get install chromium)`]),
  ];
  if (missing.length > 0)
    throw new Error(`this test drives ${missing.join(' and ')}; .ci/run installs them when missing`);
  dataDir = await mkdtemp(join(tmpdir(), 'callsheet-local-'));
  await runCli(['--help']); // brings the compiled CLI up to date before the long-running spawn
  stack = spawn(
    process.execPath,
    [BIN, 'local', '--port-base', '0', '--speed', '600', '--now', NOW, '--concurrency', '1'],
    // Looks at most two simulated minutes apart (a fifth of a second here), not the default 15: the waits below
    // are for what the workflow does at its next look.
    {
      env: { ...process.env, CALLSHEET_DATA_DIR: dataDir, POLL_MAX_SECONDS: '120' },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  stack.stderr?.on('data', (d) => {
    stderr += d;
  });
  let stdout = '';
  await new Promise<void>((resolve, reject) => {
    stack.stdout?.on('data', (d) => {
      stdout += d;
      if (stdout.includes('# ready')) resolve();
    });
    stack.once('exit', (code) => reject(new Error(`callsheet local exited ${code}: ${stderr}`)));
  });
  for (const m of stdout.matchAll(/^export (\w+)=(\S+)$/gm)) exported[m[1] as string] = m[2] as string;
  emulatorUrl = /^# Voice API emulator (\S+)/m.exec(stdout)?.[1] ?? '';
}, 60_000);

afterAll(async () => {
  tables?.destroy();
  if (stack && stack.exitCode === null) stack.kill('SIGKILL');
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

describe('callsheet local', () => {
  it('prints the standard AWS variables and refuses a second stack on the same data directory', async () => {
    expect(Object.keys(exported)).toEqual(
      expect.arrayContaining([
        'AWS_ENDPOINT_URL_S3',
        'AWS_ENDPOINT_URL_DYNAMODB',
        'AWS_ENDPOINT_URL_SFN',
        'AWS_ENDPOINT_URL_EVENTBRIDGE',
        'AWS_ACCESS_KEY_ID',
        'AWS_SECRET_ACCESS_KEY',
        'AWS_REGION',
        'CALLSHEET_BUCKET',
        'CALLSHEET_EVENT_BUS',
        'CALLSHEET_AGENT_ID',
      ]),
    );
    const second = await runCli(['local', '--port-base', '0'], { CALLSHEET_DATA_DIR: dataDir });
    expect(second.code).toBe(1);
    expect(second.stderr).toContain(`callsheet local (process ${stack.pid}) is using the data directory`);
  });

  it('runs an upload made with the AWS CLI; campaign pauses and resumes it; the report and its page are read back', async () => {
    const sheet = join(dataDir, 'sheet.csv');
    await writeFile(
      sheet,
      ['Phone Number,Name', ...NUMBERS.map((n, i) => `${n},Contact ${i}`), 'nope,Bad row'].join('\n'),
    );
    const bucket = exported.CALLSHEET_BUCKET as string;
    await aws('s3', 'cp', sheet, `s3://${bucket}/incoming/${exported.CALLSHEET_AGENT_ID}/`);

    await until(
      'the campaign',
      () => campaignRecords(),
      (r) => r.length > 0,
    );
    const [created] = await campaignJson();
    const id = created?.campaignId as string;
    campaignId = id;
    const uploadId = created?.uploadId as string;
    const paused = await callsheet('campaign', 'pause', id);
    expect(paused.stdout).toContain(`pause requested for campaign ${id}`);
    // The dialling stops now, not at the workflow's next look: the emulator has the campaign paused already.
    expect(paused.stdout).toContain('paused on the Voice API now; its workflow records it at its next step');
    const emulatorState = (await (await fetch(`${emulatorUrl}/_emulator/state`)).json()) as {
      campaigns: { id: string; status: string }[];
    };
    expect(emulatorState.campaigns.find((c) => c.id === id)?.status).toBe('paused');
    // Stamped on the stack's simulated clock (from NOW, at 600×), like the rest of the campaign's timeline.
    const asked = (await campaignJson(id))[0]?.control as { wanted: string; at: string };
    expect(asked.wanted).toBe('pause');
    expect(Date.parse(asked.at)).toBeGreaterThanOrEqual(Date.parse(NOW));
    expect(Date.parse(asked.at)).toBeLessThan(Date.parse(NOW) + 2 * 86_400_000);
    type Timeline = { event: string; reason: string }[] | undefined;
    const timeline = async () => (await campaignRecords(id))[0]?.timeline as Timeline;
    const manual = (event: string) => (t: Timeline) => !!t?.some((e) => e.event === event && e.reason === 'manual');
    await until('the manual pause', timeline, manual('pause'));
    expect(manual('pause')((await campaignJson(id))[0]?.timeline as Timeline)).toBe(true);
    const status = await callsheet('status');
    expect(status.stdout).toMatch(new RegExp(`${id}\\s+paused \\(manual\\)`));
    // --watch redraws until Ctrl-C.
    const watch = spawn(process.execPath, [BIN, 'status', '--watch', '--every', '0.2'], {
      env: userEnv(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let frames = '';
    let watchErr = '';
    watch.stderr?.on('data', (d) => {
      watchErr += d;
    });
    const watchExit = once(watch, 'exit');
    // Two frames naming the campaign; a watch that ends before them fails here with what it said, not at the timeout.
    await new Promise<void>((resolve, reject) => {
      watch.stdout?.on('data', (d) => {
        frames += d;
        if (frames.split(id).length > 2) resolve();
      });
      void watchExit.then(([code]) =>
        reject(new Error(`status --watch exited (${code}) early:\n${frames}\n${watchErr}`)),
      );
    });
    watch.kill('SIGINT');
    expect((await watchExit)[0]).toBe(0);
    expect(frames).toMatch(/\[[#.]{20}\] \d+\/40/);

    await new EmulatorAdmin(emulatorUrl).configure({ concurrency: NUMBERS.length });
    expect((await callsheet('campaign', 'resume', id)).stdout).toContain(`resume requested for campaign ${id}`);
    await until('the manual resume', timeline, manual('resume'));
    await until(
      'the end of the campaign',
      () => campaignRecords(id),
      (r) => r[0]?.status === 'completed',
    );
    const [ended] = await campaignJson(id);
    expect(ended?.status).toBe('completed');
    expect(manual('resume')(ended?.timeline as Timeline)).toBe(true);

    // The AWS CLI reads what the stack wrote: reports, tables, executions.
    const s3 = s3Client(settings());
    const reportKeys = async () =>
      (
        (await s3.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: `reports/${uploadId}/` }))).Contents ?? []
      ).map((o) => o.Key);
    await until('the HTML page', reportKeys, (keys) => keys.includes(`reports/${uploadId}/part-1.html`));
    s3.destroy();
    const copied = join(dataDir, 'copied');
    await aws('s3', 'cp', '--recursive', `s3://${bucket}/reports/${uploadId}/`, copied);
    // The stack's log lines are in the data directory; the terminal shows only warnings and errors.
    expect(await readFile(join(dataDir, 'local.log'), 'utf8')).toMatch(/"level":"INFO"/);
    expect(stderr).not.toMatch(/"level":"INFO"/);
    const report = JSON.parse(await readFile(join(copied, 'part-1.json'), 'utf8'));
    expect(report).toMatchObject({ campaignId: id, status: 'completed' });
    expect(report.pauses).toContainEqual(expect.objectContaining({ reason: 'manual' }));
    const scan = JSON.parse(await aws('dynamodb', 'scan', '--table-name', 'callsheet-campaigns'));
    const part = scan.Items.find((i: { campaignId?: { S: string } }) => i.campaignId?.S === id);
    expect(part).toBeDefined();
    // The parts by status, as the sweeper finds them (README, the local stack).
    const byStatus = JSON.parse(
      await aws(
        'dynamodb',
        'query',
        '--table-name',
        'callsheet-campaigns',
        '--index-name',
        'by-status',
        '--key-condition-expression',
        '#s = :s',
        '--expression-attribute-names',
        '{"#s":"status"}',
        '--expression-attribute-values',
        '{":s":{"S":"completed"}}',
      ),
    );
    expect(byStatus.Items).toContainEqual(expect.objectContaining({ pk: part.pk, status: { S: 'completed' } }));
    const executions = JSON.parse(
      await aws(
        'stepfunctions',
        'list-executions',
        '--state-machine-arn',
        exported.CALLSHEET_STATE_MACHINE_ARN as string,
      ),
    );
    expect(executions.executions).toContainEqual(expect.objectContaining({ status: 'SUCCEEDED' }));

    // callsheet report copies the files to a real folder and prints their paths.
    const out = await callsheet('report', id);
    expect(out.stdout).toContain(`campaign ${id}: completed; 40 contacts`);
    const page = out.stdout.split('\n').find((l) => l.endsWith('part-1.html')) as string;
    expect(existsSync(page)).toBe(true);
    expect(await readFile(page, 'utf8')).toBe(await readFile(join(copied, 'part-1.html'), 'utf8'));

    const browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
    try {
      const tab = await browser.newPage();
      await tab.goto(`file://${page}`);
      expect(await tab.textContent('#status')).toContain('completed');
      expect(await tab.textContent('#campaign-id')).toBe(id);
      const timeline = await tab.locator('#timeline tbody tr').allTextContents();
      expect(timeline.some((t) => t.includes('paused: by an operator'))).toBe(true);
      expect(timeline.some((t) => t.includes('resumed'))).toBe(true);
      expect(await tab.locator('#outcomes tbody tr').count()).toBe(NUMBERS.length);
      expect(await tab.textContent('#rejected')).toContain('nope');
      // The chart: the calls-finished line and the operator's pause as a shaded stretch, both drawn.
      const box = await tab.locator('#chart rect.paused.manual').first().boundingBox();
      expect(box?.width).toBeGreaterThan(0);
      expect(await tab.locator('#chart path.finished').getAttribute('d')).toMatch(/V/);
      // Drawn from the stats sampled while the campaign ran.
      expect(await tab.textContent('.legend')).toMatch(
        /calls finished \(40 of 40; \d+ samples of the campaign's stats\)/,
      );
      expect(await tab.locator('#chart path.completed').count()).toBe(1);
      // The calling window (08:00-21:00 in San Francisco) was open for the whole campaign: one strip.
      expect(await tab.locator('#chart rect.window-open').count()).toBe(1);
    } finally {
      await browser.close();
    }
  }, 240_000);

  it('campaign release pauses the campaign first, refuses while the API will not confirm it, then lets go', async () => {
    // The campaign above ended; a brake is made to hold as the guard leaves one: the agent off, the part holding it.
    const running = await readRunningStack(dataDir);
    if (!running?.voiceApi) throw new Error('the running stack names no emulator');
    const api = new VoiceApiClient({ baseUrl: running.voiceApi.url, apiKey: running.voiceApi.apiKey });
    const admin = new EmulatorAdmin(running.voiceApi.url);
    const agentId = exported.CALLSHEET_AGENT_ID as string;
    const [record] = await campaignRecords(campaignId);
    const partKey = record?.partKey as string;
    tables ??= documentClient(settings());
    const store = new CampaignStore(tables, 'callsheet-campaigns');
    await store.hold(agentId, partKey, new Date());
    if ((await api.agents.get(agentId)).is_active) await api.agents.toggle(agentId);

    // Neither the pause nor the stats answer: nothing confirms the campaign paused, so the brake stays on.
    await admin.faultPlan([
      { method: 'PATCH', path: '/campaigns/*/pause', status: 500 },
      { method: 'GET', path: '/campaigns/*/stats', status: 500 },
    ]);
    const refused = await callsheet('campaign', 'release', campaignId);
    await admin.faultPlan([]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('could not be confirmed paused');
    expect(refused.stderr).toContain('the brake stays on');
    expect(await store.isHeldBy(agentId, partKey)).toBe(true);
    expect((await api.agents.get(agentId)).is_active).toBe(false);

    const released = await callsheet('campaign', 'release', campaignId);
    expect(released.stdout).toContain(`campaign ${campaignId} let go of the brake; agent ${agentId} is active again.`);
    expect(released.code).toBe(0);
    expect(await store.isHeldBy(agentId, partKey)).toBe(false);
    expect((await api.agents.get(agentId)).is_active).toBe(true);
    expect((await store.get(partKey))?.secured).toMatchObject({ by: 'operator', outcome: 'paused', pauseHeld: true });
    expect((await store.get(partKey))?.timeline?.at(-1)).toMatchObject({ event: 'brake released', reason: 'operator' });
  });

  it('callsheet run on the same data directory is a client of the running stack', async () => {
    const sheet = join(dataDir, 'run.csv');
    // One number without its country code: --country is the upload's own default country here.
    await writeFile(sheet, ['Phone Number', '+14155550301', '+14155550302', '(415) 555-0303'].join('\n'));
    const out = await callsheet('run', sheet, '--country', 'US', '--json');
    expect(out.stderr).toBe('');
    expect(out.code).toBe(0);
    const result = JSON.parse(out.stdout);
    expect(result.upload).toMatch(new RegExp(`^s3://callsheet-uploads/incoming/${exported.CALLSHEET_AGENT_ID}/run-`));
    expect(result.summary).toMatchObject({ rows: 3, accepted: 3, rejected: 0, suppressed: 0 });
    expect(result.summary.attempted).toBeGreaterThanOrEqual(3);
    expect(result.parts).toEqual([expect.objectContaining({ status: 'completed' })]);
    expect(existsSync(result.parts[0].page)).toBe(true);
    expect(JSON.parse(await readFile(result.parts[0].file, 'utf8')).campaignId).toBe(result.parts[0].campaignId);
    expect(result.parts[0].duration).toMatch(/^P(\d+D)?(T(\d+H)?(\d+M)?(\d+S)?)?$/);
    // The same commands on a "deployed" stack, pointed only by the usual variables (here: the running stand-ins).
    const deployed = {
      ...userEnv(),
      CALLSHEET_DATA_DIR: join(dataDir, 'elsewhere'),
      CAMPAIGNS_TABLE: 'callsheet-campaigns',
      CALLSHEET_BUCKET: exported.CALLSHEET_BUCKET as string,
    };
    const listed = await runInProcess(['campaign', 'list'], deployed);
    expect(listed.stdout).toContain(result.parts[0].campaignId);
    const fetched = await runInProcess(
      ['report', result.parts[0].campaignId, '--out', join(dataDir, 'fetched')],
      deployed,
    );
    expect(fetched.stdout).toContain(`campaign ${result.parts[0].campaignId}: completed; 3 contacts`);
    expect(existsSync(join(dataDir, 'fetched', 'part-1.html'))).toBe(true);
    // Every file of the part and its upload that the bucket holds, each printed where it was copied.
    for (const name of ['part-1.json', 'outcomes-part-1.csv', 'stats-part-1.json', 'report.json', 'annotated.xlsx'])
      expect(fetched.stdout).toContain(join(dataDir, 'fetched', name));
    // status reads the uploads table that UPLOADS_TABLE names, beside the campaigns: a refused upload, with why.
    const nothing = join(dataDir, 'nothing.csv');
    await writeFile(nothing, ['Phone Number', 'not a number'].join('\n'));
    const s3 = s3Client(settings());
    await s3.send(
      new PutObjectCommand({
        Bucket: exported.CALLSHEET_BUCKET,
        Key: `incoming/${exported.CALLSHEET_AGENT_ID}/nothing.csv`,
        Body: await readFile(nothing),
      }),
    );
    s3.destroy();
    const statusJson = async (env: NodeJS.ProcessEnv) => {
      const out = await runInProcess(['status', '--json'], env);
      expect(out.stderr).toBe('');
      return JSON.parse(out.stdout) as {
        parts: unknown[];
        unlaunched: UnlaunchedUpload[] | null;
        unlaunchedNote?: string;
      };
    };
    const refusedUpload = (s: { unlaunched: UnlaunchedUpload[] | null }) =>
      s.unlaunched?.find((u) => u.key.endsWith('/nothing.csv'));
    const withUploads = await until(
      'the refused upload in status',
      () => statusJson({ ...deployed, UPLOADS_TABLE: 'callsheet-uploads' }),
      (s) => refusedUpload(s) !== undefined,
    );
    expect(refusedUpload(withUploads)).toMatchObject({ status: 'rejected', reason: expect.stringMatching(/\S/) });
    // Without the variable the uploads are not looked for; a table it cannot read is named, the campaigns still shown.
    expect((await statusJson(deployed)).unlaunched).toBeNull();
    const unreadable = await statusJson({ ...deployed, UPLOADS_TABLE: 'callsheet-no-such-table' });
    expect(unreadable.unlaunched).toBeNull();
    expect(unreadable.unlaunchedNote).toContain('not read from callsheet-no-such-table');
    expect(unreadable.parts.length).toBeGreaterThan(0);
    // What belongs to the running stack is refused, not silently ignored.
    const refused = await callsheet('run', sheet, '--credits', '5');
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(`callsheet local (process ${stack.pid}) runs on ${dataDir}`);
  }, 120_000);

  it('syncs contacts copied under contacts/ and put on the bus with the AWS CLI, and pushed with callsheet', async () => {
    const phone = '+14155550401';
    const file = join(dataDir, 'events.jsonl');
    await writeFile(
      file,
      [
        { event_id: 'e2e-1', phone_number: phone, name: 'Nia', tags: ['vip'], note: 'from the file' },
        { event_id: 'e2e-2', phone_number: phone, tags: ['renewal', 'vip'], note: 'second change' },
      ]
        .map((e) => JSON.stringify(e))
        .join('\n'),
    );
    await aws('s3', 'cp', file, `s3://${exported.CALLSHEET_BUCKET}/contacts/`);
    const shown = async () => {
      const out = await callsheet('contacts', 'show', phone, '--json');
      return out.code === 0 ? JSON.parse(out.stdout) : null;
    };
    const synced = await until('the contact file', shown, (c) => c?.notes.length === 2 && !c.waitingToBePushed);
    expect(synced.contact).toMatchObject({ fields: { contact_name: 'Nia' }, tags: ['vip', 'renewal'] });

    // The bus takes what the deployed bus takes: a change and a replay of the file's first event.
    const entry = (detail: unknown) => ({
      EventBusName: exported.CALLSHEET_EVENT_BUS,
      Source: 'crm',
      DetailType: 'Contact Upserted',
      Detail: JSON.stringify(detail),
    });
    const entries = join(dataDir, 'entries.json');
    await writeFile(
      entries,
      JSON.stringify([
        entry({ event_id: 'e2e-3', phone_number: phone, city: 'Oakland', tags: ['won'], note: 'from the bus' }),
        entry({ event_id: 'e2e-1', phone_number: phone, name: 'Nia', tags: ['vip'], note: 'from the file' }),
        { ...entry({}), Detail: 'not json' },
      ]),
    );
    const put = JSON.parse(await aws('events', 'put-events', '--entries', `file://${entries}`));
    expect(put.FailedEntryCount).toBe(1);
    expect(put.Entries[2]).toMatchObject({ ErrorCode: 'MalformedDetail' });
    const after = await until('the bus event', shown, (c) => c?.notes.length === 3 && !c.waitingToBePushed);
    expect(after.contact).toMatchObject({ fields: { city: 'Oakland' }, tags: ['vip', 'renewal', 'won'] });
    expect(after.notes.map((n: { text: string }) => n.text)).toEqual([
      'from the file',
      'second change',
      'from the bus',
    ]);

    // callsheet contacts push goes to the running stack's emulator, through the same budget.
    const push = await callsheet('contacts', 'push', 'examples/contact-events.jsonl', '--json');
    expect(push.stderr).toBe('');
    const summary = JSON.parse(push.stdout);
    expect(summary).toMatchObject({ created: 3, duplicates: 1, contacts: { pushed: 3 }, notPushed: [] });
    expect(summary.api).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    // The emulator holds each note once: every event was applied and sent once, the replay not at all.
    const atApi = (await (await fetch(`${summary.api}/_emulator/contacts/${encodeURIComponent(phone)}`)).json()) as {
      notes: string[];
      tags: string[];
    };
    expect(atApi.notes).toEqual(['from the file', 'second change', 'from the bus']);
    expect(atApi.tags).toEqual(['vip', 'renewal', 'won']);
    const listed = JSON.parse((await callsheet('contacts', 'list', '--json')).stdout) as { phone: string }[];
    expect(listed.map((c) => c.phone)).toEqual(expect.arrayContaining([phone, '+14155552001', '+919820000000']));
    // Pushed again: nothing is sent, and the words say that a restarted stack's emulator would not hold them.
    const again = await callsheet('contacts', 'push', 'examples/contact-events.jsonl');
    expect(again.stdout).toContain(
      '3 not pushed again: unchanged since callsheet last pushed them (an emulator keeps contacts only while it runs: those pushed before this stack started are not on it).',
    );
  }, 120_000);

  it('stops cleanly on Ctrl-C and frees the data directory', async () => {
    const exit = new Promise<number | null>((resolve) => stack.once('exit', (code) => resolve(code)));
    stack.kill('SIGINT');
    expect(await exit).toBe(0);
    expect(existsSync(join(dataDir, 'stack.json'))).toBe(false);
    // With nothing running, operator commands read the directory itself.
    const [part] = JSON.parse(
      (await runInProcess(['campaign', 'list', '--json'], { CALLSHEET_DATA_DIR: dataDir })).stdout,
    );
    expect(part.status).toBe('completed');
    // The report is read from the copies in the data directory once the stack is gone.
    const out = await runInProcess(['report', campaignId, '--out', join(dataDir, 'after')], {
      CALLSHEET_DATA_DIR: dataDir,
    });
    expect(out.stdout).toContain(`campaign ${campaignId}: completed`);
    expect(out.stdout).toContain(join(dataDir, 'after', 'part-1.html'));
    expect(await readFile(join(dataDir, 'after', 'part-1.html'), 'utf8')).toContain(campaignId);
  }, 30_000);
});
