import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { documentClient } from '#commons/aws/clients.ts';
import { type CampaignPlan, partKey, partKeyOfExecution } from '#commons/campaign-plan.ts';
import { parseFollowUpPolicy } from '#commons/follow-up-policy.ts';
import { DEFAULT_LEGAL_HOURS } from '#commons/legal-hours.ts';
import { silentLog } from '#commons/log.ts';
import { isCountryCode } from '#commons/phone/phone.ts';
import { partReportFiles, reportKeys, reportPrefix } from '#commons/report-keys.ts';
import { VoiceApiClient } from '#commons/voice-api/index.ts';
import { partWindow, windowStateAt } from '#commons/window-plan.ts';
import type { IntakeReport } from '#intake/report.ts';
import { DEFAULT_START_HORIZON_DAYS } from '#intake/settings.ts';
import { type CampaignRecord, CampaignStore, progressOf } from '#lifecycle/campaign-store.ts';
import { EmulatorAdmin } from '#local/emulator/admin-client.ts';
import type { FaultInput } from '#local/emulator/fault-plan.ts';
import { type HoldAnswer, startEmulator } from '#local/emulator/server.ts';
import { isNewDataDir, localDataDir, localDynamoPath, newDataDirNote } from '#local/stack/data-dir.ts';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '#local/stack/local-aws.ts';
import { checkStackSettings, startLocalStack } from '#local/stack/local-stack.ts';
import { keepReportPages } from '#local/stack/report-pages.ts';
import { claimDataDir, describeStack, readRunningStack } from '#local/stack/running-stack.ts';
import { STATS_EVERY_MS, sampleStats } from '#local/stack/stats-sampler.ts';
import type { LocalExecution } from '#local/stack/step-functions.ts';
import { deliverEmulatorWebhooks } from '#local/stack/webhook-receiver.ts';
import { type Command, cannotRead, numberOption, UsageError, windowOption } from '../command.ts';
import { loadFaultPlan, placedCalls } from '../fault-plan-file.ts';
import { fileLog } from '../file-log.ts';
import { holdForOperators } from '../operator-hold.ts';
import { contactsLine, contactsOutcome, contactsSummary, dropContacts, readContactsFile } from '../run-contacts.ts';
import {
  deadEventsLine,
  type EmulatorCalls,
  faultedLines,
  followUpLines,
  isoDuration,
  type PartReport,
  partEntry,
  partLine,
  printNothingLaunched,
  readableDuration,
  readJson,
  runOutcome,
  runSummary,
  runUploadKey,
  securedLines,
  summaryLines,
  uploadSheet,
} from '../run-summary.ts';
import { shellSettings, shortTimeoutNote } from '../shell-settings.ts';
import { onStopSignal } from '../stop-signals.ts';
import { checkStartOptions, parseInstant, parseNow } from '../time-option.ts';
import { runOnStack } from './run-client.ts';

/** The scheduler's actor that holds time while the run sets up its uploads. */
const SETUP = 'callsheet run';

function checkOptions(values: Record<string, string | boolean | undefined>) {
  const country = (values.country as string | undefined)?.toUpperCase();
  if (country !== undefined && !isCountryCode(country))
    throw new UsageError(`--country ${values.country} is not a country code`);
  const start = values.start as string | undefined;
  const zone = values['time-zone'] as string | undefined;
  const retries = values.retries === undefined ? undefined : numberOption(values.retries, 'retries', 0);
  if (retries !== undefined && (!Number.isInteger(retries) || retries < 0 || retries > 3))
    throw new UsageError('--retries must be 0, 1, 2 or 3');
  const window = windowOption(values.window as string | undefined);
  const now = parseNow(values.now as string | undefined);
  // The same checks intake makes, blamed on the flag rather than on the S3 metadata run passes them as.
  checkStartOptions(start, zone, { now: now ?? Date.now(), days: DEFAULT_START_HORIZON_DAYS });
  const followUp = values['follow-up'] as string | undefined;
  if (followUp !== undefined) {
    const policy = parseFollowUpPolicy(followUp);
    if ('problem' in policy) throw new UsageError(`--follow-up: ${policy.problem}`);
  }
  const contactsAt = parseInstant(values['contacts-at'] as string | undefined, '--contacts-at');
  if (contactsAt !== undefined) {
    if (values.contacts === undefined) throw new UsageError('--contacts-at needs --contacts FILE');
    if (contactsAt < (now ?? Date.now()))
      throw new UsageError(`--contacts-at ${values['contacts-at']}: before the run starts (--now, or now)`);
  }
  return { country, start, zone, retries, window, now, followUp, contactsAt };
}

/** The upload's S3 metadata from the options, as a user would set it with `aws s3 cp --metadata`. */
function uploadMetadata(opts: ReturnType<typeof checkOptions>): Record<string, string> {
  return {
    // Each run is an explicit request to call this sheet, so a repeat of earlier content is allowed.
    'repeat-upload': 'yes',
    ...(opts.start ? { 'start-date-time': opts.start, 'time-zone': opts.zone as string } : {}),
    ...(opts.retries !== undefined ? { retries: String(opts.retries) } : {}),
    ...(opts.window ? { 'calling-window': opts.window } : {}),
    ...(opts.followUp ? { 'follow-up': opts.followUp } : {}),
  };
}

export const runCommand: Command = {
  name: 'run',
  summary: 'run the whole pipeline on a sheet: intake, campaign lifecycle, reports (embedded stack, simulated time)',
  usage:
    'run <file> [--agent ID] [--country CC] [--start ISO --time-zone TZ] [--retries N] [--window SPEC] [--follow-up POLICY] [--contacts FILE [--contacts-at ISO]] [--faults FILE] [--now ISO] [--credits N] [--json]',
  allowPositionals: true,
  options: {
    agent: { type: 'string' },
    country: { type: 'string' },
    start: { type: 'string' },
    'time-zone': { type: 'string' },
    retries: { type: 'string' },
    window: { type: 'string' },
    'follow-up': { type: 'string' },
    contacts: { type: 'string' },
    'contacts-at': { type: 'string' },
    faults: { type: 'string' },
    now: { type: 'string' },
    credits: { type: 'string' },
    json: { type: 'boolean' },
  },
  help: [
    'arguments:',
    '  <file>            .xlsx, .xls or .csv contact sheet',
    'options:',
    '  --agent ID        agent id or unique name (default: a new agent on the emulator)',
    '  --country CC      default country for numbers without a country code',
    '  --start ISO       schedule the campaign (local wall time, e.g. 2026-12-01T09:00) …',
    '  --time-zone TZ    … in this IANA zone',
    '  --retries N       retries per contact, 0-3; 3 means 4 calls, over the default cap of 3 a day',
    '                    (CALL_CAP_PER_DAY)',
    '  --window SPEC     calling window, e.g. "Mon-Fri 09:00-12:00,13:00-17:00; Sat 10:00-14:00"',
    '  --follow-up POLICY  call again by outcome, e.g. "no_answer,busy after 2h; failed after 1d; rounds 3"',
    '  --contacts FILE   a contact sync while the campaign runs: a contact sheet or JSON lines (.jsonl), dropped',
    '                    under contacts/ in the bucket once the campaign is under way; its events are applied and',
    "                    pushed in the run's time, within the one API budget the lifecycle draws on too",
    '  --contacts-at ISO  drop it at this simulated instant instead (with an offset), e.g. just before a close',
    '  --faults FILE     rehearse failures: arm this fault plan on the emulator before the upload',
    '                    (JSON; see examples/faults/ and docs/emulator.md)',
    '  --now ISO         simulated start instant with an offset, e.g. 2026-12-07T08:00:00-05:00 (default: now)',
    "  --credits N       the emulator account's starting credit balance in INR (default 10000)",
    '  --json            print the result as one JSON object at the end, with every call the emulator placed',
    '',
    'Runs s3rver, dynalite, the local Step Functions and the emulator on 127.0.0.1 with simulated time: Wait',
    'states move the clock, so days of calling take seconds. The emulator keeps to its plan (100 requests a minute,',
    '1,000 an hour) and every caller draws on one API budget, as deployed. With VOICE_API_URL and VOICE_API_KEY set it uses',
    'that API instead, in real time. Data (suppression list, bucket, reports) stays in $CALLSHEET_DATA_DIR',
    '(default .callsheet/); reports are copied to <data dir>/reports/<upload>/ (JSON, HTML page, outcomes),',
    'warnings and errors of the stack go to <data dir>/run.log.',
    'While it runs, `callsheet status`, `campaign` and `report` in another shell work on it; one stack per data',
    'directory (a second is refused: give it another CALLSHEET_DATA_DIR). A `campaign pause` from there holds',
    'simulated time still once every running part waits on it, until a `campaign resume` or `cancel`.',
    'Exit status 0 only when every part completed, on the emulator no call failed for want of credits, and a',
    '--contacts file was read, applied and pushed whole. (With `callsheet local` running on the data directory,',
    'the run hands the file to it and does not wait for the sync: see `callsheet contacts list`.)',
  ],
  async run(values, positionals) {
    const [file, ...extra] = positionals;
    if (!file || extra.length > 0) throw new UsageError('give exactly one sheet to run');
    const opts = checkOptions(values);
    const faults = values.faults === undefined ? null : await loadFaultPlan(values.faults as string);
    const contacts = values.contacts === undefined ? null : await readContactsFile(values.contacts as string);
    let body: Buffer;
    try {
      body = await readFile(file);
    } catch (err) {
      throw cannotRead(file, err);
    }
    const json = values.json === true;
    const say = (line: string) => {
      if (!json) console.log(line);
    };

    const realApi = process.env.VOICE_API_URL && process.env.VOICE_API_KEY;
    if (realApi && (faults || opts.now !== undefined || opts.contactsAt !== undefined))
      throw new UsageError('--faults, --now and --contacts-at need the emulator: unset VOICE_API_URL / VOICE_API_KEY');
    const credits = values.credits === undefined ? undefined : numberOption(values.credits, 'credits', 10_000);
    if (credits !== undefined && credits < 0) throw new UsageError('--credits must be 0 or more');
    if (realApi && credits !== undefined)
      throw new UsageError('--credits needs the emulator: unset VOICE_API_URL / VOICE_API_KEY');
    const dataDir = localDataDir();
    // With `callsheet local` running on this directory, run is its client: the upload goes to that stack.
    const running = await readRunningStack(dataDir);
    if (running?.command === 'local') {
      if (faults || opts.now !== undefined || opts.contactsAt !== undefined || credits !== undefined || realApi)
        throw new UsageError(
          `callsheet local (process ${running.pid}) runs on ${dataDir}: its emulator and clock take no --faults, --now, --contacts-at, --credits or VOICE_API_URL from a run; leave them out, or use another CALLSHEET_DATA_DIR`,
        );
      return runOnStack(running, {
        file,
        body,
        contacts,
        // --country as the upload's own setting: the running stack's default is its own (DEFAULT_COUNTRY).
        metadata: { ...uploadMetadata(opts), ...(opts.country ? { 'default-country': opts.country } : {}) },
        agent: (values.agent as string | undefined) ?? (running.agentId as string),
        json,
        dataDir,
      });
    }
    // A directory another stack holds is refused (DataDirBusyError: printed by main, exit status 1).
    const claim = await claimDataDir(dataDir, 'run');
    try {
      return await runWithClaim(file);
    } finally {
      await claim.release();
    }

    async function runWithClaim(file: string): Promise<number> {
      const apiKey = realApi ? (process.env.VOICE_API_KEY as string) : `local-${randomBytes(12).toString('hex')}`;
      // A bad setting stops the run before anything starts.
      const settings = { ...shellSettings(), ...(opts.country ? { DEFAULT_COUNTRY: opts.country } : {}) };
      checkStackSettings(settings, realApi ? { url: process.env.VOICE_API_URL as string, apiKey } : undefined);
      // Read before the stack writes it: a run in another folder starts a list of its own, which the user must know.
      const newDataDir = isNewDataDir();
      // A delay fault holds its answer on the stack's simulated clock (the stack starts after the emulator).
      let holdAnswer: HoldAnswer | null = null;
      const emulator = realApi
        ? null
        : await startEmulator({
            apiKey,
            speed: 0,
            // A new seed each run: ids (campaigns, calls) must not repeat those an earlier run left in the data
            // directory, where reports, outcomes and `campaign` commands find them by id.
            seed: `run-${randomBytes(6).toString('hex')}`,
            startTime: opts.now ?? Date.now(),
            // The plan's limits (the contract's first tier), which the stack's one API budget keeps to.
            settings: credits === undefined ? {} : { credits },
            hold: (ms, headers, late, finished) =>
              holdAnswer
                ? holdAnswer(ms, headers, late, finished)
                : new Promise<void>((resolve) => setTimeout(resolve, ms)),
          });
      const apiUrl = realApi ? (process.env.VOICE_API_URL as string) : (emulator?.url as string);
      // The handlers' warnings and errors (an intake that failed, a call event not recorded), for `see run.log`.
      const runLog = join(dataDir, 'run.log');
      const log = fileLog(runLog, { service: 'callsheet-run', info: false, terminal: false });
      const stack = await startLocalStack({
        voiceApi: { url: apiUrl, apiKey },
        ...(emulator
          ? { clock: emulator.core.clock, mayDial: (id, startsAt) => emulator.core.mayDial(id, startsAt) }
          : {}),
        dynamoPath: localDynamoPath(),
        checkDocuments: false,
        s3Directory: join(dataDir, 's3'),
        settings,
        heldAnswers: emulator !== null,
        log,
      }).catch(async (err) => {
        await emulator?.close();
        await log.close();
        throw err;
      });
      holdAnswer = stack.holdAnswer;
      // This command's own requests (the agent) draw on the shared budget as any caller's; the progress line and the
      // stats samples read what the workflows recorded and ask the API nothing.
      const api = new VoiceApiClient({ baseUrl: apiUrl, apiKey, budget: stack.budget('shared') });
      // Ctrl-C (or a kill, or the terminal closing) stops the workflows (their campaigns are secured by the guard) and
      // still reports what was done.
      let interrupted = false;
      const interrupt = () => {
        interrupted = true;
        if (!json) console.error('\nstopping: the workflows stop now; the summary follows');
        // An upload waiting out the intake queue's visibility timeout is not waited for.
        void stack.intakeQueue.stop();
        for (const e of stack.sfn.executions.values())
          if (e.status === 'RUNNING') stack.sfn.stop(e.executionArn, 'Interrupted', 'callsheet run was interrupted');
      };
      const stopListening = onStopSignal(interrupt);
      // Stats over time for the report pages; not in a rehearsal, whose faults must meet only the lifecycle's calls.
      const sampler = faults ? null : sampleStats(stack, { everyMs: STATS_EVERY_MS, log: silentLog });
      const pages = keepReportPages(stack, join(dataDir, 'reports'), silentLog, sampler?.samples);
      try {
        if (emulator) await deliverEmulatorWebhooks(emulator.url, stack.webhooks);
        await claim.publish(describeStack(stack, emulator ? { url: emulator.url, apiKey } : null, null));
        let agent = values.agent as string | undefined;
        if (!agent) {
          if (realApi) throw new UsageError('give --agent when running against a real API');
          agent = (
            await api.agents.create({ name: 'callsheet run', agent_prompt: 'Remind the contact of their appointment.' })
          ).id;
        } else if (emulator) {
          // The emulator starts empty on every run: an agent id from elsewhere cannot be on it.
          const known = (await api.agents.list()).some((a) => a.id === agent || a.name === agent);
          if (!known)
            throw new UsageError(
              `--agent ${agent}: the local emulator starts with no agents on each run; leave --agent out (a new agent is made), or point VOICE_API_URL and VOICE_API_KEY at the API that has it`,
            );
        }
        const key = runUploadKey(agent, file);
        const metadata = uploadMetadata(opts);
        const admin = emulator ? new EmulatorAdmin(emulator.url) : null;
        if (faults && admin) {
          const armed = await admin.faultPlan(faults.plan as FaultInput[]);
          say(
            `${faults.file}: ${armed.faults.length} fault(s) armed${faults.description ? ` — ${faults.description}` : ''}`,
          );
        }
        const before = new Set(stack.sfn.executions.keys());
        // Time stands still until the campaign's workflows and the contact file are both under way.
        stack.scheduler?.join(SETUP);
        let id: string;
        let contactsId: string | null = null;
        try {
          id = await uploadSheet(stack.objects, stack.bucket, key, body, metadata);
          // Intake has finished, or failed and waits out its queue's visibility timeout, which passes only once
          // time moves again (below).
          await stack.intakeQueue.handled();
          if (contacts && opts.contactsAt === undefined)
            contactsId = await dropContacts(stack.objects, stack.bucket, contacts);
        } finally {
          stack.scheduler?.leave(SETUP);
        }
        if (stack.intakeQueue.retrying)
          say(
            `${file}: intake failed on its first delivery (see ${runLog}); the queue delivers the upload again after its visibility timeout, as SQS would`,
          );
        await stack.intakeQueue.idle();
        // At a chosen instant instead: one more actor of the simulated clock, so time does not pass it first.
        const contactsDrop =
          contacts && opts.contactsAt !== undefined && stack.scheduler
            ? stack.scheduler.at(opts.contactsAt, async () => {
                if (!interrupted) contactsId = await dropContacts(stack.objects, stack.bucket, contacts);
              })
            : null;
        const started = () => [...stack.sfn.executions.values()].filter((e) => !before.has(e.executionArn));
        // Intake has finished (its queue is idle), so its report is final: read once for the notes, parts and summary.
        const intake = await readJson<IntakeReport>(stack.objects, stack.bucket, reportKeys(id).json);
        const first = started()[0];
        if (!first) {
          await pages.idle();
          if (interrupted) {
            if (!json) console.error(`${file}: stopped before intake started anything`);
            return 130;
          }
          printNothingLaunched(
            { file, upload: key, json, dataDir, reportFile: join(dataDir, reportKeys(id).json) },
            intake,
            stack.intakeQueue.deadLetters.length > 0
              ? `intake failed on every delivery and the upload went to the dead letters; the reasons are in ${runLog}`
              : `intake did not start anything; see ${runLog}`,
          );
          return 1;
        }
        say(`${file}: uploaded as ${key}; intake report ${join(dataDir, reportKeys(id).json)}`);
        // What intake says up front (rows it could not place, an API plan too small for the parts), before the wait.
        // Then the run's own: a data directory it started, a workflow timeout too short for the horizons.
        const shortTimeout = shortTimeoutNote(settings);
        const runNotes = [...(newDataDir ? [newDataDirNote()] : []), ...(shortTimeout ? [shortTimeout] : [])];
        for (const note of [...(intake?.notes ?? []), ...runNotes]) say(`  note: ${note}`);
        const store = new CampaignStore(
          documentClient({
            region: LOCAL_REGION,
            endpoints: { dynamodb: stack.dynamo.endpoint },
            credentials: LOCAL_CREDENTIALS,
          }),
          stack.dynamo.tables.campaigns,
        );
        const clockNow = () => emulator?.core.clock.now() ?? Date.now();
        const progress =
          !json && process.stdout.isTTY ? setInterval(() => void show(store, started(), clockNow()), 500) : null;
        const hold = stack.scheduler
          ? holdForOperators({
              scheduler: stack.scheduler,
              store,
              partKeys: () => [...new Set(started().map((e) => partKeyOfExecution(e.name)))],
              // Below the progress line, which the next tick draws again.
              say: (line) => say(progress ? `\r\x1b[K${line}` : line),
              stopped: () => interrupted,
            })
          : null;
        try {
          await stack.sfn.settled();
        } finally {
          hold?.stop();
        }
        // Workflows that ended stopped, failed or timed out reach the guard, which secures their campaigns and
        // writes their reports: the summary waits for it.
        await stack.guardIdle();
        // A request the emulator held before carrying it out (a late fault) goes on after its asker gave up: what it
        // did, and its line in the request log, count once it is done.
        await emulator?.traffic.settled();
        // The contact file's sync runs to its end (on the simulated clock), unless the run was stopped.
        if (!interrupted) {
          await contactsDrop;
          await stack.contacts.settle();
          // Call events the processor failed come back after the queue's visibility timeout: counted once every
          // event the emulator sent is handled.
          await emulator?.core.webhooks.settled();
          await stack.webhooks.queue.idle();
        }
        if (progress) {
          clearInterval(progress);
          // The progress line goes: the lines below say how each part ended.
          process.stdout.write('\r\x1b[K');
        }

        await pages.idle();
        // Real files under the data directory: the bucket's addresses live only as long as this process.
        const local = (name: string) => join(dataDir, 'reports', id, name);
        const parts = [];
        // What the safety net did to each part, in one read: it may have acted again since a part's report was written.
        const partRecords = await store.getMany((intake?.parts ?? []).map((p) => partKey(id, p.index)));
        for (const p of intake?.parts ?? []) {
          const files = partReportFiles(reportPrefix(id), p.index);
          const r = await readJson<PartReport>(stack.objects, stack.bucket, files.json);
          const key = partKey(id, p.index);
          parts.push({
            partKey: key,
            ...partEntry(p.index, r, stack.bucket, files, local, interrupted, partRecords.get(key) ?? null),
            stateTransitions: r?.stateTransitions ?? 0,
            simulatedDuration: isoDuration(r?.durationSeconds ?? 0),
          });
        }
        // The emulator's own records, so anyone can check from the raw data that no call started outside its window.
        const records = admin ? await rehearsalRecords(admin) : null;
        const summary = runSummary(intake, records && admin ? await admin.state<EmulatorCalls>() : null);
        const synced =
          contacts && contactsId
            ? await contactsSummary(stack.objects, stack.bucket, contacts, contactsId, stack.contacts)
            : null;
        const deadEvents = stack.webhooks.queue.deadLetters.length;
        const result = {
          upload: `s3://${stack.bucket}/${key}`,
          summary,
          callEventsDeadLettered: deadEvents,
          notes: intake?.notes ?? [],
          runNotes,
          dataDir: { path: dataDir, new: newDataDir },
          parts,
          ...(synced ? { contacts: synced } : {}),
          ...records,
        };
        if (json) console.log(JSON.stringify(result, null, 2));
        else {
          for (const p of parts) {
            say(partLine(p, `${readableDuration(p.simulatedDuration)}${emulator ? ' of simulated time' : ''}`));
            for (const line of securedLines(p, Boolean(realApi))) say(line);
            for (const line of followUpLines(p)) say(line);
            if ('page' in p) say(`  report: ${p.page}`);
          }
          for (const line of summaryLines(summary)) say(line);
          if (synced) for (const line of contactsLine(synced)) say(line);
          if (deadEvents > 0) say(deadEventsLine(deadEvents, stack.webhooks.queue.maxReceives));
          if (records && faults) for (const line of faultedLines(records.faulted_requests)) say(line);
          say(`all reports: ${join(dataDir, 'reports', id)}`);
        }
        if (interrupted) return 130;
        // Counted from the emulator's records: a real API's failures are in its dashboard and the part reports.
        const outcome = runOutcome(parts, summary, 'here: --credits');
        // A contact sync that left work undone fails the run as it fails `contacts push`.
        const sync = synced ? contactsOutcome(synced) : null;
        if (!json) for (const line of [...outcome.lines, ...(sync?.line ? [sync.line] : [])]) say(line);
        return sync && !sync.ok ? 1 : outcome.code;
      } finally {
        stopListening();
        sampler?.stop();
        await stack.close();
        await pages.close();
        await emulator?.close();
        await log.close();
        // aws-local-stepfunctions leaves the time limit of a task it aborted armed (minutes of real time), which
        // would keep the process alive once everything here has closed.
        if (interrupted) setTimeout(() => process.exit(130), 1_000).unref();
      }
    }
  },
};

interface FaultedRequest {
  at: string;
  method: string;
  path: string;
  status: number;
  fault_id?: number;
  dropped?: boolean;
  cut?: boolean;
  replaced?: boolean;
}

/** Every call the emulator placed and every request a fault hit, from its admin API. */
async function rehearsalRecords(admin: EmulatorAdmin) {
  const state = await admin.state<{ calls: Parameters<typeof placedCalls>[0] }>();
  const log = await admin.requests<(FaultedRequest & { fault: boolean })[]>();
  return {
    calls: placedCalls(state.calls),
    // When each campaign could have dialled had a line been free: an auditor checks these beside the calls.
    dialable: (await admin.dialable()).map(({ campaign_id, from, to, phones }) => ({ campaign_id, from, to, phones })),
    faulted_requests: log
      .filter((r) => r.fault)
      .map(({ at, method, path, status, fault_id, dropped, cut, replaced }) => ({
        at,
        method,
        path,
        status,
        fault_id,
        ...(dropped ? { dropped } : {}),
        ...(cut ? { cut } : {}),
        ...(replaced ? { replaced } : {}),
      })),
  };
}

/** One line per part on a terminal: status, progress and when the window next changes. */
async function show(store: CampaignStore, executions: LocalExecution[], now: number): Promise<void> {
  const latest = new Map<string, LocalExecution>();
  for (const e of executions) latest.set(partKeyOfExecution(e.name), e);
  const parts: { index: number; status: string; progress: string; next: number | null; open: boolean }[] = [];
  // One read per 100 parts a tick, not one per part.
  const records = await store.getMany([...latest.keys()]).catch(() => new Map<string, CampaignRecord>());
  for (const [partKey, e] of latest) {
    const { plan } = JSON.parse(e.input) as { plan: CampaignPlan };
    const record = records.get(partKey);
    // What the workflow saw at its last look: the line asks the API nothing, so it spends none of the plan.
    const p = progressOf(record?.watch);
    // The part's own window in all its zones (never a guessed zone): the one its workflow recorded, computed here
    // only before the workflow's first look (twice a second for a hundred parts, the holiday rules add up).
    const recorded = record?.watch?.window;
    const w = recorded ? { ok: true as const, window: recorded } : partWindow(plan, DEFAULT_LEGAL_HOURS, now);
    const change = w.ok ? windowStateAt(w.window, now, 0) : { open: false, changesAt: null };
    parts.push({
      index: plan.part.index,
      status: record?.status ?? e.status.toLowerCase(),
      progress: p ? `${p.done}/${p.total}` : '-',
      next: change.changesAt,
      open: change.open,
    });
  }
  const when = (at: number | null, open: boolean) =>
    at ? `window ${open ? 'closes' : 'opens'} ${new Date(at).toISOString().slice(0, 16)}Z` : '';
  let line: string;
  if (parts.length <= 3)
    line = parts.map((p) => `part ${p.index}: ${p.status} ${p.progress} ${when(p.next, p.open)}`).join(' | ');
  else {
    // Many parts do not fit one line: how many are in each state, and the next window change among them.
    const byStatus = new Map<string, number>();
    for (const p of parts) byStatus.set(p.status, (byStatus.get(p.status) ?? 0) + 1);
    const soonest = parts.filter((p) => p.next !== null).sort((a, b) => (a.next ?? 0) - (b.next ?? 0))[0];
    line = `${parts.length} parts: ${[...byStatus].map(([k, n]) => `${n} ${k}`).join(', ')} ${soonest ? when(soonest.next, soonest.open) : ''}`;
  }
  process.stdout.write(`\r${line}`.padEnd(120));
}
