import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { UsageError } from '#local/cli/command.ts';
import { loadFaultPlan, type PlacedCall, placedCalls } from '#local/cli/fault-plan-file.ts';
import { main } from '#local/cli/main.ts';
import { type AuditedSpan, auditCalls, auditSpans } from './helpers/call-audit.ts';
import { runInProcess } from './helpers/cli.ts';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'callsheet-faults-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const planFile = async (name: string, plan: unknown) => {
  const file = join(dir, name);
  await writeFile(file, typeof plan === 'string' ? plan : JSON.stringify(plan));
  return file;
};

describe('callsheet run --faults: the plan file', () => {
  it.each([
    ['not JSON', '{"faults": [', 'is not JSON'],
    ['not a plan', '"pause"', 'plan: a fault plan is a JSON array of faults'],
    [
      'a bad entry',
      [
        { method: 'PATCH', path: '/campaigns/*/pause', status: 500, minutes: 5 },
        { method: 'PATCH', path: '/campaigns/*/pause', status: 500, from: 'tomorrow' },
      ],
      'entry 2 (from): must be an ISO 8601 date-time with an offset',
    ],
    ['a status that is no error', [{ path: '/campaigns', status: 200 }], 'entry 1 (status): must be an error status'],
    ['a misspelt field', { faults: [{ path: '/calls', status: 500, cuont: 2 }] }, 'entry 1 (cuont): unknown field'],
  ])('refuses %s with the entry and the reason', async (_case, plan, reason) => {
    const file = await planFile('bad.json', plan);
    const err = await loadFaultPlan(file).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UsageError);
    expect((err as Error).message).toContain(reason);
  });

  it('exits 2 with the reason before starting anything', async () => {
    const file = await planFile('bad-run.json', [{ path: '/calls', status: 500, drop: true }]);
    const errors = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    try {
      expect(await main(['run', 'examples/contacts.xlsx', '--faults', file])).toBe(2);
      const printed = errors.mock.calls.map((c) => String(c[0])).join('\n');
      expect(printed).toContain(`--faults: ${file} has 1 problem(s)`);
      expect(printed).toContain('entry 1 (drop): give status (answer an error, do nothing) or drop');
      expect(await main(['run', 'examples/contacts.xlsx', '--now', '2026-12-07T08:00'])).toBe(2);
      expect(errors.mock.calls.at(-1)?.[0]).toContain('give an ISO 8601 instant with an offset');
    } finally {
      errors.mockRestore();
    }
  });

  it('accepts every rehearsal plan in examples/faults, each with a description', async () => {
    const files = (await readdir('examples/faults')).filter((f) => f.endsWith('.json'));
    expect(files.length).toBeGreaterThanOrEqual(4);
    for (const f of files) {
      const plan = await loadFaultPlan(join('examples/faults', f));
      expect(plan.faults).toBeGreaterThan(0);
      expect(plan.description).toMatch(/--faults examples\/faults\//);
    }
  });

  it('lists placed calls only, in dialling order', () => {
    const rec = (phone: string, started: string | null) => ({
      phone_number: phone,
      started_at: started,
      ended_at: null,
      status: started ? 'in_progress' : 'queued',
    });
    expect(
      placedCalls([rec('+1', '2026-12-07T18:00:05.000Z'), rec('+2', null), rec('+3', '2026-12-07T18:00:00.000Z')]),
    ).toEqual([
      { phone_number: '+3', started_at: '2026-12-07T18:00:00.000Z', ended_at: null, status: 'in_progress' },
      { phone_number: '+1', started_at: '2026-12-07T18:00:05.000Z', ended_at: null, status: 'in_progress' },
    ]);
  });
});

describe('callsheet run --faults --json', () => {
  it('arms the plan, shows its faulted requests and lists every call placed', async () => {
    const file = await planFile('good.json', {
      description:
        'intake sees the agent lookup fail twice; stats answers are slow twice; no completed call can be read by id',
      faults: [
        { method: 'GET', path: '/agents/*', status: 503, count: 2 },
        { method: 'GET', path: '/campaigns/*/stats', delayMs: 20, count: 2 },
        { method: 'DELETE', path: '/campaigns/*', status: 500, from: '2027-01-01T00:00:00Z' }, // never in force
        { method: 'GET', path: '/calls/*', status: 400, from: '2026-12-07T08:00:00-08:00', minutes: 14 * 24 * 60 },
      ],
    });
    const out = await runInProcess(
      [
        'run',
        'examples/contacts.xlsx',
        '--window',
        'Mon-Fri 10:00-11:00',
        '--now',
        '2026-12-07T08:00:00-08:00',
        '--faults',
        file,
        '--json',
      ],
      { CALLSHEET_DATA_DIR: dir, VOICE_API_URL: '', VOICE_API_KEY: '' },
    );
    expect(out.stderr).toBe('');
    expect(out.code).toBe(0);
    const result = JSON.parse(out.stdout) as {
      faulted_requests: { method: string; path: string; status: number; fault_id: number; at: string }[];
      calls: PlacedCall[];
      dialable: AuditedSpan[];
      callEventsDeadLettered: number;
      parts: { file: string }[];
    };
    const hits = result.faulted_requests.map((r) => [r.method, r.path.replace(/\/(agent|cmp)_\w+/, '/ID'), r.fault_id]);
    expect(hits.filter((h) => h[2] === 1)).toEqual([
      ['GET', '/api/developer/v1/agents/ID', 1],
      ['GET', '/api/developer/v1/agents/ID', 1],
    ]);
    expect(result.faulted_requests.filter((r) => r.fault_id === 1).map((r) => r.status)).toEqual([503, 503]);
    expect(hits.filter((h) => h[2] === 2)).toEqual([
      ['GET', '/api/developer/v1/campaigns/ID/stats', 2],
      ['GET', '/api/developer/v1/campaigns/ID/stats', 2],
    ]);
    expect(hits.filter((h) => h[2] === 3)).toEqual([]);
    // Each completed call's event failed on all five deliveries, six simulated minutes apart, and was dead-lettered
    // and counted; the part reports still have those calls, from the calls list.
    const completed = result.calls.filter((c) => c.status === 'completed').length;
    expect(completed).toBeGreaterThan(0);
    expect(result.callEventsDeadLettered).toBe(completed);
    expect(result.faulted_requests.filter((r) => r.fault_id === 4).length).toBe(5 * completed);
    const reports = await Promise.all(result.parts.map(async (p) => JSON.parse(await readFile(p.file, 'utf8'))));
    expect(reports.reduce((n, r) => n + r.outcomes.attempts, 0)).toBe(result.calls.length);
    // Every contact was called (40 rows, some retried), each record in simulated time from the --now start on.
    expect(new Set(result.calls.map((c) => c.phone_number)).size).toBe(40);
    for (const c of result.calls) {
      expect(Object.keys(c).sort()).toEqual(['ended_at', 'phone_number', 'started_at', 'status']);
      expect(c.started_at).toMatch(/^2026-12-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    }
    // … and the raw records are enough to check the invariant independently.
    expect(await auditCalls(result.calls, { hours: 'Mon-Fri 10:00-11:00' })).toEqual([]);
    // So are the stretches in which each campaign could have dialled: each call was ready in the one it started in.
    for (const c of result.calls)
      expect(
        result.dialable.some(
          (s) => s.from <= c.started_at && c.started_at <= s.to && s.phones.includes(c.phone_number),
        ),
      ).toBe(true);
    for (const s of result.dialable) expect(Object.keys(s).sort()).toEqual(['campaign_id', 'from', 'phones', 'to']);
    expect(await auditSpans(result.dialable, { hours: 'Mon-Fri 10:00-11:00' })).toEqual([]);
  });
});

describe('callsheet run when intake fails', () => {
  const run = (name: string, plan: string, now: string) =>
    runInProcess(['run', 'examples/contacts.xlsx', '--window', 'Mon-Fri 10:00-12:00', '--now', now, '--faults', plan], {
      CALLSHEET_DATA_DIR: join(dir, name),
      VOICE_API_URL: '',
      VOICE_API_KEY: '',
    });

  it('says so, and the upload is delivered again after the queue visibility timeout, as SQS would', async () => {
    const plan = await planFile('intake-once.json', {
      description: "intake's agent look-up is refused once",
      faults: [{ method: 'GET', path: '/agents/*', status: 400, count: 1 }],
    });
    const out = await run('intake-once', plan, '2026-12-07T10:00:00-08:00');
    expect(out.stderr).toBe('');
    const runLog = join(dir, 'intake-once', 'run.log');
    expect(out.stdout).toContain(
      `examples/contacts.xlsx: intake failed on its first delivery (see ${runLog}); the queue delivers the upload again after its visibility timeout, as SQS would`,
    );
    expect(out.code).toBe(0);
    expect(out.stdout).toMatch(/^part 1: completed/m);
    // Its reason, in the log the line names.
    expect(await readFile(runLog, 'utf8')).toMatch(/"message":"upload not finished; SQS will redeliver it".*400/);
    // The workflows started half an hour (the intake queue's visibility timeout) after the upload.
    const reports = /^all reports: (\S+)$/m.exec(out.stdout)?.[1] as string;
    const part = JSON.parse(await readFile(join(reports, 'part-1.json'), 'utf8')) as { startedAt: string };
    expect(Date.parse(part.startedAt)).toBeGreaterThanOrEqual(Date.parse('2026-12-07T10:30:00-08:00'));
  });

  it('exits 1 naming the log once intake has failed on all five deliveries', async () => {
    const plan = await planFile('intake-never.json', {
      description: "intake's agent look-up is refused for a day",
      faults: [{ method: 'GET', path: '/agents/*', status: 400, from: '2026-12-07T10:00:00-08:00', minutes: 1440 }],
    });
    const out = await run('intake-never', plan, '2026-12-07T10:00:00-08:00');
    const runLog = join(dir, 'intake-never', 'run.log');
    expect(out.code).toBe(1);
    expect(out.stderr).toContain(
      `examples/contacts.xlsx: intake failed on every delivery and the upload went to the dead letters; the reasons are in ${runLog}`,
    );
    const warnings = (await readFile(runLog, 'utf8')).split('\n').filter((l) => l.includes('upload not finished'));
    expect(warnings).toHaveLength(5);
  });
});
