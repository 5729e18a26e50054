import { BatchGetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CallOutcome } from '#commons/outcomes/call-outcome.ts';
import { OutcomeStore } from '#commons/outcomes/outcome-store.ts';
import { type LocalDynamo, startDynamo } from '#local/stack/dynamo.ts';
import { dynaliteClient } from '../helpers/dynalite-client.ts';

let dynamo: LocalDynamo;
beforeAll(async () => {
  dynamo = await startDynamo({ prefix: 'outcome-store' });
});
afterAll(async () => {
  await dynamo.close();
});

const outcome = (callId: string, extra: Partial<CallOutcome> = {}): CallOutcome => ({
  callId,
  campaignId: 'cmp_race',
  phone: '+14155550100',
  contactName: null,
  status: 'completed',
  failureReason: null,
  durationSeconds: 61,
  costInr: 4.5,
  transcriptUrl: null,
  recordingUrl: 'http://127.0.0.1/r.wav',
  summary: null,
  at: '2026-03-02T09:05:00.000Z',
  startedAt: '2026-03-02T09:04:00.000Z',
  optOutPhrase: null,
  ...extra,
});

/**
 * A document client on dynalite that, once, runs `between` right after a batch read has answered and before the
 * caller sees the answer: a webhook recorded in the gap between the calls list's read and its write.
 */
function clientWithGap(between: () => Promise<void>) {
  const db = dynaliteClient(dynamo.endpoint);
  const send = db.send.bind(db) as (command: unknown) => Promise<unknown>;
  let pending = true;
  (db as unknown as { send: (command: unknown) => Promise<unknown> }).send = async (command) => {
    const out = await send(command);
    if (pending && command instanceof BatchGetCommand) {
      pending = false;
      await between();
    }
    return out;
  };
  return db;
}

describe('outcome store under concurrent writers', () => {
  it('keeps what a webhook recorded between the calls list read and its write', async () => {
    const webhook = new OutcomeStore(dynaliteClient(dynamo.endpoint), dynamo.tables.outcomes);
    const fromWebhook = outcome('call_race_1', {
      transcriptUrl: 'http://127.0.0.1/t/call_race_1.json',
      optOutPhrase: 'stop calling me',
    });
    const reconcile = new OutcomeStore(
      clientWithGap(() => webhook.record(fromWebhook)),
      dynamo.tables.outcomes,
    );
    // The calls list does not carry the transcript link or the phrase heard; it does carry the failure reason.
    await reconcile.recordMany([
      outcome('call_race_1', { summary: 'talked about the offer' }),
      outcome('call_race_2', { status: 'failed', failureReason: 'no_answer', durationSeconds: 0 }),
    ]);
    expect(await webhook.get('call_race_1')).toEqual({
      ...fromWebhook,
      summary: 'talked about the offer',
    });
    expect(await webhook.get('call_race_2')).toMatchObject({ status: 'failed', failureReason: 'no_answer' });
    // A batch read answers in no particular order.
    expect((await webhook.ofCampaign('cmp_race')).map((o) => o.callId).sort()).toEqual(['call_race_1', 'call_race_2']);
  });

  it("keeps a known call's fields the calls list lacks, and records a new call with what it carries", async () => {
    const store = new OutcomeStore(dynaliteClient(dynamo.endpoint), dynamo.tables.outcomes);
    await store.record(outcome('call_same', { transcriptUrl: 'http://127.0.0.1/t/same.json' }));
    await store.recordMany([outcome('call_same'), outcome('call_other', { costInr: null })]);
    expect(await store.get('call_same')).toMatchObject({ transcriptUrl: 'http://127.0.0.1/t/same.json', costInr: 4.5 });
    expect(await store.get('call_other')).toMatchObject({ costInr: null, durationSeconds: 61 });
  });
});
