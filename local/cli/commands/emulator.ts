import { randomBytes } from 'node:crypto';
import { startEmulator } from '#local/emulator/server.ts';
import { type Command, numberOption, UsageError } from '../command.ts';
import { onStopSignal } from '../stop-signals.ts';

export const emulatorCommand: Command = {
  name: 'emulator',
  summary: 'run the Voice Agent API emulator on 127.0.0.1 until interrupted',
  usage: 'emulator [--port N] [--api-key K] [--speed X] [--seed S] [--rate-limit N] [--concurrency N] [--credits N]',
  options: {
    port: { type: 'string' },
    'api-key': { type: 'string' },
    speed: { type: 'string' },
    seed: { type: 'string' },
    'rate-limit': { type: 'string' },
    concurrency: { type: 'string' },
    credits: { type: 'string' },
  },
  help: [
    'options:',
    '  --port N         port to listen on (default 4010; 0 picks a free one)',
    '  --api-key K      the X-API-Key the emulator accepts (default: $VOICE_API_KEY, else a random key printed once)',
    '  --speed X        simulated seconds per real second (default 1; 0 freezes the clock: move it with',
    '                   POST /_emulator/clock)',
    '  --seed S         seed for simulated call outcomes and ids, for repeatable runs (default "callsheet")',
    '  --rate-limit N   requests per minute per key (default 100; 0 = no limit)',
    '  --concurrency N  calls on the line at once, account-wide (default 10)',
    '  --credits N      starting credit balance in INR (default 10000)',
    '',
    'Developer API under /api/developer/v1, live channel at /v1/ws, admin API under /_emulator/ (docs/emulator.md).',
  ],
  async run(values) {
    const port = numberOption(values.port, 'port', 4010);
    if (!Number.isInteger(port) || port < 0 || port > 65535)
      throw new UsageError('--port must be a whole number from 0 to 65535');
    const speed = numberOption(values.speed, 'speed', 1);
    if (speed < 0) throw new UsageError('--speed must be ≥ 0');
    const given = (values['api-key'] as string | undefined) ?? process.env.VOICE_API_KEY;
    const apiKey = given || `emu_${randomBytes(16).toString('hex')}`;
    const settings: Record<string, number> = {};
    if (values['rate-limit'] !== undefined)
      settings.rateLimitPerMinute = numberOption(values['rate-limit'], 'rate-limit', 100);
    if (values.concurrency !== undefined) settings.concurrency = numberOption(values.concurrency, 'concurrency', 10);
    if (values.credits !== undefined) settings.credits = numberOption(values.credits, 'credits', 10_000);
    const emu = await startEmulator({
      port,
      apiKey,
      speed,
      seed: (values.seed as string | undefined) ?? 'callsheet',
      settings,
    });
    // A generated key has to be told once, or nobody could use the emulator; a given one is never echoed.
    if (!given) console.error(`api key: ${apiKey}`);
    console.log(`listening on ${emu.url}`);
    await new Promise<void>((resolve) => {
      onStopSignal(() => resolve());
    });
    await emu.close();
    return 0;
  },
};
