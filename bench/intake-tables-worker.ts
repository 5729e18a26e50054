/**
 * One measurement in a fresh process, so its peak RSS is its own:
 * - `baseline`: a plain exceljs streaming read of every row;
 * - `intake`: the intake Lambda's service for one upload, its tables as deployed (upload claims, the do-not-call
 *   list, frequency caps when OUTCOMES_TABLE is set) on the DynamoDB endpoint the environment names. S3 answers in this process (the sheet
 *   from disk; what is put is counted, not kept), as do the agent lookup and Step Functions: none of them is what
 *   this measures.
 */

import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { S3Client } from '@aws-sdk/client-s3';
import { GetObjectCommand, HeadObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { ObjectStore } from '#commons/aws/object-store.ts';
import type { AgentsApi } from '#commons/voice-api/agents.ts';
import type { Agent } from '#commons/voice-api/types.ts';
import { intakeTables } from '#intake/build-service.ts';
import { readIntakeConfig } from '#intake/config.ts';
import { IntakeService } from '#intake/intake-service.ts';
import type { IntakeReport } from '#intake/report.ts';
import { peakRssMB } from './peak-rss.ts';
import { plainRead } from './plain-read.ts';

const [mode, file] = process.argv.slice(2);
if (!file || (mode !== 'baseline' && mode !== 'intake'))
  throw new Error('usage: intake-tables-worker baseline|intake FILE');

/** What the two checks cost in wall time and in this process's CPU time (nothing else runs while they wait). */
const spent = { dncMs: 0, dncCpuMs: 0, capsMs: 0, capsCpuMs: 0 };

async function timed<T>(phase: 'dnc' | 'caps', work: () => Promise<T>): Promise<T> {
  const start = performance.now();
  const cpu = process.cpuUsage();
  try {
    return await work();
  } finally {
    const used = process.cpuUsage(cpu);
    spent[`${phase}Ms`] += performance.now() - start;
    spent[`${phase}CpuMs`] += (used.user + used.system) / 1000;
  }
}

async function intake(path: string) {
  const size = (await stat(path)).size;
  let bytesPut = 0;
  let report: IntakeReport | null = null;
  // The SDK's S3 client as ObjectStore uses it: the sheet from disk, every put counted and dropped.
  const s3 = {
    async send(command: object) {
      if (command instanceof HeadObjectCommand) return { ETag: '"bench"', VersionId: 'v1', ContentLength: size };
      if (command instanceof GetObjectCommand) {
        // Only the upload is there: an earlier attempt's launch record (parts/…/launch.json) is not.
        if (!command.input.Key?.startsWith('incoming/'))
          throw Object.assign(new Error('NoSuchKey'), { name: 'NoSuchKey', $metadata: { httpStatusCode: 404 } });
        return { ETag: '"bench"', VersionId: 'v1', Body: createReadStream(path) };
      }
      if (command instanceof PutObjectCommand) {
        const body = command.input.Body as Buffer | string;
        bytesPut += Buffer.byteLength(body);
        if (command.input.Key?.endsWith('report.json')) report = JSON.parse(String(body)) as IntakeReport;
        return { ETag: '"put"' };
      }
      return {}; // copy and delete of the original
    },
  } as unknown as S3Client;
  const agent = { id: 'agent-bench', name: 'Bench', is_active: true } as Agent;
  const agents = { get: async () => agent, list: async () => [agent] } as unknown as AgentsApi;
  let started = 0;
  const config = readIntakeConfig(process.env);
  const tables = intakeTables(config);
  const { suppression, caps } = tables;
  const service = new IntakeService({
    ...tables,
    // Timed where intake waits for them: after the last row is read (their reading started with the first).
    suppression: {
      lookup: () => {
        const dnc = suppression.lookup();
        return { want: (phone) => dnc.want(phone), matching: (phones) => timed('dnc', () => dnc.matching(phones)) };
      },
    },
    ...(caps && {
      caps: {
        lookup: () => {
          const check = caps.lookup();
          return {
            limits: check.limits,
            want: (phone) => check.want(phone),
            turnedAway: (phones, key, calls, now) => timed('caps', () => check.turnedAway(phones, key, calls, now)),
          };
        },
      },
    }),
    objects: new ObjectStore(s3),
    agents,
    starter: {
      start: async () => {
        started++;
        return 'started';
      },
    },
    defaults: config.defaults,
    leaseMs: config.leaseMs,
    plan: config.plan,
    now: () => new Date(),
  });
  const result = await service.process({
    bucket: 'bench',
    key: `incoming/${agent.id}/contacts.xlsx`,
    versionId: 'v1',
    eTag: 'bench',
    size,
  });
  const shown = report as IntakeReport | null;
  if (result.status !== 'launched' || !shown)
    throw new Error(`intake ended ${result.status}: ${JSON.stringify(shown?.error)}`);
  const reasons: Record<string, number> = {};
  for (const r of shown.rejected) reasons[r.reason] = (reasons[r.reason] ?? 0) + 1;
  return { rows: shown.rows.total, parts: started, bytesPut, rejected: reasons, ...spent };
}

const start = performance.now();
const cpuStart = process.cpuUsage();
const outcome = mode === 'baseline' ? { rows: await plainRead(file) } : await intake(file);
const ms = performance.now() - start;
const cpu = process.cpuUsage(cpuStart);
console.log(JSON.stringify({ mode, ...outcome, ms, cpuMs: (cpu.user + cpu.system) / 1000, maxRssMB: peakRssMB() }));
