import { PutObjectCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uploadId } from '#commons/upload-ref.ts';
import type { IntakeReport } from '#intake/report.ts';
import { type LocalStack, startLocalStack } from '#local/stack/local-stack.ts';
import { TEST_KEY, useEmulator } from '../helpers/emulator.ts';
import { recordOnlyLifecycle } from '../helpers/pipeline.ts';
import { phones } from '../helpers/sheets.ts';

const f = useEmulator();
let stack: LocalStack;

beforeAll(async () => {
  stack = await startLocalStack({
    voiceApi: { url: f.emu.url, apiKey: TEST_KEY },
    clock: f.emu.core.clock,
    lifecycle: recordOnlyLifecycle,
    // A plan of 2 requests a minute: no room for reserves, so 2 a minute are left for pauses;
    // a pause lead of 60 s leaves a close one clock minute (04:54:00-04:54:30) before its brake: 2 parts' pauses.
    settings: { DEFAULT_COUNTRY: 'US', API_BUDGET_PER_MINUTE: '2', PAUSE_LEAD_SECONDS: '60' },
  });
});
afterAll(async () => {
  await stack?.close();
});

/** Uploads `n` San Francisco numbers (one zone: parts of 1,000) as a CSV and answers intake's report. */
async function upload(name: string, n: number, prefix: string): Promise<IntakeReport> {
  const agent = await f.api.agents.create({ name: `Agent ${name}` });
  const body = Buffer.from(
    `Phone Number,Name\n${phones(n, prefix)
      .map((p, i) => `${p},Contact ${i}`)
      .join('\n')}\n`,
  );
  const key = `incoming/${agent.id}/${name}.csv`;
  const put = await stack.s3Client.send(new PutObjectCommand({ Bucket: stack.bucket, Key: key, Body: body }));
  await stack.intakeQueue.idle();
  const eTag = (put.ETag ?? '').replaceAll('"', '');
  const id = uploadId({ bucket: stack.bucket, key, versionId: put.VersionId ?? null, eTag, size: body.length });
  const obj = await stack.objects.get(stack.bucket, `reports/${id}/report.json`);
  if (!obj) throw new Error(`no report for ${key}`);
  return JSON.parse(obj.bytes.toString('utf8')) as IntakeReport;
}

const planNotes = (r: IntakeReport) => r.notes.filter((n) => /API plan/.test(n));

describe('intake says up front when the API plan cannot pause every part before its close', () => {
  it('notes the close where 3 parts in one zone need more pauses than a plan of 2 a minute carries', async () => {
    // Monday 2026-03-02 09:00Z (01:00 in San Francisco): every part closes at 21:00 PST, 05:00Z on Tuesday.
    const report = await upload('three-parts', 2500, '+1415555');
    expect(report.status).toBe('launched');
    expect(report.parts).toHaveLength(3);
    expect(new Set(report.parts.map((p) => p.timeZone))).toEqual(new Set(['America/Los_Angeles']));
    expect(planNotes(report)).toEqual([
      '3 parts close their calling window at 05:00Z on Tue 2026-03-03; the API plan (2 requests a minute) can pause about 2 of them between 04:54Z and 04:54:30Z: the other 1 will be stopped by the agent brake, which halts every campaign on the agent. ' +
        // Every evening of the week looked at, the last after the clocks change (04:00Z on Monday 2026-03-09).
        'The same holds at 6 more closes in the first 7 days. ' +
        'Split the sheet into uploads with windows that close at different times, or raise API_BUDGET_PER_MINUTE if your plan allows.',
    ]);
  });

  it('says nothing of the plan for one part, whose pause it carries', async () => {
    const one = await upload('one-part', 1000, '+1415556');
    expect(one.status).toBe('launched');
    expect(one.parts).toHaveLength(1);
    expect(one.notes).toEqual([]);
  });
});
