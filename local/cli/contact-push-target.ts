import { randomBytes } from 'node:crypto';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { readBudgetConfig } from '#commons/api-budget/config.ts';
import { SharedApiBudget } from '#commons/api-budget/shared-budget.ts';
import { readAwsSettings } from '#commons/aws/clients.ts';
import { EnvReader } from '#commons/config.ts';
import { TABLES } from '#commons/tables.ts';
import { VoiceApiClient } from '#commons/voice-api/index.ts';
import { type Clock, realClock } from '#commons/voice-api/rate-limiter.ts';
import { readVoiceApiSource, resolveVoiceApiAccess } from '#commons/voice-api-access.ts';
import type { BulkContactsApi } from '#contacts/contact-pusher.ts';
import { EmulatorAdmin } from '../emulator/admin-client.ts';
import { startEmulator } from '../emulator/server.ts';
import type { RunningStack } from '../stack/running-stack.ts';
import { UsageError } from './command.ts';

/** Where `contacts push` sends changes, on whose clock, through the account's budget. */
export interface PushTarget {
  /** For people: `http://…`, or what the embedded emulator is. */
  name: string;
  /** The API's address; null for the embedded emulator (it is gone when the command ends). */
  url: string | null;
  /** null: no API configured, so nothing can be pushed (`reason` says what to set). */
  api: BulkContactsApi | null;
  reason: string | null;
  /** The time stored changes carry: the API's own clock (a running stack's may be simulated). */
  clock: Clock;
  /**
   * Contacts pushed before may not be on it: an emulator keeps them only while it runs (`embedded`: this command's
   * own; `running`: the running stack's, started empty). Absent for a real API.
   */
  forgets?: 'embedded' | 'running';
  close(): Promise<void>;
}

const NO_API =
  'not pushed: no API configured (set VOICE_API_URL with VOICE_API_KEY, or VOICE_API_SECRET_ARN where the tables are deployed)';

/** How long one push may wait for a token of the account's budget before it gives up (its contacts wait). */
const MAX_BUDGET_WAIT_MS = 10 * 60_000;

/**
 * The API of the tables `contacts push` writes to, as every other caller of that account uses it: the deployed
 * tables' VOICE_API_URL; a running `callsheet local`'s emulator, on its (perhaps simulated) clock; VOICE_API_URL
 * beside the data directory; or, with nothing set, an emulator embedded in this command, as `callsheet run` has.
 */
export async function openPushTarget(
  db: DynamoDBDocumentClient,
  budgetTable: string,
  where: { deployed: boolean; running: RunningStack | null },
): Promise<PushTarget> {
  const env = process.env;
  const configured = Boolean(env.VOICE_API_URL);
  const runningEmulator = where.running?.voiceApi ?? null;
  if (where.running && runningEmulator && configured)
    throw new UsageError(
      `callsheet ${where.running.command} (process ${where.running.pid}) runs on this data directory with its own API: unset VOICE_API_URL and VOICE_API_KEY, or use another CALLSHEET_DATA_DIR`,
    );
  const client = (baseUrl: string, apiKey: string, clock: Clock, fetchImpl?: typeof fetch) => {
    const reader = new EnvReader({ ...env, [TABLES.apiBudget.env]: budgetTable });
    const config = readBudgetConfig(reader);
    reader.done();
    const budget = new SharedApiBudget(db, config.table, config.limits, clock);
    return new VoiceApiClient({
      baseUrl,
      apiKey,
      clock,
      budget: budget.for('shared', { maxWaitMs: MAX_BUDGET_WAIT_MS }),
      ...(fetchImpl ? { fetch: fetchImpl } : {}),
    }).contacts;
  };

  // Deployed tables, or a run against a real API holding the directory: that API only, never an emulator.
  if (configured || where.deployed || (where.running && !runningEmulator)) {
    if (!configured) return { name: 'no API', url: null, api: null, reason: NO_API, clock: realClock, close: noop };
    const reader = new EnvReader(env);
    const source = readVoiceApiSource(reader);
    const aws = readAwsSettings(reader);
    reader.done();
    const access = await resolveVoiceApiAccess(source, aws);
    return {
      name: access.baseUrl,
      url: access.baseUrl,
      api: client(access.baseUrl, access.apiKey, realClock, access.fetch),
      reason: null,
      clock: realClock,
      close: noop,
    };
  }

  if (runningEmulator) {
    const { url, apiKey } = runningEmulator;
    const clock = await emulatorClock(url);
    return { name: url, url, api: client(url, apiKey, clock), reason: null, clock, forgets: 'running', close: noop };
  }

  // Nothing set: an emulator of this command's own, its clock frozen but for the budget's waits.
  const apiKey = `local-${randomBytes(12).toString('hex')}`;
  const emulator = await startEmulator({
    apiKey,
    speed: 0,
    seed: `contacts-${randomBytes(6).toString('hex')}`,
    startTime: Date.now(),
  });
  const clock: Clock = { now: () => emulator.core.clock.now(), sleep: async (ms) => emulator.core.clock.advance(ms) };
  return {
    name: 'the embedded emulator (it lasts as long as this command; `callsheet local` keeps one running)',
    url: null,
    api: client(emulator.url, apiKey, clock),
    reason: null,
    clock,
    forgets: 'embedded',
    close: () => emulator.close(),
  };
}

const noop = async () => {};

/**
 * A running stack's clock, from its emulator: read once and run on at its speed; a wait ends when the emulator's
 * own clock has got there (asked again every so often), however that clock moves (paced, or a run's jumps).
 */
async function emulatorClock(url: string): Promise<Clock> {
  const admin = new EmulatorAdmin(url);
  const read = await admin.clock();
  let [sim, real, speed] = [Date.parse(read.now), Date.now(), read.speed];
  const now = () => Math.floor(sim + (Date.now() - real) * speed);
  return {
    now,
    sleep: async (ms) => {
      const at = now() + ms;
      for (;;) {
        const again = await admin.clock();
        [sim, real, speed] = [Date.parse(again.now), Date.now(), again.speed];
        if (sim >= at) return;
        await new Promise((resolve) => setTimeout(resolve, speed > 0 ? Math.min(1000, (at - sim) / speed + 5) : 200));
      }
    },
  };
}
