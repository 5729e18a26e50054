import { PutObjectCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_LIMITS } from '#commons/api-budget/shared-budget.ts';
import { documentClient, s3Client } from '#commons/aws/clients.ts';
import { ObjectStore } from '#commons/aws/object-store.ts';
import type { CampaignPlan } from '#commons/campaign-plan.ts';
import { EnvReader } from '#commons/config.ts';
import { readPauseTimings } from '#commons/plan-load.ts';
import { readPartFile } from '#commons/spreadsheet/part-file.ts';
import { SuppressionList } from '#commons/suppression-list.ts';
import type { UploadRef } from '#commons/upload-ref.ts';
import type { AgentsApi } from '#commons/voice-api/agents.ts';
import { readHoldHorizonMs } from '#commons/window-plan.ts';
import { IntakeService } from '#intake/intake-service.ts';
import { UploadStore } from '#intake/upload-store.ts';
import { type LocalDynamo, startDynamo } from '#local/stack/dynamo.ts';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '#local/stack/local-aws.ts';
import { type LocalS3, startS3 } from '#local/stack/s3.ts';
import { contactSheet, phones, xlsx } from '../helpers/sheets.ts';

/**
 * Intake retried after it started some of an upload's parts, on s3rver and dynalite. Between the attempts a number
 * joins the do-not-call list, so reading the upload again would split it differently: the retry must start exactly
 * the parts the first attempt fixed, and rewrite none of their files under the parts already running.
 */
const BUCKET = 'callsheet-retry';
let dynamo: LocalDynamo;
let s3: LocalS3;
beforeAll(async () => {
  dynamo = await startDynamo({ prefix: 'retry' });
  s3 = await startS3([BUCKET]);
});
afterAll(async () => {
  await dynamo.close();
  await s3.close();
});

describe('intake retried after some parts started', () => {
  it('starts the parts the first attempt fixed, and no running part gets another list', async () => {
    const aws = {
      region: LOCAL_REGION,
      endpoints: { dynamodb: dynamo.endpoint, s3: s3.endpoint },
      credentials: LOCAL_CREDENTIALS,
    };
    const s3c = s3Client(aws);
    const db = documentClient(aws);
    const objects = new ObjectStore(s3c);
    const suppression = new SuppressionList(db, dynamo.tables.suppression);
    // Three parts by zone, in row order: Los Angeles, New York (one number), Chicago.
    const la = phones(3, '+1415555');
    const ny = phones(1, '+1212555');
    const chicago = phones(3, '+1312555');
    const body = await xlsx(contactSheet([...la, ...ny, ...chicago]));
    const key = 'incoming/agt_1/list.xlsx';
    const put = await s3c.send(new PutObjectCommand({ Bucket: BUCKET, Key: key, Body: body }));
    const ref: UploadRef = {
      bucket: BUCKET,
      key,
      versionId: null,
      eTag: String(put.ETag).replace(/"/g, ''),
      size: body.length,
    };

    const started = new Map<string, CampaignPlan>();
    let throttled = true;
    const service = new IntakeService({
      objects,
      uploads: new UploadStore(db, dynamo.tables.uploads),
      suppression,
      agents: { get: async (id: string) => ({ id, name: 'Agent', is_active: true }) } as unknown as AgentsApi,
      // Step Functions throttles the third start once (the error path nothing else here can provoke).
      starter: {
        async start(name: string, plan: CampaignPlan) {
          if (throttled && name.endsWith('-p3')) throw new Error('StartExecution throttled');
          if (started.has(name)) return 'already_started';
          started.set(name, plan);
          return 'started';
        },
      },
      defaults: { country: 'US', retries: 1 },
      leaseMs: 0,
      plan: {
        limits: DEFAULT_LIMITS,
        timings: readPauseTimings(new EnvReader({})),
        holdHorizonMs: readHoldHorizonMs(new EnvReader({})),
      },
      now: () => new Date('2026-12-07T15:00:00Z'),
    });
    await expect(service.process(ref)).rejects.toThrow('throttled');
    expect([...started.keys()].map((n) => n.slice(-3))).toEqual(['-p1', '-p2']);
    const p2 = started.get([...started.keys()][1] as string) as CampaignPlan;
    expect(p2.part).toMatchObject({ timeZone: 'America/New_York', rows: 1 });

    // The New York number opts out before the redelivery; the redelivery gets through.
    await suppression.add(ny, 'opted out', 'test');
    throttled = false;
    const result = await service.process(ref);
    expect(result).toMatchObject({ status: 'launched' });
    // The three parts of the first attempt, each started once, with the plans it made.
    expect([...started.keys()].map((n) => n.slice(-3))).toEqual(['-p1', '-p2', '-p3']);
    expect(started.get([...started.keys()][2] as string)?.part).toMatchObject({ timeZone: 'America/Chicago', rows: 3 });
    // Every started part's file holds the numbers its plan was made for.
    const filed = async (plan: CampaignPlan) =>
      (await readPartFile((await objects.get(BUCKET, plan.part.key))?.bytes as Buffer)).map((r) => r.phone);
    const plans = [...started.values()];
    expect(await Promise.all(plans.map(filed))).toEqual([la, ny, chicago]);
    s3c.destroy();
    db.destroy();
  });
});
