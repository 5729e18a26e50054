import { PutCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FrequencyCapStore } from '#commons/frequency-cap-store.ts';
import { silentLog } from '#commons/log.ts';
import { makeObservability } from '#commons/observability.ts';
import { SuppressionList } from '#commons/suppression-list.ts';
import { buildReindex } from '#intake/reindex/build.ts';
import { readReindexConfig } from '#intake/reindex/config.ts';
import { makeReindexHandler } from '#intake/reindex/handler.ts';
import { createTables, type LocalDynamo, startDynamo } from '#local/stack/dynamo.ts';
import { localContext } from '#local/stack/lambda-context.ts';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '#local/stack/local-aws.ts';
import { LocalStepFunctions } from '#local/stack/step-functions.ts';
import { dynaliteClient } from '../helpers/dynalite-client.ts';

const T0 = new Date('2026-03-02T12:00:00Z');
const minutes = (m: number) => new Date(T0.getTime() + m * 60_000);
const ago = (h: number, from = T0) => new Date(from.getTime() - h * 3600_000).toISOString();
/** The writers' longest timeout, as the stack sets it (intake's 5 minutes). */
const DRAIN_SECONDS = 300;

let dynamo: LocalDynamo;
let sfn: LocalStepFunctions;
let sfnEndpoint: string;
let machineArn: string;
/** The simulated clock: the reindex's `now` and the executions' start dates. */
let clock = T0;
/** Lifecycle executions held running until released (they keep the version they started with). */
const held = new Map<string, () => void>();

beforeAll(async () => {
  dynamo = await startDynamo({ prefix: 'reindex' });
  sfn = new LocalStepFunctions(LOCAL_REGION, () => clock);
  machineArn = sfn.register({
    name: 'callsheet-lifecycle',
    definition: {
      StartAt: 'Step',
      States: { Step: { Type: 'Task', Resource: 'arn:aws:lambda:us-east-1:000000000000:function:step', End: true } },
    },
    runOptions: (name) => ({
      overrides: {
        taskResourceLocalHandlers: {
          Step: () => new Promise((resolve) => held.set(name, () => resolve({}))),
        },
      },
    }),
  });
  sfnEndpoint = await sfn.listen();
});
afterAll(async () => {
  for (const release of held.values()) release();
  await sfn?.settled();
  await sfn?.close();
  await dynamo?.close();
});

let tables: { suppression: string; outcomes: string };
let range = 0;
// Each test on tables of their own, unmarked, as a deployment before the shards left them (or a new one).
beforeEach(async () => {
  range++;
  tables = await createTables(dynamo.endpoint, `deploy${range}`);
  clock = T0;
});

const db = () => dynaliteClient(dynamo.endpoint);

/** The deployed function as the trigger and the schedule invoke it, with the environment the stack gives it. */
function reindex() {
  const config = readReindexConfig({
    AWS_REGION: LOCAL_REGION,
    AWS_ACCESS_KEY_ID: LOCAL_CREDENTIALS.accessKeyId,
    AWS_SECRET_ACCESS_KEY: LOCAL_CREDENTIALS.secretAccessKey,
    AWS_ENDPOINT_URL_DYNAMODB: dynamo.endpoint,
    AWS_ENDPOINT_URL_SFN: sfnEndpoint,
    SUPPRESSION_TABLE: tables.suppression,
    OUTCOMES_TABLE: tables.outcomes,
    LIFECYCLE_STATE_MACHINE_ARN: machineArn,
    REINDEX_DRAIN_SECONDS: String(DRAIN_SECONDS),
  });
  const handler = makeReindexHandler(
    buildReindex(config, () => clock),
    silentLog,
    makeObservability('reindex', {}),
  );
  return handler({}, localContext('reindex'));
}

const list = () => new SuppressionList(db(), tables.suppression);
const caps = () => new FrequencyCapStore(db(), tables.outcomes, { perDay: 3, perWeek: 7 });

/** Every item of both tables, to show a run changed nothing. */
async function everything(): Promise<string[]> {
  const out: string[] = [];
  for (const table of [tables.suppression, tables.outcomes])
    for (const item of (await db().send(new ScanCommand({ TableName: table, ConsistentRead: true }))).Items ?? [])
      out.push(JSON.stringify(item));
  return out.sort();
}

function startCampaign(name: string): void {
  sfn.start(machineArn, name, '{}');
}
async function endCampaign(name: string): Promise<void> {
  held.get(name)?.();
  held.delete(name);
  await sfn.executions.get(`${machineArn.replace(':stateMachine:', ':execution:')}:${name}`)?.done;
}

describe('the reindex the deploy runs', () => {
  it('refuses to start without the wait the stack computes, or with one that is not whole seconds', () => {
    const env = { SUPPRESSION_TABLE: 's', OUTCOMES_TABLE: 'o', LIFECYCLE_STATE_MACHINE_ARN: 'arn' };
    expect(() => readReindexConfig(env)).toThrow(/REINDEX_DRAIN_SECONDS is not set/);
    expect(() => readReindexConfig({ ...env, REINDEX_DRAIN_SECONDS: '5m' })).toThrow(
      /REINDEX_DRAIN_SECONDS="5m": a whole number of seconds/,
    );
    expect(readReindexConfig({ ...env, REINDEX_DRAIN_SECONDS: '300' }).drainMs).toBe(300_000);
  });

  it('marks a new install at once, and a second run changes nothing', async () => {
    // Nothing to fold, and no version before that could write: marked there and then.
    expect(await reindex()).toEqual({ outcome: 'indexed', fresh: true, listed: 0, caps: { numbers: 0, added: 0 } });
    expect(await list().indexed()).toBe(true);
    expect(await caps().indexed()).toBe(true);
    const before = await everything();
    clock = minutes(15);
    expect(await reindex()).toEqual({ outcome: 'already-indexed' });
    expect(await everything()).toEqual(before);
  });

  it('folds an upgraded deployment once nothing of the version before can write, then leaves it alone', async () => {
    const phone = '+14155550142';
    const capped = '+14155550143';
    // As the version before the shards left them: numbers' own items only, a number at its daily cap, no marks.
    await db().send(
      new PutCommand({
        TableName: tables.suppression,
        Item: { phone, reason: 'opted out', source: 'cli', addedAt: ago(48) },
      }),
    );
    await db().send(
      new PutCommand({
        TableName: tables.outcomes,
        Item: {
          pk: `cap#${capped}`,
          kind: 'cap',
          phone: capped,
          version: 1,
          entries: [{ key: 'old-upload', at: ago(1, minutes(20)), calls: 3 }],
        },
      }),
    );
    // A campaign started before the upgrade still runs, on the step function's old version.
    clock = minutes(-60);
    startCampaign('before-upgrade');

    // The deploy's trigger: an invocation of the version before may still be writing; nothing is marked.
    clock = T0;
    expect(await reindex()).toEqual({
      outcome: 'waiting',
      fresh: false,
      since: T0.toISOString(),
      waitingFor: 'functions',
    });
    expect(await list().indexed()).toBe(false);
    expect(await caps().indexed()).toBe(false);
    // Meanwhile intake still finds both, item by item.
    expect(await list().matching([phone])).toEqual(new Set([phone]));

    // A campaign of the new version does not hold anything up; the one from before holds the caps only.
    clock = minutes(2);
    startCampaign('after-upgrade');
    clock = minutes(15);
    expect(await reindex()).toEqual({
      outcome: 'waiting',
      fresh: false,
      since: T0.toISOString(),
      waitingFor: 'campaigns',
      listed: 1,
    });
    expect(await list().indexed()).toBe(true);
    expect(await list().matching([phone])).toEqual(new Set([phone]));
    expect(await caps().indexed()).toBe(false);
    expect((await caps().admitAll([capped], 'new-upload', 1, minutes(15))).admitted).toEqual([]);

    await endCampaign('before-upgrade');
    clock = minutes(30);
    expect(await reindex()).toEqual({
      outcome: 'indexed',
      fresh: false,
      since: T0.toISOString(),
      caps: { numbers: 1, added: 1 },
    });
    expect(await caps().indexed()).toBe(true);
    // Read from the shards alone now: still at its cap.
    expect((await caps().admitAll([capped], 'newer-upload', 1, minutes(31))).skipped.map((s) => s.reason)).toEqual([
      'daily-cap',
    ]);

    const before = await everything();
    clock = minutes(45);
    expect(await reindex()).toEqual({ outcome: 'already-indexed' });
    expect(await everything()).toEqual(before);
    await endCampaign('after-upgrade');
  });
});
