import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { basename } from 'node:path';
import { isCampaignFileName, TtsApi, VoiceApiClient } from '#commons/voice-api/index.ts';
import { parseWebhook, WebhookVerificationError } from '#commons/voice-api/webhooks.ts';
import { counted } from '#commons/words.ts';
import { EmulatorAdmin } from '#local/emulator/admin-client.ts';
import { startEmulator } from '#local/emulator/server.ts';
import { type Command, cannotRead, UsageError } from '../command.ts';

const DEFAULT_SHEET = new URL('../../../examples/contacts.xlsx', import.meta.url);

/** A local receiver that checks every webhook's signature, as a production receiver must. */
async function startWebhookReceiver(secret: string) {
  const events: string[] = [];
  let rejected = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      try {
        events.push(parseWebhook(Buffer.concat(chunks), req.headers, secret).event);
        res.writeHead(204).end();
      } catch (err) {
        rejected++;
        res.writeHead(err instanceof WebhookVerificationError ? err.status : 400).end();
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    events,
    rejected: () => rejected,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

export const demoCommand: Command = {
  name: 'demo',
  summary: 'start the emulator and walk every part of the API once: agent, call with live transcript, campaign, TTS',
  usage: 'demo [--sheet FILE] [--seed S] [--json]',
  options: { sheet: { type: 'string' }, seed: { type: 'string' }, json: { type: 'boolean' } },
  help: [
    'options:',
    '  --sheet FILE  contact sheet (.xlsx/.xls, E.164 "Phone Number" column) for the campaign',
    '                (default examples/contacts.xlsx)',
    '  --seed S      emulator seed; the same seed gives the same calls (default "demo")',
    '  --json        print one JSON summary instead of the running commentary',
    '',
    'Runs offline against an in-process emulator with a frozen clock that the demo advances itself.',
  ],
  async run(values) {
    const json = values.json === true;
    const say = (line: string) => {
      if (!json) console.log(line);
    };
    const sheetPath = (values.sheet as string | undefined) ?? DEFAULT_SHEET.pathname;
    // The API's campaigns take only workbooks: said before the tour starts, not by the API half-way through it.
    if (!isCampaignFileName(sheetPath))
      throw new UsageError(`--sheet ${sheetPath}: the Voice API takes a campaign's contacts as .xlsx or .xls only`);
    let sheet: Buffer;
    try {
      sheet = await readFile(sheetPath);
    } catch (err) {
      throw cannotRead(sheetPath, err);
    }
    const apiKey = `demo_${randomBytes(12).toString('hex')}`;
    const secret = randomBytes(16).toString('hex');
    const emu = await startEmulator({ apiKey, speed: 0, seed: (values.seed as string | undefined) ?? 'demo' });
    const hooks = await startWebhookReceiver(secret);
    try {
      const admin = new EmulatorAdmin(emu.url);
      await admin.configure({ webhookUrl: hooks.url, webhookSecret: secret });
      const api = new VoiceApiClient({ baseUrl: emu.url, apiKey });
      say(`emulator on ${emu.url}`);

      const [number] = await api.phoneNumbers.list();
      const tts = await api.tts.config();
      const provider = TtsApi.singleShotProvider(tts);
      const voice = provider?.voices[0];
      const kb = await api.knowledge.create({
        name: 'Renewal offer',
        content: 'Renewals before month end get 15% off.',
      });
      const agent = await api.agents.create({
        name: 'Renewal desk',
        phone_number_id: number?.id ?? null,
        greeting_line: 'Hello, this is the renewal desk.',
        agent_prompt: 'You help customers renew their plan.',
        knowledge_base_ids: [kb.id],
        tts_provider: provider?.key ?? null,
        voice: voice?.value ?? null,
        tts_language: voice?.lang ?? null,
      });
      say(
        `agent ${agent.id} "${agent.name}" dials from ${number?.phone_number}; greeting audio: ${agent.greeting_audio_generated}`,
      );

      // One call, watched live; redialled (as a person would) when nobody answers.
      const live = await api.live();
      const transcript: string[] = [];
      live.onMessage((m) => {
        if (m.type === 'transcript.update' && m.is_final) transcript.push(`${m.speaker}: ${m.text}`);
      });
      let call = await api.calls.start({ agent_id: agent.id, phone_number: '+14155552671', contact_name: 'Sam' });
      let single = call;
      for (let attempt = 1; attempt <= 3; attempt++) {
        if (attempt > 1)
          call = await api.calls.start({ agent_id: agent.id, phone_number: '+14155552671', contact_name: 'Sam' });
        await live.subscribe(call.id);
        single = await api.calls.get(call.id);
        for (let minute = 0; minute < 30 && !['completed', 'failed', 'cancelled'].includes(single.status); minute++) {
          await admin.advance(60);
          single = await api.calls.get(call.id);
        }
        say(
          `call ${call.id}: ${single.status}${single.failure_reason ? ` (${single.failure_reason})` : ''}, ${single.duration ?? 0} s, ₹${single.cost ?? 0}`,
        );
        if (single.status === 'completed') break;
      }
      await new Promise((r) => setTimeout(r, 50)); // let the last live messages arrive
      live.close();
      for (const line of transcript) say(`  ${line}`);

      // A campaign from the sheet, paused and resumed on the way.
      const campaign = await api.campaigns.create({
        file: sheet,
        fileName: basename(sheetPath),
        agent_id: agent.id,
        name: 'Renewals (demo)',
        retries: 1,
      });
      say(`campaign ${campaign.id}: ${counted(campaign.total_contacts, 'contact')}, ${campaign.status}`);
      let stats = await api.campaigns.stats(campaign.id);
      let paused = false;
      for (let step = 0; step < 24 * 60 && stats.pending + stats.in_progress > 0; step++) {
        await admin.advance(60);
        stats = await api.campaigns.stats(campaign.id);
        if (step === 3) {
          await api.campaigns.pause(campaign.id);
          paused = true;
          say(`  paused with ${stats.completed + stats.failed} of ${stats.total} done`);
        }
        if (step === 8 && paused) {
          await api.campaigns.resume(campaign.id);
          say(`  resumed with ${stats.completed + stats.failed} of ${stats.total} done`);
        }
        if (step % 5 === 0)
          say(
            `  +${step + 1} min: pending ${stats.pending}, in progress ${stats.in_progress}, completed ${stats.completed}, failed ${stats.failed}`,
          );
      }
      say(`campaign finished: completed ${stats.completed}, failed ${stats.failed} of ${stats.total}`);

      const audio = await api.tts.generate({
        text: 'Thanks for renewing with us today.',
        actor: voice?.value ?? '',
        language: voice?.lang ?? '',
      });
      say(`tts: ${audio.audio.length} bytes of ${audio.contentType}, ${audio.durationSeconds} s, ₹${audio.costInr}`);

      await emu.core.webhooks.settled();
      const callStats = await api.calls.stats();
      const summary = {
        agent: agent.id,
        call: { id: call.id, status: single.status, duration: single.duration, transcriptLines: transcript.length },
        campaign: { id: campaign.id, stats },
        tts: { bytes: audio.audio.length, durationSeconds: audio.durationSeconds },
        webhooks: { verified: hooks.events.length, rejected: hooks.rejected() },
        callStats,
      };
      say(
        `webhooks: ${hooks.events.length} verified, ${hooks.rejected()} rejected; all calls: ${callStats.total_calls}, success rate ${callStats.success_rate}`,
      );
      if (json) console.log(JSON.stringify(summary, null, 2));
      return stats.pending + stats.in_progress === 0 && hooks.rejected() === 0 ? 0 : 1;
    } finally {
      await hooks.close();
      await emu.close();
    }
  },
};
