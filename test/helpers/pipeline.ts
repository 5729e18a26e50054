import { PutObjectCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll } from 'vitest';
import { jsonLog } from '#commons/log.ts';
import { partReportKey } from '#commons/report-keys.ts';
import type { PartReport } from '#lifecycle/part-report.ts';
import { dialableSpanView } from '#local/emulator/dialer.ts';
import type { StartOptions } from '#local/emulator/server.ts';
import { type LocalStack, type LocalStackOptions, startLocalStack } from '#local/stack/local-stack.ts';
import type { LocalExecution } from '#local/stack/step-functions.ts';
import { type AuditedSpan, auditCalls, auditSpans, type ExtraZones, type RuleFor } from './call-audit.ts';
import { type EmulatorFixture, TEST_KEY, useEmulator } from './emulator.ts';

export interface PipelineFixture {
  f: EmulatorFixture;
  stack: LocalStack;
}

/**
 * The whole local pipeline per test file: the emulator on simulated time, the embedded stack following that
 * clock, intake fed by real S3 events, and the lifecycle document run by the local Step Functions.
 */
export function usePipeline(
  settings: Record<string, string> = {},
  options: Pick<LocalStackOptions, 'wrapLifecycle' | 'wrapGuard' | 'heldAnswers'> & {
    emulator?: Partial<StartOptions>;
  } = {},
): PipelineFixture {
  const { emulator, ...stackOptions } = options;
  const fixture = {} as PipelineFixture;
  // With heldAnswers, a delay fault holds its answer on the stack's clock, as under `callsheet run`.
  const hold: StartOptions['hold'] = (ms, headers, late, finished) =>
    fixture.stack
      ? fixture.stack.holdAnswer(ms, headers, late, finished)
      : new Promise<void>((resolve) => setTimeout(resolve, ms));
  fixture.f = useEmulator({ ...emulator, ...(options.heldAnswers ? { hold } : {}) });
  beforeAll(async () => {
    fixture.stack = await startLocalStack({
      voiceApi: { url: fixture.f.emu.url, apiKey: TEST_KEY },
      clock: fixture.f.emu.core.clock,
      mayDial: (id, startsAt) => fixture.f.emu.core.mayDial(id, startsAt),
      settings: { DEFAULT_COUNTRY: 'US', ...settings },
      ...stackOptions,
      // CALLSHEET_TEST_LOG=1 prints the handlers' log lines, for finding out why a run went wrong.
      ...(process.env.CALLSHEET_TEST_LOG ? { log: jsonLog('test', (l) => console.log(l)) } : {}),
    });
  });
  afterAll(async () => {
    await fixture.stack?.close();
  });
  return fixture;
}

/**
 * Uploads a sheet as a user would, waits until intake has handled it and the run has settled (`settledRun`), and
 * answers the executions this upload started (continuations included).
 */
export async function uploadAndRun(
  p: PipelineFixture,
  key: string,
  body: Buffer,
  metadata: Record<string, string> = {},
): Promise<LocalExecution[]> {
  const started = await uploadOnly(p, key, body, metadata);
  await settledRun(p);
  return started();
}

/**
 * Waits until every execution has ended, the safety net is at rest (the guard of one that failed, a sweep under
 * way), and the emulator has no request in flight (one it held past its asker).
 */
export async function settledRun(p: PipelineFixture): Promise<void> {
  await p.stack.sfn.settled();
  await p.stack.guardIdle();
  await p.f.emu.traffic.settled();
}

/** Uploads and waits for intake only, so a test can script operator actions before the run plays out. */
export async function uploadOnly(
  p: PipelineFixture,
  key: string,
  body: Buffer,
  metadata: Record<string, string> = {},
): Promise<() => LocalExecution[]> {
  const before = new Set(p.stack.sfn.executions.keys());
  await p.stack.s3Client.send(
    new PutObjectCommand({ Bucket: p.stack.bucket, Key: key, Body: body, Metadata: metadata }),
  );
  await p.stack.intakeQueue.idle();
  return () => [...p.stack.sfn.executions.values()].filter((e) => !before.has(e.executionArn));
}

export async function readJson<T>(p: PipelineFixture, key: string): Promise<T> {
  const obj = await p.stack.objects.get(p.stack.bucket, key);
  if (!obj) throw new Error(`s3://${p.stack.bucket}/${key} does not exist`);
  return JSON.parse(obj.bytes.toString('utf8')) as T;
}

/** Each part's report, once per part however many executions (continuations) it ran, in part order. */
export async function partReports(p: PipelineFixture, executions: LocalExecution[]): Promise<PartReport[]> {
  const plans = new Map<number, { reportPrefix: string; part: { index: number } }>();
  for (const e of executions) {
    const plan = JSON.parse(e.input ?? '{}').plan;
    if (plan) plans.set(plan.part.index, plan);
  }
  const ordered = [...plans.values()].sort((a, b) => a.part.index - b.part.index);
  return Promise.all(ordered.map((plan) => readJson<PartReport>(p, partReportKey(plan.reportPrefix, plan.part.index))));
}

/**
 * Moves the simulated clock forward to the next weekday at 10:00 in Los Angeles (18:00Z in winter, 17:00Z in
 * summer), so a run of +1 415 numbers starts inside US legal calling hours whatever the real time is.
 */
export async function toLegalMorning(p: PipelineFixture): Promise<number> {
  const now = p.f.emu.core.clock.now();
  const hourIn = (t: number) =>
    Number(
      new Intl.DateTimeFormat('en-US', { timeZone: 'America/Los_Angeles', hour: '2-digit', hourCycle: 'h23' }).format(
        t,
      ),
    );
  const dayIn = (t: number) =>
    new Intl.DateTimeFormat('en-US', { timeZone: 'America/Los_Angeles', weekday: 'short' }).format(t);
  let t = Math.ceil(now / 3_600_000) * 3_600_000 + 3_600_000;
  while (hourIn(t) !== 10 || dayIn(t) === 'Sat' || dayIn(t) === 'Sun') t += 3_600_000;
  await p.f.admin.setClock(new Date(t));
  return t;
}

/** Every call the emulator placed for an agent, from its own records (the raw truth the auditor checks). */
export function placedCalls(p: PipelineFixture, agentId: string) {
  const iso = (t: number | null) => (t === null ? null : new Date(t).toISOString());
  return [...p.f.emu.core.account.calls.values()]
    .filter((c) => c.agent_id === agentId)
    .map((c) => ({
      phone_number: c.phone_number,
      started_at: iso(c.started_at),
      ended_at: iso(c.ended_at),
      status: c.status,
    }));
}

/**
 * The stretches in which the agent's campaigns could dial, from the emulator's records (DialableSpan): one still
 * open ends at the emulator's now.
 */
function dialableSpans(p: PipelineFixture, agentId: string): AuditedSpan[] {
  return p.f.emu.core.dialer.spans
    .filter((s) => s.agent_id === agentId)
    .map((s) => dialableSpanView(s, p.f.emu.core.clock.now()));
}

/**
 * The independent audit of an agent's campaigns from the emulator's own records, as messages: every call placed
 * (auditCalls), and every stretch in which one could have been placed had a line been free (auditSpans).
 */
export async function auditRecords(
  p: PipelineFixture,
  agentId: string,
  rule: RuleFor,
  extraZones: ExtraZones = {},
): Promise<string[]> {
  return [
    ...(await auditCalls(placedCalls(p, agentId), rule, extraZones)).map((v) => v.message),
    ...(await auditSpans(dialableSpans(p, agentId), rule, extraZones)).map((v) => v.message),
  ];
}

/** Intake alone: a lifecycle document for the local Step Functions that only records the parts it is given. */
export const recordOnlyLifecycle = {
  name: 'lifecycle',
  definition: { StartAt: 'Recorded', States: { Recorded: { Type: 'Succeed' as const } } },
  runOptions: () => ({}),
};

/**
 * Fewer lines and fewer numbers, the same simulated hours. The emulator's account dials `lines` calls at once (its
 * default is ten), and `numbers(n)` is how many take as long on them as `n` numbers on ten: a rehearsal about when
 * calls start (dialling at the close, pending at the next opening) keeps its timeline at a fraction of the calls
 * to place, list and record, which is most of what such a rehearsal costs.
 */
export function fewerLines(lines: number): { settings: { concurrency: number }; numbers: (onTen: number) => number } {
  return { settings: { concurrency: lines }, numbers: (onTen) => Math.ceil((onTen * lines) / 10) };
}
