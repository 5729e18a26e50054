import { VoiceApiClient } from '#commons/voice-api/index.ts';
import { startEmulator } from '#local/emulator/server.ts';

/**
 * One measurement. A target always comes with its verdict (`npm run bench` prints MISS beside a missed one), so no
 * target can be printed without being judged.
 */
export type BenchResult = {
  name: string;
  ratio: number;
  baseline: string;
  detail: string;
} & ({ target: string; met: boolean } | { target?: undefined; met?: undefined });

/**
 * A target and its verdict from one limit, so what is printed is what is judged: `≤ 1.2×` by default, or `shown` after
 * the sign (`256 MB absolute`).
 */
export const atMost = (value: number, limit: number, shown = `${limit}×`) => ({
  target: `≤ ${shown}`,
  met: value <= limit,
});

/** The middle of the measurements (the upper one of an even count). */
export const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;

/** `atMost`'s other side: `≥ 0.2×`. */
export const atLeast = (value: number, limit: number, shown = `${limit}×`) => ({
  target: `≥ ${shown}`,
  met: value >= limit,
});

const ROUNDS = 5;
const REQUESTS = 400;

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const start = process.hrtime.bigint();
  for (let i = 0; i < REQUESTS; i++) await fn();
  return Number(process.hrtime.bigint() - start) / 1e6;
}

/** What the typed client (limiter, retry loop, error mapping, JSON) costs per request over a bare fetch. */
export async function clientOverhead(): Promise<BenchResult> {
  const emu = await startEmulator({ apiKey: 'bench', speed: 0, settings: { rateLimitPerMinute: 0 } });
  try {
    const api = new VoiceApiClient({ baseUrl: emu.url, apiKey: 'bench', requestsPerMinute: 0 });
    await api.agents.create({ name: 'Bench' });
    const url = `${emu.url}/api/developer/v1/agents`;
    const bare = () => fetch(url, { headers: { 'X-API-Key': 'bench' } }).then((r) => r.json());
    await timed(bare); // warm both paths up before measuring
    await timed(() => api.agents.list());
    const bareMs: number[] = [];
    const clientMs: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      bareMs.push(await timed(bare));
      clientMs.push(await timed(() => api.agents.list()));
    }
    const b = median(bareMs);
    const c = median(clientMs);
    return {
      name: 'client GET /agents',
      ratio: c / b,
      baseline: 'bare fetch of the same endpoint',
      detail: `${((c / REQUESTS) * 1000).toFixed(0)} µs vs ${((b / REQUESTS) * 1000).toFixed(0)} µs per request, median of ${ROUNDS}×${REQUESTS}`,
      ...atMost(c / b, 1.2),
    };
  } finally {
    await emu.close();
  }
}
